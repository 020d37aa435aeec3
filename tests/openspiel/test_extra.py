"""Without the ``openspiel`` extra, importing the adapter says which extra to install (runs
whether or not OpenSpiel is installed: it hides pyspiel from a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_missing_extra_is_named() -> None:
    code = (
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pyspiel', 'open_spiel'):\n"
        "            raise ImportError('hidden ' + name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "try:\n"
        "    import perikles_env.openspiel\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'perikles_env[openspiel]'" in done.stdout
