"""Run folders of training and evaluation: never reused, never outside ``out``, and marked
with their status, so an interrupted run can never pass for a finished one.

* ``new_run_dir(out, name)`` creates ``<out>/<name>``, or ``<name>-2``, ``-3``, ... when it
  exists (``mkdir`` fails on an existing folder, so two runs started in the same second
  still get two folders).
* ``plain_folder_name`` accepts plain names only (no ``/``, ``..`` or leading ``.``).
* ``status.json`` says ``running``, ``interrupted``, ``failed`` (with the error) or
  ``complete`` (written atomically), with the process id and host; ``read_status`` reads a
  ``running`` run whose process is gone as ``interrupted``. Reports and results are
  written only at the end, atomically, before ``complete``.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import time
from pathlib import Path
from typing import Any

from perikles_env.errors import InvalidConfigError
from perikles_env.files import write_text

STATUS = "status.json"
RUNNING, INTERRUPTED, FAILED, COMPLETE = "running", "interrupted", "failed", "complete"


def plain_folder_name(name: Any) -> str:
    """``name`` if it stays inside ``out`` (a non-empty plain name), else ``ValueError``."""
    if (
        not isinstance(name, str)
        or not name
        or name.startswith(".")
        or any(sep in name for sep in ("/", "\\", os.sep, "\0"))
    ):
        raise ValueError(f"must be a plain folder name (no '/', '..'), got {name!r}")
    return name


def folder_path(out: Any) -> str:
    """``out`` if it is a non-blank folder path, else ``ValueError``."""
    if not isinstance(out, str) or not out.strip():
        raise ValueError(f"must be a folder path (a string), got {out!r}")
    return out


def check_folder_name(key: str, name: Any) -> None:
    """``InvalidConfigError`` naming ``key`` unless ``name`` is a plain folder name."""
    try:
        plain_folder_name(name)
    except ValueError as exc:
        raise InvalidConfigError(f"{key}: {exc}") from None


def new_run_dir(out: str | Path, name: str) -> Path:
    """A new, empty ``<out>/<name>`` (suffixed ``-2``, ``-3``, ... if taken)."""
    check_folder_name("name", name)
    parent = Path(out)
    blocker = next((p for p in (parent, *parent.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise InvalidConfigError(f"out: {str(blocker)!r} is a file, not a folder")
    parent.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        path = Path(out) / (name if k == 1 else f"{name}-{k}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            k += 1


def write_status(run_dir: Path, status: str, **details: Any) -> None:
    """``status.json``: the status, the time, and the process and host writing it (so a
    reader can tell a live run from one whose process was killed)."""
    record = {
        "status": status,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "pid": os.getpid(),
        "host": socket.gethostname(),
        **details,
    }
    write_text(run_dir / STATUS, json.dumps(record, indent=1) + "\n")


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (signal 0 checks, sends nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def read_status(run_dir: Path) -> dict[str, Any]:
    """The run's status record (``{}`` if there is none). A ``running`` record whose process
    is gone from this host reads ``interrupted`` (killed without a chance to say so), with
    ``reason`` saying why."""
    try:
        data = json.loads((run_dir / STATUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    pid, host = data.get("pid"), data.get("host")
    if data.get("status") == RUNNING and host == socket.gethostname() and isinstance(pid, int):
        if not process_alive(pid):
            return {**data, "status": INTERRUPTED, "reason": f"process {pid} on {host} is gone"}
    return data


def remove_temp_files(run_dir: Path) -> list[Path]:
    """Delete the temporary files of atomic writes (``.snapshot_….zip.*.tmp``) that a killed
    run left behind; returns them. Call only when no process writes ``run_dir``."""
    found = sorted(p for p in run_dir.rglob(".*.tmp") if p.is_file())
    for path in found:
        path.unlink(missing_ok=True)
    return found


def resume_command(run_dir: Path) -> str:
    """The command that continues a training run (the installed script: any folder)."""
    return f"perikles-train --resume {shlex.quote(str(run_dir))}"
