"""The code blocks of docs/ecosystem.md, run as written by the tests of each framework."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ecosystem.md"


def doc_example(name: str) -> str:
    """The python block after ``<!-- example: name -->``."""
    match = re.search(
        rf"<!-- example: {re.escape(name)} -->\s*```python\n(.*?)```", DOC.read_text(), re.S
    )
    assert match, f"no example {name!r} in {DOC}"
    return match.group(1)


def run_example(name: str, timeout: int = 600) -> str:
    """Run the example in a fresh interpreter; its stdout (it must exit 0)."""
    done = subprocess.run(
        [sys.executable, "-c", doc_example(name)],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
