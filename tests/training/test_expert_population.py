"""Expert iteration against a population (training/expert/population.py): past networks
and sampled heuristic personalities in the league, priorities from what the searching
network loses to, the league's state kept by checkpoints so a resumed run draws the same
seats, and crafted league states refused."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from perikles_env.agents.heuristic import HeuristicAgent
from perikles_env.agents.search import SearchParams
from perikles_env.agents.search.network import NetSettings, SearchNet
from perikles_env.analysis.params import SAMPLED_KNOBS, HeuristicParams
from perikles_env.engine.backend import native_available
from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.launch import expert as cli
from perikles_env.training.expert import checkpoint, loop, population
from perikles_env.training.expert.checkpoint import CheckpointError
from perikles_env.training.expert.config import load_config
from perikles_env.training.expert.population import (
    PERSONALITIES,
    SELF,
    Population,
    sampled_personality,
)
from perikles_env.training.expert.self_play_games import SelfPlay

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")

LEAGUE = "selfplay.league={self: 1, past: 1, personalities: 1, heuristic: 0.5}"
QUICK = ["eval.every=0", "selfplay.games=3", "selfplay.parallel=3", "search.sims=4",
         LEAGUE, "selfplay.priority.power=2", "selfplay.past.keep=2"]


def _selfplay(league: dict, power: float = 0.0, decay: float = 0.5, every: int = 1, keep: int = 3):
    return SimpleNamespace(
        league=league, past=SimpleNamespace(every=every, keep=keep),
        priority=SimpleNamespace(power=power, decay=decay),
    )


def test_without_priorities_the_league_is_the_configured_weights(tmp_path) -> None:
    pop = Population(_selfplay({SELF: 2.0, "past": 1.0, "heuristic": 1.0}), tmp_path)
    assert pop.league() == {SELF: 2.0, "heuristic": 1.0}  # no snapshot yet: no past seat
    pop.snapshots = [0, 4]
    a, b = (f"net:{population.snapshot_path(tmp_path, i)}" for i in (0, 4))
    assert pop.league() == {SELF: 2.0, "heuristic": 1.0, a: 0.5, b: 0.5}
    pop.scores = {"heuristic": [9.0, 10.0]}  # power 0: scores change nothing
    assert pop.league()["heuristic"] == 1.0


def test_priorities_move_weight_to_what_the_network_loses_to(tmp_path) -> None:
    pop = Population(_selfplay({SELF: 2.0, "heuristic": 1.0, "random": 1.0}, power=2.0),
                     tmp_path)
    # heuristic: 2 of 10 pairs won -> p = 3/12; random: 10 of 10 -> p = 11/12
    pop.record({"heuristic": (2.0, 10.0), "random": (10.0, 10.0)})
    assert pop.rate("heuristic") == pytest.approx(0.25)
    assert pop.rate("random") == pytest.approx(11 / 12)
    league = pop.league()
    hard, easy = 0.75**2, (1 / 12) ** 2
    assert league[SELF] == 2.0  # self keeps its share
    assert league["heuristic"] == pytest.approx(2.0 * hard / (hard + easy))
    assert league["random"] == pytest.approx(2.0 * easy / (hard + easy))
    # decayed by half, then a new iteration's results
    pop.record({"random": (0.0, 4.0)})
    assert pop.scores["random"] == pytest.approx([5.0, 9.0])
    assert pop.scores["heuristic"] == pytest.approx([1.0, 5.0])
    summary = pop.summary(pop.league())
    assert set(summary) == {SELF, "heuristic", "random"}
    assert sum(e["weight"] for e in summary.values()) == pytest.approx(1.0, abs=1e-3)
    assert summary["random"]["score"] == pytest.approx(6 / 11, abs=1e-4)


def test_snapshots_keep_the_newest_and_drop_their_scores(tmp_path) -> None:
    pop = Population(_selfplay({SELF: 1.0, "past": 1.0}, keep=2, every=2), tmp_path)
    net = SearchNet(NetSettings(num_players=4, policy_arch=(8,), value_arch=(8,)))
    assert pop.wants_snapshot(0) and not pop.wants_snapshot(3) and pop.wants_snapshot(4)
    for i in (0, 2):
        pop.add_snapshot(i, net)
    pop.record({f"net:{population.snapshot_path(tmp_path, 0)}": (1.0, 2.0)})
    assert set(pop.scores) == {"past:0"}
    pop.add_snapshot(4, net)
    assert pop.snapshots == [2, 4] and pop.scores == {}  # past:0 left the league
    pop.drop_files_before(4)  # the checkpoint of iteration 4 holds snapshots 2 and 4
    assert sorted(p.name for p in (tmp_path / "league").iterdir()) == [
        "net_0002.pkn", "net_0004.pkn"]


def test_sampled_personalities_cover_the_knobs_ranges() -> None:
    rng = np.random.default_rng(3)
    specs = [sampled_personality(rng) for _ in range(200)]
    assert len(set(specs)) == 200
    values = {name: [] for name in SAMPLED_KNOBS}
    for spec in specs:
        kind, _, options = spec.partition(":")
        assert kind == "heuristic"
        for part in options.split(","):
            name, value = part.split("=")
            values[name].append(float(value))
    for name, seen in values.items():
        assert len(seen) == 200 and 0.0 <= min(seen) < 0.2 and 1.8 < max(seen) <= 2.0, name
    again = np.random.default_rng(3)
    assert [sampled_personality(again) for _ in range(200)] == specs


def _tiny_net() -> SearchNet:
    torch.manual_seed(0)
    return SearchNet(NetSettings(num_players=4, policy_arch=(16,), value_arch=(8,))).eval()


def test_self_play_seats_sampled_personalities_and_scores_every_pair(monkeypatch) -> None:
    seated = []
    seat_agent = population.seat_agent

    def spy(spec, agents, rng):
        agent = seat_agent(spec, agents, rng)
        seated.append((spec, agent))
        return agent

    monkeypatch.setattr("perikles_env.training.expert.self_play_games.seat_agent", spy)
    play = SelfPlay(_tiny_net(), SearchParams(sims=2, gumbel_m=2, batch=8),
                    {SELF: 1.0, PERSONALITIES: 3.0})
    finished = []
    finish = play._finish

    def keep(t, stats):
        finished.append(t)
        return finish(t, stats)

    monkeypatch.setattr(play, "_finish", keep)
    _, stats = play.play(games=2, parallel=2, seed=5)
    personalities = [a for spec, a in seated if spec == PERSONALITIES]
    assert personalities and all(isinstance(a, HeuristicAgent) for a in personalities)
    params = {a.params for a in personalities}
    assert len(params) == len(personalities)  # a new personality in every seat
    assert all(p.noise == 0.0 and p != HeuristicParams() for p in params)
    assert [population.pairwise([1.0, 2.5, 2.5], 0, 1), population.pairwise([1.0, 2.5, 2.5], 1, 2),
            population.pairwise([1.0, 2.5, 2.5], 2, 0)] == [1.0, 0.5, 0.0]
    # every (searching seat, other seat) pair of every finished game, scored by rank
    expected: dict[str, list[float]] = {}
    for t in finished:
        ranks = t.game.ranks()
        for me, key in enumerate(t.seats):
            if key != SELF:
                continue
            for other, okey in enumerate(t.seats):
                if okey != SELF:
                    entry = expected.setdefault(okey, [0.0, 0.0])
                    entry[0] += population.pairwise(ranks, me, other)
                    entry[1] += 1
    assert stats.truncated == 0 and len(finished) == 2
    assert {k: list(v) for k, v in stats.versus.items()} == expected
    assert stats.versus[PERSONALITIES][1] == sum(
        t.seats.count(SELF) * t.seats.count(PERSONALITIES) for t in finished) > 0


def _config(tmp_path: Path, *overrides: str):
    return load_config("search_smoke", [f"out={tmp_path}", *QUICK, *overrides])


def test_a_population_run_records_its_league_and_resumes_to_the_same_run(
    tmp_path, monkeypatch
) -> None:
    whole = loop.run(_config(tmp_path / "a", "budget.iterations=3"), progress=False,
                     evaluator=TOURNAMENT)
    summary = json.loads((whole / "summary.json").read_text())
    first, last = summary["history"][0], summary["history"][-1]
    assert set(first["league"]) == {SELF, PERSONALITIES, "heuristic", "past:0"}
    assert set(last["league"]) == {SELF, PERSONALITIES, "heuristic", "past:1", "past:2"}
    assert all(h["league"][SELF]["weight"] == pytest.approx(1 / 3.5, abs=1e-4)
               for h in summary["history"])
    assert any(k.startswith("past:") for h in summary["history"] for k in h["seats"])
    assert sorted(p.name for p in (whole / "league").iterdir()) == [
        "net_0001.pkn", "net_0002.pkn", "net_0003.pkn"]
    report = (whole / "report.md").read_text()
    assert "## League (iteration 3)" in report and "`past:2`" in report

    calls = []
    train = loop.train

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return train(*args, **kwargs)

    monkeypatch.setattr(loop, "train", interrupted)
    with pytest.raises(KeyboardInterrupt):
        loop.run(_config(tmp_path / "b", "budget.iterations=3"), progress=False,
                 evaluator=TOURNAMENT)
    monkeypatch.setattr(loop, "train", train)
    cut = tmp_path / "b" / "search_smoke"
    assert checkpoint.latest(cut).iteration == 2
    assert cli.main(["--resume", str(cut), "--no-progress"]) == 0
    a, b = checkpoint.latest(whole), checkpoint.latest(cut)
    assert a.run["population"] == b.run["population"]
    strip = [{k: v for k, v in h.items() if k != "seconds"} for h in a.run["history"]]
    assert strip == [{k: v for k, v in h.items() if k != "seconds"} for h in b.run["history"]]
    for name, tensor in a.net.state_dict().items():
        assert torch.equal(tensor, b.net.state_dict()[name]), name


@pytest.fixture(scope="module")
def population_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("population")
    config = load_config("search_smoke", [f"out={out}", *QUICK, "budget.iterations=1"])
    return loop.run(config, progress=False, evaluator=TOURNAMENT)


def _rewritten_checkpoint(run_dir: Path, folder: Path, edit) -> Path:
    """The run's first checkpoint with ``edit`` applied to its league state, in ``folder``."""
    with zipfile.ZipFile(run_dir / "checkpoints" / "ckpt_0001.zip") as z:
        state, optimizer = json.loads(z.read(checkpoint.STATE)), z.read(checkpoint.OPTIMIZER)
    edit(state["run"])
    path = folder / "checkpoints" / "ckpt_0001.zip"
    path.parent.mkdir()
    (path.parent / "net_0001.pkn").write_bytes(
        (run_dir / "checkpoints" / "net_0001.pkn").read_bytes())
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(checkpoint.STATE, json.dumps(state))
        z.writestr(checkpoint.OPTIMIZER, optimizer)
    return path


