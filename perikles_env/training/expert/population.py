"""Expert iteration against a population (docs/training.md, "Training against a population").

``selfplay.league`` names who fills the seats beside the searching network, by weight:
agent specs (the heuristic's named personalities, IS-MCTS at several budgets, ...),
``self`` (the current network with search) and two keys that make it a population:

* ``past``: the run's earlier networks without search (``net:<file>``): the first network
  and one snapshot every ``selfplay.past.every`` iterations, the newest
  ``selfplay.past.keep`` kept in ``<run>/league/``; the key's weight is shared among them.
* ``personalities``: the heuristic with its knobs drawn anew for every seat, uniformly over
  their ranges (noise 0): a different player in every game, not only the named four.

Why priorities: a league spends most of its games where they teach the least (opponents
already beaten). Prioritised fictitious self-play (Vinyals et al., Nature 2019) weights
each opponent by ``(1 - p) ** power``, ``p`` the searching network's pairwise score
against it (finishing ahead 1, level 1/2, behind 0; decayed by ``selfplay.priority.decay``
every iteration, with one win and one loss as the prior). ``power`` 0 keeps the configured
weights. Priorities move weight among the opponents only: ``self`` keeps its share.

The state (snapshots and scores) is part of every checkpoint, so a resumed run draws the
same seats as an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from perikles_env.agents import Agent, make_agent
from perikles_env.analysis.params import PERSONALITIES, sampled_personality

SELF = "self"  # the current network with search
PAST = "past"  # the run's earlier networks
POPULATION_KEYS = (SELF, PAST, PERSONALITIES)  # PERSONALITIES: the heuristic with sampled knobs
FOLDER = "league"


def seat_agent(spec: str, agents: Mapping[str, Agent], rng: np.random.Generator) -> Agent:
    """The agent of a league seat: a fresh sampled personality, else the built agent."""
    if spec == PERSONALITIES:
        return make_agent(sampled_personality(rng))
    return agents[spec]


def pairwise(ranks: list[float], seat: int, other: int) -> float:
    """1 if ``seat`` finished ahead of ``other``, 1/2 if level, else 0."""
    return 1.0 if ranks[seat] < ranks[other] else 0.5 if ranks[seat] == ranks[other] else 0.0


def snapshot_path(run_dir: Path, iteration: int) -> Path:
    return run_dir / FOLDER / f"net_{iteration:04d}.pkn"


class Population:
    """The league of one run: its configured weights, snapshots and scores (module
    docstring); ``league()`` is what an iteration's self-play draws seats from."""

    def __init__(self, selfplay: Any, run_dir: Path) -> None:
        self.base = dict(selfplay.league)
        self.every, self.keep = selfplay.past.every, selfplay.past.keep
        self.power, self.decay = selfplay.priority.power, selfplay.priority.decay
        self.run_dir = run_dir
        self.snapshots: list[int] = []  # iterations whose network is in the league
        self.scores: dict[str, list[float]] = {}  # label -> [decayed score, decayed games]

    # ---- the league of the next iteration ----
    def labels(self) -> dict[str, str]:
        """Agent spec (or population key) -> label, for every entry of the league."""
        out = {key: key for key in self.base if key != PAST}
        if PAST in self.base:
            for i in self.snapshots:
                out[f"net:{snapshot_path(self.run_dir, i)}"] = f"past:{i}"
        return out

    def by_label(self, counts: Mapping[str, Any]) -> dict[str, Any]:
        """``counts`` keyed by spec, keyed by label instead (snapshots as ``past:<it>``)."""
        labels = self.labels()
        return {labels.get(spec, spec): v for spec, v in counts.items()}

    def rate(self, label: str) -> float:
        """The searching network's pairwise score against ``label`` (prior 1/2)."""
        score, games = self.scores.get(label, (0.0, 0.0))
        return (score + 1.0) / (games + 2.0)

    def league(self) -> dict[str, float]:
        """Seat weights by spec: ``self`` as configured; the opponents' configured weights
        (``past``'s shared among its snapshots) moved by their priorities."""
        labels = self.labels()
        base = {}
        for spec, label in labels.items():
            if label.startswith(PAST + ":"):
                base[spec] = self.base[PAST] / len(self.snapshots)
            else:
                base[spec] = self.base[spec]
        opponents = [s for s in base if s != SELF]
        moved = {s: base[s] * (1.0 - self.rate(labels[s])) ** self.power for s in opponents}
        total, kept = sum(moved.values()), sum(base[s] for s in opponents)
        out = {SELF: base[SELF]} if SELF in base else {}
        for spec in opponents:
            out[spec] = kept * moved[spec] / total if total > 0 else base[spec]
        return out

    def summary(self, league: Mapping[str, float]) -> dict[str, dict[str, float]]:
        """Label -> the weight it had and the searcher's score against it, for history."""
        total = sum(league.values())
        labels = self.labels()
        return {
            labels[spec]: {"weight": round(w / total, 4),
                           "score": round(self.rate(labels[spec]), 4)}
            for spec, w in league.items()
        }

    # ---- after an iteration ----
    def record(self, versus: Mapping[str, tuple[float, float]]) -> None:
        """Decay every score, then add this iteration's pairwise results by spec."""
        labels = self.labels()
        for entry in self.scores.values():
            entry[0] *= self.decay
            entry[1] *= self.decay
        for spec, (score, games) in versus.items():
            entry = self.scores.setdefault(labels[spec], [0.0, 0.0])
            entry[0] += score
            entry[1] += games

    def wants_snapshot(self, iteration: int) -> bool:
        return PAST in self.base and iteration % self.every == 0

    def add_snapshot(self, iteration: int, net: Any) -> None:
        """Save ``net`` as the snapshot of ``iteration``; the oldest beyond ``keep`` leaves
        the league (its file stays until no kept checkpoint can need it)."""
        from perikles_env.agents.search.net_file import save_net

        save_net(snapshot_path(self.run_dir, iteration), net)
        self.snapshots = sorted({*self.snapshots, iteration})[-self.keep:]
        live = {f"past:{i}" for i in self.snapshots}
        self.scores = {
            k: v for k, v in self.scores.items() if not k.startswith("past:") or k in live
        }

    def drop_files_before(self, iteration: int) -> None:
        """Delete snapshot files older than every snapshot the checkpoint of ``iteration``
        (the oldest kept) holds."""
        if PAST not in self.base:
            return
        needed = sorted({0, *range(self.every, iteration + 1, self.every)})[-self.keep:]
        for path in (self.run_dir / FOLDER).glob("net_*.pkn"):
            if int(path.stem.split("_")[1]) < needed[0]:
                path.unlink(missing_ok=True)

    # ---- checkpoints ----
    def state(self) -> dict[str, Any]:
        return {"snapshots": list(self.snapshots),
                "scores": {k: [round(v[0], 6), round(v[1], 6)] for k, v in self.scores.items()}}

    def restore(self, state: Mapping[str, Any] | None) -> None:
        """The state of a checkpoint (None: one written before populations existed)."""
        if state is None:
            return
        self.snapshots = list(state["snapshots"])
        self.scores = {k: [float(v[0]), float(v[1])] for k, v in state["scores"].items()}


def missing_snapshot(run_dir: Path, state: Mapping[str, Any] | None) -> Path | None:
    """The first snapshot file a checkpoint's league state names that is gone."""
    for i in (state or {}).get("snapshots", []):
        if not snapshot_path(run_dir, i).is_file():
            return snapshot_path(run_dir, i)
    return None

