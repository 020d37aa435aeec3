"""The check every generated file shares: its generator, run with ``--check``, finds it
current (a stale file fails the test that calls this)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def assert_generated_current(script: str) -> None:
    """``scripts/<script> --check`` exits 0: what it writes equals what is committed."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def load_generator(script: str) -> ModuleType:
    """``scripts/<script>`` imported as a module (the scripts folder is no package)."""
    spec = importlib.util.spec_from_file_location(Path(script).stem, ROOT / "scripts" / script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
