"""The trainer end to end on configs/smoke.yaml: trains, saves, reloads, evaluates as
``ppo:<path>``, resumes to exactly its target (also from a damaged latest checkpoint and
after SIGTERM); and the first rollout is reproducible from the seed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from perikles_env.launch.ppo import main
from perikles_env.training.ppo.config import load_config
from perikles_env.training.ppo.train import make_model, make_vec_env

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    assert main(["--config", str(SMOKE), "--override", f"out={out}"]) == 0
    return out / "smoke"


def test_smoke_run_writes_model_report_and_throughput(smoke_run):
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert summary["timesteps"] == 1024 and summary["status"] == "complete"
    assert json.loads((smoke_run / "status.json").read_text())["status"] == "complete"
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
    from perikles_env.agents import make_agent
    from perikles_env.agents.ppo_file import read_model
    from perikles_env.engine import GameConfig, new_game

    model = read_model(smoke_run / "model.zip")
    assert model.meta["num_timesteps"] == 1024
    assert model.meta["observation"]["features"] == []
    assert model.optimizer_state is None  # the final model is the policy alone
    agent = make_agent(f"ppo:{smoke_run / 'model.zip'}")
    game = new_game(GameConfig(num_players=3), seed=5)
    rng = np.random.default_rng(0)
    while not game.is_terminal:
        action = agent.act_state(game.clone(), game.current, rng)
        game.apply_action_checked(action)  # raises if the policy picked a masked action
    assert game.winners()


def test_resume_continues_from_the_last_checkpoint_to_exactly_the_target(smoke_run):
    """From 1024 steps to a target of 1536 (SB3 alone would add the
    current count and train to 2560); a damaged newest checkpoint falls back to the one
    before it (finding 4)."""
    assert main(["--resume", str(smoke_run), "--override", "train.total_timesteps=1536",
                 "--override", "eval.final_games=0"]) == 0
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert summary["timesteps"] == 1536
    steps = [r["timesteps"] for r in summary["rollouts"]]
    assert steps == sorted(steps) and steps[0] <= 512 and steps[-1] == 1536  # history kept
    newest = smoke_run / "checkpoints" / "ckpt_000001536.zip"
    newest.write_bytes(newest.read_bytes()[:300])  # cut off mid-write
    assert main(["--resume", str(smoke_run), "--override", "train.total_timesteps=2048",
                 "--override", "eval.final_games=0"]) == 0
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert summary["timesteps"] == 2048  # from the 1024 checkpoint, not the damaged one


def test_bad_config_exits_with_code_2_before_any_work(tmp_path, capsys):
    assert main(["--config", str(SMOKE), "--override", "ppo.n_step=4"]) == 2
    assert "unknown key" in capsys.readouterr().err
    assert main(["--resume", str(tmp_path)]) == 2
    missing = tmp_path / "missing.zip"
    assert main(["--config", str(SMOKE), "--override", f"out={tmp_path / 'runs'}",
                 "--override", f"opponents.weights={{random: 1, 'ppo:{missing}': 1}}"]) == 2
    assert "not found" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()  # no run folder, no pretraining


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


def test_a_run_without_tensorboard_makes_no_logger_folder(tmp_path, monkeypatch):
    """SB3 makes an empty ``SB3-<date>`` logger folder (``$SB3_LOGDIR`` or the temp dir)
    on every ``learn`` unless the model has its own logger."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
    config = load_config(SMOKE, ["train.n_envs=2", "opponents.weights={random: 1}"])
    env = make_vec_env(config, config.opponents.weights)
    model = make_model(config, env, None)
    model.learn(total_timesteps=config.ppo.n_steps * 2)
    env.close()
    assert model.num_timesteps == config.ppo.n_steps * 2
    assert not (tmp_path / "sb3").exists()


def _progress_steps(run_dir: Path) -> int:
    try:
        return json.loads((run_dir / "progress.json").read_text())["last"]["timesteps"]
    except (OSError, ValueError, KeyError):
        return 0


