"""``perikles-search-train --resume`` at the edges: a run killed before its first
checkpoint (it could not resume and its folder kept saying ``running``) starts again at
iteration 1 in its folder and ends with the uninterrupted run's network; a complete run
with nothing left to do, or one still running, is refused with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from perikles_env.engine.backend import native_available
from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.jobs.run_folder import read_status, write_status
from perikles_env.launch import expert as cli
from perikles_env.training.expert import checkpoint, loop
from tests.training.test_expert_loop import QUICK, _config, _status

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")
ROOT = Path(__file__).resolve().parents[2]

KILLED_AT_FIRST_CHECKPOINT = """
import os, sys
from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.training.expert import checkpoint, loop
from perikles_env.training.expert.config import load_config
checkpoint.save = lambda *args, **kwargs: os._exit(9)  # SIGKILL: nothing more is written
loop.run(load_config("search_smoke", sys.argv[1:]), progress=False, evaluator=TOURNAMENT)
"""


def test_a_run_killed_before_its_first_checkpoint_resumes_from_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    overrides = [*QUICK, "budget.iterations=1"]
    whole = loop.run(_config(tmp_path / "a", *overrides), progress=False, evaluator=TOURNAMENT)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AT_FIRST_CHECKPOINT, f"out={tmp_path / 'b'}", *overrides],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert killed.returncode == 9, killed.stderr[-2000:]
    cut = tmp_path / "b" / "search_smoke"
    assert _status(cut) == "running"  # the file: the process had no chance to say more
    assert read_status(cut)["status"] == "interrupted"  # ... but it reads as killed
    assert not list((cut / checkpoint.FOLDER).glob("ckpt_*.zip"))
    assert cli.main(["--resume", str(cut), "--no-progress"]) == 0
    assert "has no checkpoint yet: starting it again at iteration 1" in capsys.readouterr().err
    assert _status(cut) == "complete"
    a, b = checkpoint.latest(whole), checkpoint.latest(cut)
    assert a.iteration == b.iteration == 1
    for name, tensor in a.net.state_dict().items():
        assert torch.equal(tensor, b.net.state_dict()[name]), name


def test_a_complete_or_running_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    run_dir = loop.run(_config(tmp_path, *QUICK, "budget.iterations=1"), progress=False,
                       evaluator=TOURNAMENT)
    before = {p: p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}
    assert cli.main(["--resume", str(run_dir), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "already complete (1 iterations" in err
    assert "--override budget.iterations=2" in err
    after = {p: p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}
    assert after == before  # nothing rewritten, the status still complete
    status = json.loads((run_dir / "status.json").read_text())
    write_status(run_dir, "running", command=status["command"])  # this live process
    assert cli.main(["--resume", str(run_dir), "--no-progress", "--override",
                     "budget.iterations=2"]) == 2
    assert "is still running (process" in capsys.readouterr().err
    write_status(run_dir, "complete", command=status["command"])
    assert cli.main(["--resume", str(run_dir), "--no-progress", "--override",
                     "budget.iterations=2"]) == 0  # a larger budget extends it, as before
    assert checkpoint.latest(run_dir).iteration == 2 and _status(run_dir) == "complete"
