"""The trainer end to end on configs/smoke.yaml: trains, saves, reloads, evaluates as
``ppo:<path>``, resumes; and the first rollout is reproducible from the seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perikles_env.training.config import load_config
from perikles_env.training.train import main, make_model, make_vec_env

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    assert main(["--config", str(SMOKE), "--override", f"out={out}"]) == 0
    return out / "smoke"


def test_smoke_run_writes_model_report_and_throughput(smoke_run):
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert summary["timesteps"] >= 1024
    assert summary["throughput"]["learner_steps_per_s"] > 0
    # opponents decide too: env steps (all seats' decisions) exceed learner steps
    assert summary["env_decisions"] > summary["timesteps"]
    assert summary["throughput"]["env_steps_per_s"] > summary["throughput"]["learner_steps_per_s"]
    assert [e["timesteps"] for e in summary["evals"]] == [512, 1024]
    assert len(summary["snapshots"]) == 2  # max_snapshots
    (final,) = summary["final_eval"]
    assert final["opponent"] == "random" and final["players"] == 4 and final["games"] == 4
    assert final["illegal_actions"] == 0
    for name in ("model.zip", "report.md", "config.yaml", "learning_curve.png"):
        assert (smoke_run / name).is_file(), name
    assert (smoke_run / "eval" / "vs_random_4p" / "report.md").is_file()
    assert list((smoke_run / "tb").rglob("events.out.tfevents*"))
    report = (smoke_run / "report.md").read_text()
    assert "learner steps/s" in report and "ppo:" in report


def test_saved_model_reloads_and_plays_as_ppo_agent(smoke_run):
    from sb3_contrib import MaskablePPO

    from perikles_env.agents import make_agent
    from perikles_env.engine import Game, GameConfig

    model = MaskablePPO.load(smoke_run / "model.zip", device="cpu")
    assert model.num_timesteps >= 1024
    agent = make_agent(f"ppo:{smoke_run / 'model.zip'}")
    game = Game.new(GameConfig(num_players=3), seed=5)
    rng = np.random.default_rng(0)
    while not game.is_terminal:
        action = agent.act_state(game.clone(), game.current, rng)
        game.apply_action_checked(action)  # raises if the policy picked a masked action
    assert game.winners()


def test_resume_continues_from_the_last_checkpoint(smoke_run):
    assert main(["--resume", str(smoke_run), "--override", "train.total_timesteps=1536",
                 "--override", "eval.final_games=0"]) == 0
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert summary["timesteps"] >= 1536
    steps = [r["timesteps"] for r in summary["rollouts"]]
    assert steps == sorted(steps) and steps[0] <= 512 and steps[-1] >= 1536  # history kept


def test_bad_config_exits_with_code_2(tmp_path, capsys):
    assert main(["--config", str(SMOKE), "--override", "ppo.n_step=4"]) == 2
    assert "unknown key" in capsys.readouterr().err
    assert main(["--resume", str(tmp_path)]) == 2


def _first_rollout(seed):
    config = load_config(
        SMOKE,
        [f"seed={seed}", "train.n_envs=2", "opponents.weights={random: 1, heuristic: 1}"],
    )
    env = make_vec_env(config, config.opponents.weights)
    model = make_model(config, env, None)
    model.learn(total_timesteps=config.ppo.n_steps * 2)  # exactly one rollout, one update
    buf = model.rollout_buffer
    out = (buf.observations.copy(), buf.actions.copy(), buf.rewards.copy())
    env.close()
    return out


def test_same_seed_reproduces_the_first_rollout():
    a, b, c = _first_rollout(3), _first_rollout(3), _first_rollout(4)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[1], c[1])
