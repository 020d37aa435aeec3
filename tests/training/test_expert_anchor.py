"""Expert iteration's pull towards the first network (``learn.anchor_weight``): the KL it
reports is the KL of the two masked policies, the update with it ends nearer the anchor
than the same update without it, and a run without an anchor cannot take one later."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from perikles_env.agents.search.net_file import load_net
from perikles_env.engine.backend import native_available
from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.launch import expert as cli
from perikles_env.training.expert import checkpoint, dataset, loop
from perikles_env.training.expert.config import load_config
from perikles_env.training.expert.learner import losses

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")

QUICK = ["eval.every=0", "selfplay.games=2", "selfplay.parallel=2", "search.sims=4",
         "learn.epochs=4", "learn.learning_rate=3e-3"]


@pytest.fixture(scope="module")
def start(tmp_path_factory) -> Path:
    """A small trained network to start from (and be pulled towards)."""
    out = tmp_path_factory.mktemp("start")
    run_dir = loop.run(load_config("search_smoke", [f"out={out}", *QUICK, "budget.iterations=1"]),
                       progress=False, evaluator=TOURNAMENT)
    return run_dir / "net.pkn"


def _run(out: Path, start: Path, *overrides: str, progress: bool = False) -> Path:
    config = load_config("search_smoke", [f"out={out}", *QUICK, f"warm_start.net={start}",
                                          *overrides])
    return loop.run(config, progress=progress, evaluator=TOURNAMENT)


def _policies(net, data) -> tuple[np.ndarray, np.ndarray]:
    obs, masks, _, _ = data.batch(np.arange(len(data)))
    logits, _ = net.evaluate(obs, masks)
    logits = np.where(masks, logits.astype(np.float64), -np.inf)
    probs = np.exp(logits - logits.max(1, keepdims=True))
    return probs / probs.sum(1, keepdims=True), masks


def _kl(anchor: np.ndarray, probs: np.ndarray, masks: np.ndarray) -> float:
    a, p = np.where(masks, anchor, 1.0), np.where(masks, probs, 1.0)
    return float(np.mean((np.where(masks, anchor, 0.0) * np.log(a / p)).sum(1)))


def test_the_anchor_is_the_first_network_and_its_kl_is_reported(start, tmp_path, capsys) -> None:
    run_dir = _run(tmp_path, start, "learn.anchor_weight=1.0", progress=True)
    lines = [x for x in capsys.readouterr().out.splitlines() if "iteration" in x]
    anchor = load_net(run_dir / loop.ANCHOR)
    for name, tensor in load_net(start).state_dict().items():
        assert torch.equal(tensor, anchor.state_dict()[name]), name
    summary = json.loads((run_dir / "summary.json").read_text())
    first, second = (h["learn"] for h in summary["history"])
    # before the first update the network is its anchor
    assert first["held_out"]["anchor_kl"] == pytest.approx(0.0, abs=1e-4)
    assert len(first["anchor_kl"]) == 4 and first["anchor_kl"][-1] > 0  # one per epoch
    # on iteration 2's new positions: the network after iteration 1 against the anchor
    net = checkpoint.read(run_dir / "checkpoints" / "ckpt_0001.zip").net
    new = dataset.load(loop._data_path(run_dir, 2), net.state_size, net.num_players)
    held_out = second["held_out"]
    assert held_out == losses(net, new, 1.0, anchor=anchor)
    probs, masks = _policies(net, new)
    anchor_probs, _ = _policies(anchor, new)
    assert held_out["anchor_kl"] == pytest.approx(_kl(anchor_probs, probs, masks), abs=2e-3)
    assert held_out["anchor_kl"] > 0
    assert f"KL from the anchor {held_out['anchor_kl']:.3f}" in lines[-1], lines
    report = (run_dir / "report.md").read_text()
    assert "KL from the anchor" in report and f"{held_out['anchor_kl']:.3f}" in report


def test_the_anchor_holds_the_update_nearer_the_first_policy(start, tmp_path) -> None:
    """Iteration 1 plays the same games with or without the anchor (same network, same
    seeds), so the two updates learn the same positions: the anchored one ends nearer."""
    free = _run(tmp_path / "free", start, "budget.iterations=1")
    held = _run(tmp_path / "held", start, "budget.iterations=1", "learn.anchor_weight=5.0")
    anchor = load_net(start)
    data, other = (dataset.load(loop._data_path(r, 1), anchor.state_size, anchor.num_players)
                   for r in (free, held))
    assert np.array_equal(data.states, other.states)
    assert np.array_equal(data.policy, other.policy)
    anchor_probs, masks = _policies(anchor, data)
    kl = {name: _kl(anchor_probs, _policies(load_net(r / "net.pkn"), data)[0], masks)
          for name, r in (("free", free), ("held", held))}
    assert kl["held"] < 0.5 * kl["free"], kl
    # the anchor is not kept where no pull needs it
    assert not (free / loop.ANCHOR).exists()


def test_an_anchor_needs_a_warm_start(tmp_path, capsys) -> None:
    code = cli.main(["--config", "search_smoke", "--override", f"out={tmp_path}",
                     "--override", "learn.anchor_weight=1"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "learn" in err and "warm_start" in err and "Traceback" not in err
    assert not (tmp_path / "search_smoke").exists()


def test_a_run_without_an_anchor_cannot_take_one_on_resume(start, tmp_path, capsys) -> None:
    run_dir = _run(tmp_path, start, "budget.iterations=1")
    before = (run_dir / "status.json").read_text()
    code = cli.main(["--resume", str(run_dir), "--no-progress", "--override",
                     "budget.iterations=2", "--override", "learn.anchor_weight=1"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and loop.ANCHOR in err, err
    assert (run_dir / "status.json").read_text() == before
    assert checkpoint.latest(run_dir).iteration == 1
