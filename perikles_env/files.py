"""Atomic file writes: a reader (or a resumed run) sees the old file or the new one, never
half of one.

Why: training and evaluation run for hours and can be killed at any moment; a checkpoint,
report or result file cut off mid-write would make ``--resume`` crash or leave a
complete-looking but wrong report. Each write goes to a temporary file in the same folder,
is flushed to disk, then renamed over the target (``os.replace`` is atomic on POSIX and
Windows). Stdlib only, so every layer can use it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

_UMASK = os.umask(0o022)  # read the process umask (and put it back at once)
os.umask(_UMASK)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yields a temporary path next to ``path``; when the block ends without an error the
    file written there replaces ``path``, otherwise it is removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes it private; files are not
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], object]) -> None:
    """``write(file)`` fills a temporary file that then replaces ``path``."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        write(f)


def write_text(path: str | Path, text: str) -> None:
    """Atomically replace ``path`` with ``text`` (UTF-8)."""
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))
