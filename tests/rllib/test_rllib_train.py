"""End to end: train a tiny budget with RLlib, checkpoint, reload the policy as an agent and
play evaluated games through the project's evaluator; resume; never overwrite a run.
Slow (Ray start-up and two PPO iterations, ~1 min on 2 cores): ``make test-rllib`` runs it."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from perikles_env.agents import make_agent
from perikles_env.agents.rllib_policy import META_FILE, WEIGHTS_FILE
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation import evaluate
from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.launch.rllib import main
from perikles_env.training.rllib.config import load_config
from perikles_env.training.rllib.train import train

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_rllib_example_in_the_docs_runs_as_written(tmp_path):
    """First in this file: it starts its own Ray instance before the fixtures start one."""
    text = (ROOT / "docs" / "ecosystem.md").read_text()
    match = re.search(r"<!-- example: rllib -->\s*```python\n(.*?)```", text, re.S)
    assert match, "no rllib example in docs/ecosystem.md"
    done = subprocess.run(
        [sys.executable, "-c", match.group(1)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"win rate [01](\.\d+)? illegal actions 0", last), last
    assert (tmp_path / "runs" / "rllib" / "rllib_tiny" / "checkpoints" / "iter_000002").is_dir()


@pytest.fixture(scope="module")
def ray_session():
    import ray

    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, ray_session):
    out = tmp_path_factory.mktemp("runs")
    cfg = load_config("configs/rllib_tiny.yaml", {"out": str(out)})
    return cfg, train(cfg, log=lambda _: None, evaluator=TOURNAMENT)


def test_tiny_run_trains_checkpoints_and_evaluates(tiny_run):
    cfg, result = tiny_run
    assert result.iterations == 2
    assert result.env_steps >= 2 * cfg.train_batch_size
    rows = [json.loads(x) for x in (result.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2]
    assert rows[-1]["env_steps"] == result.env_steps
    names = sorted(p.name for p in (result.run_dir / "checkpoints").iterdir())
    assert names == ["iter_000001", "iter_000002"]  # no temporary folder left behind
    assert result.checkpoint.name == "iter_000002"
    for name in (META_FILE, WEIGHTS_FILE, "rllib_checkpoint.json"):
        assert (result.checkpoint / name).is_file()
    # the final evaluation: one game per seat rotation against random players, all legal
    report = json.loads((result.run_dir / "eval" / "results.json").read_text())
    assert report and 0.0 <= result.eval_win_rate <= 1.0
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary["iterations"] == 2 and summary["eval_win_rate"] == result.eval_win_rate


def test_exported_policy_equals_rllibs_own_checkpoint(tiny_run):
    from ray.rllib.core.rl_module.rl_module import RLModule

    _, result = tiny_run
    ours = make_agent(f"rllib:{result.checkpoint}").module.state_dict()
    theirs = RLModule.from_checkpoint(
        result.checkpoint / "learner_group" / "learner" / "rl_module" / "shared"
    ).state_dict()
    assert set(ours) == set(theirs)
    for key in ours:
        assert torch.equal(ours[key], theirs[key]), key


def test_reloaded_policy_plays_an_evaluated_game_against_random(tiny_run):
    _, result = tiny_run
    spec = f"rllib:{result.checkpoint}"
    ev = evaluate([spec, "random"], players=4, games=1, seed=3)
    assert ev.illegal_actions == 0
    assert len(ev.records) == 4  # one game seed, in all 4 seat rotations
    assert 0.0 <= ev.win_rate(spec) <= 1.0
    again = evaluate([spec, "random"], players=4, games=1, seed=3)
    assert [r.scores for r in again.records] == [r.scores for r in ev.records]


def test_existing_run_is_not_overwritten_and_resume_continues(tiny_run):
    cfg, result = tiny_run
    with pytest.raises(InvalidConfigError, match="exists"):
        train(cfg, log=lambda _: None, evaluator=TOURNAMENT)
    before = (result.checkpoint / WEIGHTS_FILE).read_bytes()
    args = ["--config", "configs/rllib_tiny.yaml", "--resume"]
    assert main([*args, "--name", "no_such_run"]) == 2  # nothing to resume
    resumed = train(
        load_config("configs/rllib_tiny.yaml", {"out": cfg.out, "iterations": 3}),
        resume=True,
        log=lambda _: None,
        evaluator=TOURNAMENT,
    )
    assert resumed.iterations == 3 and resumed.checkpoint.name == "iter_000003"
    assert resumed.env_steps > result.env_steps  # RLlib's counters were restored too
    assert (result.checkpoint / WEIGHTS_FILE).read_bytes() == before
    assert "iterations: 2" in (result.run_dir / "config.yaml").read_text()  # the first config
    (resumed_config,) = result.run_dir.glob("config.resumed-*.yaml")
    assert "iterations: 3" in resumed_config.read_text()
    rows = (result.run_dir / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(r)["iteration"] for r in rows] == [1, 2, 3]
    assert np.isfinite(json.loads(rows[-1])["policy_loss"])
