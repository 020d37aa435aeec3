"""Expert iteration end to end (training/expert/loop.py, cli.py, checkpoint.py): the smoke
config trains and reports, an interrupted run resumes to the same network as an
uninterrupted one, bad configs are one line naming the key, crafted checkpoints are
refused."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from perikles_env.agents import make_agent
from perikles_env.agents.search.net_file import load_net
from perikles_env.engine.backend import native_available
from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.launch import expert as cli
from perikles_env.training.expert import checkpoint, loop
from perikles_env.training.expert.checkpoint import CheckpointError
from perikles_env.training.expert.config import load_config

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")

QUICK = ["eval.every=0", "selfplay.games=2", "selfplay.parallel=2", "search.sims=4"]


def _config(tmp_path: Path, *overrides: str):
    return load_config("search_smoke", [f"out={tmp_path}", *overrides])


def _status(run_dir: Path) -> str:
    return json.loads((run_dir / "status.json").read_text())["status"]


def test_smoke_config_trains_checkpoints_and_reports(tmp_path: Path) -> None:
    run_dir = loop.run(_config(tmp_path), command="perikles-search-train --config search_smoke",
                       progress=False, evaluator=TOURNAMENT)
    assert run_dir == tmp_path / "search_smoke" and _status(run_dir) == "complete"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["iterations"] == 2 and [h["iteration"] for h in summary["history"]] == [1, 2]
    assert all(h["positions"] > 0 and h["learn"]["policy"] for h in summary["history"])
    evals = summary["history"][-1]["eval"]  # eval.every = 2: the last iteration only
    assert set(evals) == {"search vs heuristic", "net vs heuristic"}
    assert all(e["games"] == 4 and 0 <= e["win_rate"] <= 1 for e in evals.values())
    report = (run_dir / "report.md").read_text()
    assert "search vs heuristic" in report and "![learning curve]" in report
    assert (run_dir / "learning_curve.png").stat().st_size > 1000
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == [
        "ckpt_0001.zip", "ckpt_0002.zip", "net_0001.pkn", "net_0002.pkn"]
    final = load_net(run_dir / "net.pkn")
    ckpt = checkpoint.latest(run_dir)
    assert ckpt.iteration == 2
    for name, tensor in final.state_dict().items():
        assert torch.equal(tensor, ckpt.net.state_dict()[name])
    # the held-out losses: the network after iteration 1 on iteration 2's new positions
    from perikles_env.training.expert import dataset
    from perikles_env.training.expert.learner import losses

    first = checkpoint.read(run_dir / "checkpoints" / "ckpt_0001.zip").net
    new = dataset.load(loop._data_path(run_dir, 2), first.state_size, first.num_players)
    held_out = summary["history"][1]["learn"]["held_out"]
    assert held_out == losses(first, new, _config(tmp_path).learn.value_weight)
    assert held_out["policy"] > 0 and held_out["value"] > 0
    # the entropies, from the network's logits over the legal moves and the stored targets
    obs, masks, targets, _ = new.batch(np.arange(len(new)))
    logits, _ = first.evaluate(obs, masks)
    priors = np.exp(np.where(masks, logits - logits.max(1, keepdims=True), -np.inf))
    priors /= priors.sum(1, keepdims=True)
    assert held_out["policy_entropy"] == pytest.approx(_mean_entropy(priors), abs=1e-3)
    assert held_out["target_entropy"] == pytest.approx(_mean_entropy(targets), abs=1e-3)
    assert held_out["policy_entropy"] > 0 and held_out["target_entropy"] > 0
    assert "new positions: policy / value" in report
    assert "policy entropy: network / targets" in report
    agent = make_agent(f"search:model={run_dir / 'net.pkn'},sims=4")  # playable at once
    assert agent.params.sims == 4
    # a second run never overwrites the first
    again = loop.run(_config(tmp_path, *QUICK, "budget.iterations=1"), progress=False,
                     evaluator=TOURNAMENT)
    assert again == tmp_path / "search_smoke-2"


def _mean_entropy(rows: np.ndarray) -> float:
    rows = rows.astype(np.float64)
    logs = np.log(np.where(rows > 0, rows, 1.0))
    return float(np.mean(-(rows * logs).sum(axis=1)))


def test_resume_continues_to_the_uninterrupted_network(tmp_path: Path, monkeypatch) -> None:
    whole = loop.run(_config(tmp_path / "a", *QUICK), progress=False, evaluator=TOURNAMENT)

    calls = []
    train = loop.train

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # during the second iteration
            raise KeyboardInterrupt
        return train(*args, **kwargs)

    monkeypatch.setattr(loop, "train", interrupted)
    with pytest.raises(KeyboardInterrupt):
        loop.run(_config(tmp_path / "b", *QUICK), progress=False, evaluator=TOURNAMENT)
    cut = tmp_path / "b" / "search_smoke"
    assert _status(cut) == "interrupted" and checkpoint.latest(cut).iteration == 1
    report = (cut / "report.md").read_text(encoding="utf-8")  # how far it got: iteration 1
    assert "(INTERRUPTED)" in report and "* iterations: 1 of 2 " in report
    rows = [line[:4] for line in report.splitlines() if line[:4] in ("| 1 ", "| 2 ")]
    assert "--resume" in report and rows == ["| 1 "]
    assert json.loads((cut / "summary.json").read_text())["iterations"] == 1
    monkeypatch.setattr(loop, "train", train)
    assert cli.main(["--resume", str(cut), "--no-progress"]) == 0
    assert _status(cut) == "complete"
    a, b = checkpoint.latest(whole), checkpoint.latest(cut)
    assert a.iteration == b.iteration == 2
    for name, tensor in a.net.state_dict().items():
        assert torch.equal(tensor, b.net.state_dict()[name]), name
    for index, state in a.optimizer["state"].items():
        for key, value in state.items():
            other = b.optimizer["state"][index][key]
            assert torch.equal(torch.as_tensor(value), torch.as_tensor(other))
    assert [h["positions"] for h in a.run["history"]] == [h["positions"] for h in b.run["history"]]
    # extending a finished run: the run's own config with an override
    assert cli.main(["--resume", str(cut), "--no-progress", "--override",
                     "budget.iterations=3"]) == 0
    assert checkpoint.latest(cut).iteration == 3
    assert checkpoint.latest(cut).run["window"] == [2, 3]  # replay.window = 2
    # data files: those the windows of the kept checkpoints (2: [1, 2], 3: [2, 3]) need
    assert sorted(p.name for p in (cut / "data").iterdir()) == [
        "iter_0001.npz", "iter_0002.npz", "iter_0003.npz"]
    assert cli.main(["--resume", str(cut), "--no-progress", "--override",
                     "budget.iterations=4"]) == 0
    assert sorted(p.name for p in (cut / "data").iterdir()) == [
        "iter_0002.npz", "iter_0003.npz", "iter_0004.npz"]


@pytest.mark.parametrize(
    "override,named",
    [
        ("search.sims=-1", "search.sims"),
        ("selfplay.games=0", "selfplay.games"),
        ("selfplay.league={bogus: 1}", "selfplay.league"),
        ("selfplay.league={pastt: 1}", "selfplay.league"),
        ("selfplay.priority.power=-1", "selfplay.priority.power"),
        ("selfplay.priority.decay=0", "selfplay.priority.decay"),
        ("selfplay.past.keep=0", "selfplay.past.keep"),
        ("learn.learning_rate=0", "learn.learning_rate"),
        ("replay.window=two", "replay.window"),
        ("eval.opponents=[heuristic:nerve=2]", "eval.opponents"),
        ("net.policy_arch=[4096]", "net.policy_arch"),
        ("warm_start.ppo=/no/such/model.zip", "warm_start.ppo"),
        ("bogus=1", "bogus"),
    ],
)
def test_bad_config_values_are_one_line_naming_the_key(tmp_path, capsys, override, named) -> None:
    code = cli.main(["--config", "search_smoke", "--override", f"out={tmp_path}",
                     "--override", override])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and named in err, err
    assert "Traceback" not in err and not (tmp_path / "search_smoke").exists()


def _checkpoint_bytes(state: dict, optimizer: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(checkpoint.STATE, json.dumps(state))
        z.writestr(checkpoint.OPTIMIZER, optimizer)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished")
    return loop.run(load_config("search_smoke", [f"out={out}", *QUICK, "budget.iterations=1"]),
                    progress=False, evaluator=TOURNAMENT)


@pytest.mark.parametrize(
    "craft,message",
    [
        ("escape", "net must be"),
        ("pickle", "pickled"),
        ("format", "unknown format"),
        ("window", "window"),
        ("extra_entry", "entries"),
        ("not_zip", "not a readable zip"),
    ],
)
def test_crafted_checkpoints_are_refused(finished_run, tmp_path, craft, message) -> None:
    with zipfile.ZipFile(finished_run / "checkpoints" / "ckpt_0001.zip") as z:
        state, optimizer = json.loads(z.read(checkpoint.STATE)), z.read(checkpoint.OPTIMIZER)
    path = tmp_path / "checkpoints" / "ckpt_0001.zip"
    path.parent.mkdir()
    (tmp_path / "checkpoints" / "net_0001.pkn").write_bytes(
        (finished_run / "checkpoints" / "net_0001.pkn").read_bytes())
    if craft == "escape":
        state["net"] = "../../evil.pkn"
    elif craft == "pickle":
        buffer = io.BytesIO()
        np.savez(buffer, **{"0/exp_avg": np.array([object()], dtype=object)})
        optimizer = buffer.getvalue()
    elif craft == "format":
        state["format"] = "pickle-1"
    elif craft == "window":
        state["run"]["window"] = [0, 5]
    if craft == "not_zip":
        path.write_bytes(b"PK\x03\x04 not really")
    else:
        path.write_bytes(_checkpoint_bytes(state, optimizer))
    if craft == "extra_entry":
        with zipfile.ZipFile(path, "a") as z:
            z.writestr("payload.pkl", b"\x80\x04.")
    with pytest.raises(CheckpointError, match=message):
        checkpoint.read(path)
    with pytest.raises(CheckpointError, match="no intact checkpoint"):
        checkpoint.latest(tmp_path)


def test_resume_of_a_folder_that_is_no_run_is_one_line(tmp_path, capsys) -> None:
    assert cli.main(["--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not an expert-iteration run" in err


@pytest.mark.parametrize("key", ["net", "ppo"])
def test_a_bad_warm_start_file_is_one_line_and_no_run_folder(tmp_path, capsys, key) -> None:
    crafted = tmp_path / "crafted.bin"
    crafted.write_bytes(b"\x80\x04\x95 a pickle, not a network")
    code = cli.main(["--config", "search_smoke", "--override", f"out={tmp_path / 'runs'}",
                     "--override", f"warm_start.{key}={crafted}"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "crafted.bin" in err, err
    assert not (tmp_path / "runs").exists()


def test_warm_start_from_a_network_file(finished_run, tmp_path) -> None:
    start = finished_run / "net.pkn"
    run_dir = loop.run(_config(tmp_path, *QUICK, "budget.iterations=1",
                               f"warm_start.net={start}", "net.policy_arch=[64]"), progress=False,
                       evaluator=TOURNAMENT)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["warm_start"] == f"net:{start}"
    # the file's sizes win over the net section's (which builds random networks only)
    assert load_net(run_dir / "net.pkn").settings == load_net(start).settings


def test_self_play_with_the_opponent_model_and_playouts(tmp_path) -> None:
    """The search settings of the `search` spec's play defaults also run self-play (an expert
    whose targets are its own choices against heuristic-modelled opponents)."""
    config = _config(tmp_path, *QUICK, "budget.iterations=1", "search.opponents=heuristic",
                     "search.rollout_mix=0.5")
    assert config.search.params().opponents == "heuristic"
    run_dir = loop.run(config, progress=False, evaluator=TOURNAMENT)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert _status(run_dir) == "complete" and summary["history"][0]["positions"] > 0


def test_a_killed_run_is_marked_interrupted_and_resumes(tmp_path: Path) -> None:
    """SIGTERM (``kill``, a scheduler) stops a run like Ctrl-C: exit code 143, the folder
    says ``interrupted`` (it used to keep saying ``running``), and ``--resume`` finishes it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[2]
    args = ["--config", "search_smoke", "--no-progress", "--override", f"out={tmp_path}",
            "--override", "budget.iterations=1000", "--override", "eval.every=0",
            "--override", "selfplay.workers=2"]
    process = subprocess.Popen([sys.executable, "-m", "perikles_env.launch.expert", *args],
                               cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    run_dir = tmp_path / "search_smoke"
    deadline = time.time() + 120
    while process.poll() is None and time.time() < deadline:
        if list((run_dir / checkpoint.FOLDER).glob("ckpt_*.zip")):
            break
        time.sleep(0.1)
    os.kill(process.pid, signal.SIGTERM)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 143, output[-2000:]
    assert _status(run_dir) == "interrupted" and "--resume" in output
    done = checkpoint.latest(run_dir).iteration
    assert done >= 1
    assert cli.main(["--resume", str(run_dir), "--no-progress", "--override",
                     f"budget.iterations={done + 1}"]) == 0
    assert _status(run_dir) == "complete" and checkpoint.latest(run_dir).iteration == done + 1


def test_self_play_in_worker_processes(tmp_path) -> None:
    """selfplay.workers=2: the iteration's games are split over two processes and every
    one of them is played, recorded and learnt from."""
    config = _config(tmp_path, *QUICK, "budget.iterations=1", "selfplay.games=3",
                     "selfplay.workers=2")
    run_dir = loop.run(config, progress=False, evaluator=TOURNAMENT)
    record = json.loads((run_dir / "summary.json").read_text())["history"][0]
    assert _status(run_dir) == "complete"
    assert record["games"] == 3 and sum(record["seats"].values()) == 12
    assert record["positions"] == record["learn"]["rows"] > 0


@pytest.mark.parametrize("name", ["search_smoke", "search_long", "search_population"])
def test_shipped_configs_are_valid(name) -> None:
    config = load_config(name)
    assert config.name == name and config.torch_threads == 1
    assert config.search.params().sims == config.search.sims


def test_evaluation_searches_with_the_run_s_settings(tmp_path) -> None:
    config = _config(tmp_path, "search.c_puct=2.5", "eval.sims=16", "eval.raw=false")
    path = _tiny_file(tmp_path)
    specs = loop.eval_specs(config, path)
    assert set(specs) == {"search"}
    agent = make_agent(specs["search"])
    assert agent.params.c_puct == 2.5 and agent.params.sims == 16
    assert agent.params.gumbel_m == config.search.gumbel_m  # search_smoke's 8
    # the run's own search, not the spec's play defaults (an opponent model, playouts)
    assert agent.params.opponents == "tree" and agent.params.rollout_mix == 0.0
    modelled = _config(tmp_path, "search.opponents=heuristic", "search.rollout_mix=0.5")
    agent = make_agent(loop.eval_specs(modelled, path)["search"])
    assert agent.params.opponents == "heuristic" and agent.params.rollout_mix == 0.5


def _tiny_file(tmp_path: Path) -> Path:
    from perikles_env.agents.search.net_file import save_net
    from perikles_env.agents.search.network import NetSettings, SearchNet

    net = SearchNet(NetSettings(4, ("battle", "actions"), (8,), (8,)))
    return save_net(tmp_path / "tiny.pkn", net)
