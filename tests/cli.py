"""What the command-line tests share: run a module as its own process, and the clean
failure every tool owes bad input (exit code 2, one line on stderr naming the problem,
never a traceback)."""

from __future__ import annotations

import subprocess
import sys


def run_module(
    module: str, *args: str, cwd=None, timeout: int = 180
) -> subprocess.CompletedProcess:
    """``python -m module args...`` with no stdin, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL, cwd=cwd,
    )


def assert_clean_failure(done: subprocess.CompletedProcess, *words: str) -> None:
    """Exit code 2 and one line on stderr, no traceback, holding each of ``words``."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    for word in words:
        assert word in lines[0], lines[0]
