"""Long jobs that explain themselves: status.json names its process and host, so a run whose
process was killed reads "interrupted"; a resume cleans what a kill left half written; a
config that would build Python objects is refused in one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from perikles_env.errors import InvalidConfigError
from perikles_env.jobs.run_folder import (
    INTERRUPTED,
    RUNNING,
    read_status,
    remove_temp_files,
    write_status,
)
from perikles_env.training.ppo.train import resumable, status_line


def test_status_names_the_process_and_host(tmp_path: Path) -> None:
    write_status(tmp_path, RUNNING, command="perikles-train --config smoke")
    record = json.loads((tmp_path / "status.json").read_text())
    assert record["pid"] == os.getpid() and record["host"] == socket.gethostname()
    assert read_status(tmp_path)["status"] == RUNNING  # this process is alive
    with pytest.raises(InvalidConfigError, match="still running"):
        resumable(tmp_path)


def test_a_run_whose_process_is_gone_reads_interrupted(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; "
        "from perikles_env.jobs.run_folder import write_status; "
        "write_status(Path(sys.argv[1]), 'running', timesteps=4096)"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, timeout=60)
    assert json.loads((tmp_path / "status.json").read_text())["status"] == RUNNING
    record = read_status(tmp_path)
    assert record["status"] == INTERRUPTED and "is gone" in record["reason"]
    line = status_line(tmp_path)
    assert "interrupted" in line and "4,096 learner steps" in line
    assert f"perikles-train --resume {tmp_path}" in line
    assert resumable(tmp_path) == tmp_path


def test_a_run_on_another_host_is_left_as_written(tmp_path: Path) -> None:
    (tmp_path / "status.json").write_text(
        json.dumps({"status": RUNNING, "pid": 1, "host": "elsewhere.invalid"})
    )
    assert read_status(tmp_path)["status"] == RUNNING
    assert "not a run folder" in status_line(tmp_path / "missing")


def test_a_resume_removes_what_a_kill_left_half_written(tmp_path: Path) -> None:
    (tmp_path / "snapshots").mkdir()
    left = tmp_path / "snapshots" / ".snapshot_000004096.zip.k2j3.tmp"
    left.write_bytes(b"half")
    kept = [tmp_path / "snapshots" / "snapshot_000004096.zip", tmp_path / "notes.tmp"]
    for path in kept:
        path.write_bytes(b"whole")
    assert remove_temp_files(tmp_path) == [left]
    assert not left.exists() and all(p.exists() for p in kept)


def test_yaml_python_tags_are_refused_in_one_line(tmp_path: Path) -> None:
    from perikles_env.evaluation.config import load_config as load_eval
    from perikles_env.training.ppo.config import load_config
    from perikles_env.training.rllib.config import load_config as load_rllib

    marker = tmp_path / "ran"
    path = tmp_path / "evil.yaml"
    path.write_text(f"name: !!python/object/apply:os.system ['touch {marker}']\n")
    for load in (load_config, load_eval, load_rllib):
        with pytest.raises(InvalidConfigError) as info:
            load(path)
        message = str(info.value)
        assert "\n" not in message and "line 1" in message, message
        assert "python/object/apply:os.system" in message and "refused" in message
    assert not marker.exists()
    done = subprocess.run(
        [sys.executable, "-m", "perikles_env.launch.ppo", "--config", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "refused" in done.stderr and not marker.exists()