LEAN_NATIVE = [  # the lean learner's pipelined rollout: a background thread steps the envs
    "env.features=[battle,actions]", "ppo.action_head=scoring", "ppo.learner=lean",
    "env.vector=native",
]


@pytest.mark.parametrize(
    ("how", "vec_env", "code"),
    [("SIGTERM", "dummy", 143), ("SIGINT", "batched", 130), ("SIGINT", "lean-native", 130)],
    ids=["sigterm-to-trainer", "ctrl-c-to-process-group", "ctrl-c-to-the-pipelined-learner"],
)
def test_interrupt_saves_a_checkpoint_and_resume_reaches_the_target(tmp_path, how, vec_env, code):
    """The kill test: SIGTERM to the trainer, or Ctrl-C (SIGINT to
    the whole process group, env workers included; or to the lean learner while its
    background thread steps the native envs), stops it at the next step with a
    checkpoint of everything learnt (status ``interrupted``); ``--resume`` then trains to
    exactly the target and writes a complete report."""
    out = tmp_path / "runs"
    target = 3072
    args = [
        "--config", str(SMOKE), "--override", f"out={out}",
        "--override", f"train.total_timesteps={target}", "--override", "pretrain.decisions=0",
        "--override", "eval.every=0", "--override", "opponents.snapshot_every=0",
        "--override", "opponents.weights={random: 1}", "--override", "train.max_minutes=null",
        "--override", "train.checkpoint_every=100000", "--override", "train.tensorboard=false",
        "--override", "train.workers=2",
    ]
    for override in LEAN_NATIVE if vec_env == "lean-native" else [f"train.vec_env={vec_env}"]:
        args += ["--override", override]
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-m", "perikles_env.launch.ppo", *args],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # its own process group, as a terminal gives a job
    )
    run_dir = out / "smoke"
    deadline = time.time() + 120
    while _progress_steps(run_dir) < 768 and process.poll() is None and time.time() < deadline:
        time.sleep(0.2)
    assert process.poll() is None, process.communicate()[0][-2000:]
    if how == "SIGTERM":
        os.kill(process.pid, signal.SIGTERM)
    else:
        os.killpg(process.pid, signal.SIGINT)
    output = process.communicate(timeout=120)[0]
    assert process.returncode == code, output[-2000:]
    status = json.loads((run_dir / "status.json").read_text())
    assert status["status"] == "interrupted"
    summary = json.loads((run_dir / "summary.json").read_text())
    stopped = summary["timesteps"]
    assert summary["status"] == "interrupted" and summary["stop_signal"] == how
    assert 768 <= stopped < target and stopped % 256 == 0  # whole rollouts: what was learnt
    assert (run_dir / "checkpoints" / f"ckpt_{stopped:09d}.zip").is_file()
    assert "INTERRUPTED" in (run_dir / "report.md").read_text()
    assert not (run_dir / "model.zip").exists()

    assert main(["--resume", str(run_dir)]) == 0
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["timesteps"] == target and summary["status"] == "complete"
    assert summary["final_eval"] and (run_dir / "model.zip").is_file()
    assert json.loads((run_dir / "status.json").read_text())["status"] == "complete"
    assert "INTERRUPTED" not in (run_dir / "report.md").read_text()


def _train_from_a_search_network(tmp_path, *overrides):
    """A tiny run from a new search network at a learning rate of ~0: (the network, its
    file, the run folder, the trained model as a search network's weights)."""
    import torch

    from perikles_env.agents.search.net_file import save_net
    from perikles_env.agents.search.network import NetSettings, SearchNet
    from perikles_env.training.search_warmstart import net_from_ppo

    torch.manual_seed(0)
    net = SearchNet(NetSettings(policy_arch=(32, 32), value_arch=(32, 32), activation="tanh"))
    path = save_net(tmp_path / "net.pkn", net)
    every = [
        f"out={tmp_path}", "env.num_players=4", "env.features=[battle, actions]",
        "ppo.action_head=scoring", f"ppo.init_net={path}", *overrides,
        "ppo.learning_rate=1e-12", "ppo.lr_schedule=constant", "train.total_timesteps=256",
        "eval.every=0", "eval.final_games=0", "opponents.weights={random: 1.0}",
        "train.checkpoint_every=0", "train.tensorboard=false",
    ]
    assert main(["--config", str(SMOKE), *[a for o in every for a in ("--override", o)]]) == 0
    run = tmp_path / "smoke"
    return net, path, run, net_from_ppo(run / "model.zip").state_dict()