@pytest.mark.parametrize(
    "craft,message",
    [
        ({"snapshots": [0, 7]}, "population snapshots"),
        ({"snapshots": "0"}, "population snapshots"),
        ({"scores": {"heuristic": [3.0, 2.0]}}, "population scores"),
        ({"scores": {"heuristic": [True, 2]}}, "population scores"),
        ({"extra": 1}, "population must have exactly"),
    ],
)
def test_crafted_league_states_are_refused(population_run, tmp_path, craft, message) -> None:
    path = _rewritten_checkpoint(population_run, tmp_path,
                                 lambda run: run["population"].update(craft))
    with pytest.raises(CheckpointError, match=message):
        checkpoint.read(path)


def test_a_checkpoint_from_before_populations_still_reads(population_run, tmp_path) -> None:
    path = _rewritten_checkpoint(population_run, tmp_path, lambda run: run.pop("population"))
    assert checkpoint.read(path).iteration == 1


def test_a_resume_whose_snapshot_is_gone_is_one_line(population_run, tmp_path, capsys) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(population_run, copy)
    (copy / "league" / "net_0001.pkn").unlink()
    code = cli.main(["--resume", str(copy), "--no-progress", "--override",
                     "budget.iterations=2"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "net_0001.pkn is missing" in err and "Traceback" not in err, err