def test_a_run_started_from_a_search_network_trains_its_policy(tmp_path):
    """``ppo.init_net``: at a learning rate of ~0 the trained model is the network's policy."""
    import torch

    net, path, run, tuned = _train_from_a_search_network(tmp_path, "pretrain.decisions=0")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["pretrain"] == {"init_net": {"net": str(path)}}
    report = (run / "report.md").read_text()
    assert f"started from the policy of the search network `{path}`" in report
    for name, tensor in net.state_dict().items():
        if not name.startswith("value_head."):
            torch.testing.assert_close(tuned[name], tensor, atol=1e-6, rtol=0)


def test_a_run_from_a_search_network_can_fit_its_critic_first(tmp_path):
    """``ppo.init_net`` with ``pretrain.policy_weight: 0``: the teacher's games fit the
    critic alone; the policy stays the network's, weight for weight, and the report says
    what was fitted."""
    import torch

    net, path, run, tuned = _train_from_a_search_network(
        tmp_path, "pretrain.decisions=300", "pretrain.policy_weight=0",
        "pretrain.teacher=heuristic", "pretrain.epochs=3", "pretrain.opponents={random: 1.0}",
        "pretrain.workers=1")
    pre = json.loads((run / "summary.json").read_text())["pretrain"]
    assert pre["init_net"] == {"net": str(path)} and pre["policy_weight"] == 0
    assert pre["decisions"] >= 300 and len(pre["epochs"]) == 3
    assert pre["epochs"][-1]["value_loss"] < pre["epochs"][0]["value_loss"]
    report = (run / "report.md").read_text()
    assert f"started from the policy of the search network `{path}`" in report
    assert f"* its critic fitted on {pre['decisions']:,} `heuristic` decisions" in report
    for name, tensor in net.state_dict().items():
        if not name.startswith("value_"):  # the policy: trunk and action heads
            torch.testing.assert_close(tuned[name], tensor, atol=1e-6, rtol=0)
    value = [n for n in net.state_dict() if n.startswith("value_trunk.")]
    assert value and any(not torch.equal(tuned[n], net.state_dict()[n]) for n in value)


def test_a_baseline_plays_the_final_evaluation_on_the_same_games(tmp_path):
    """``eval.baseline``: the agent plays every final line in the model's place, on the
    same seeds; its row sits beside the model's in the summary, the report and the output."""
    assert main(["--config", str(SMOKE), "--override", f"out={tmp_path}",
                 "--override", "train.total_timesteps=256", "--override", "eval.every=0",
                 "--override", "eval.baseline=heuristic"]) == 0
    run = tmp_path / "smoke"
    (final,) = json.loads((run / "summary.json").read_text())["final_eval"]
    base = final["baseline"]
    assert base["agent"] == "heuristic" and base["games"] == final["games"] == 4
    assert base["illegal_actions"] == 0 and 0.0 <= base["win_rate"] <= 1.0
    played = json.loads(Path(base["report"]).with_name("results.json").read_text())
    assert played["config"]["lineups"] == [["heuristic", "random", "random", "random"]]
    # the same seeds as the model's line
    def deals(row):
        lines = Path(row["report"]).with_name("games.jsonl").read_text().splitlines()
        return sorted((json.loads(g)["seed"], json.loads(g)["rotation"]) for g in lines)

    assert len(deals(final)) == 4 and deals(base) == deals(final)
    report = (run / "report.md").read_text()
    assert "`heuristic` on the same games: win rate %" in report
