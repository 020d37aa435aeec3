"""The war side of the C++ league is the Python reference, float for float: the heuristic's
scores in every phase-5 and phase-6 decision (Sparta's choice, dead pool, commit step,
permission, battle specials, casualties) compared with ``==``, and the battle and commit
feature blocks compared bit for bit, over seeded games of 3, 4 and 5 players played by a mix
of heuristic and random moves, plus hand-built states for the rare branches."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.analysis.action_features import _POLITICAL_PHASES, action_features
from perikles_env.analysis.battle_features import battle_features
from perikles_env.analysis.params import HeuristicParams
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.phases import Phase

from .helpers import require_native, unvalidated_twin

native = require_native()
ext = native.extension

WAR_PHASES = (
    Phase.SPARTA_CHOICE,
    Phase.DEAD_POOL,
    Phase.COMMIT,
    Phase.PERMISSION,
    Phase.BATTLE_SPECIAL,
    Phase.CASUALTY,
)
PERSONALITIES = (
    HeuristicParams(),
    HeuristicParams(aggression=1.5, caution=0.2),
    HeuristicParams(politics=1.8, aggression=0.2),
    HeuristicParams(spite=1.5),
    HeuristicParams(
        **{k: round(random.Random(7).uniform(0.0, 2.0), 3) for k in HeuristicParams.names()}
    ),
)


def _tuple(params: HeuristicParams) -> tuple[float, ...]:
    return tuple(getattr(params, k) for k in HeuristicParams.names())


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def check_scores(py: Any, cpp: Any, personalities: tuple[HeuristicParams, ...]) -> list[float]:
    """Python and C++ scores of the decision now, for each personality; the first's scores."""
    p, legal = py.current, py.legal_actions()
    first: list[float] = []
    for params in personalities:
        want = score_actions(params, PlayerView(py, p), legal)
        got = ext.heuristic_scores(cpp.core, p, _tuple(params))
        assert got == want, f"{py.phase.name} {params}: {legal} C++ {got} != Python {want}"
        first = first or want
    return first


def check_battle_features(py: Any, cpp: Any) -> None:
    out = np.empty(ext.BATTLE_FEATURES_SIZE, dtype=np.float32)
    for seat in range(py.n):
        want = battle_features(py, seat)
        ext.battle_features(cpp.core, seat, out)
        assert _same_bits(out, want), f"{py.phase.name} seat {seat}: {out} != {want}"


def check_action_features(py: Any, cpp: Any) -> None:
    out = np.empty(ext.ACTION_FEATURES_SIZE, dtype=np.float32)
    for seat in range(py.n):
        want = action_features(py, seat)
        ext.action_features(cpp.core, seat, out)
        assert _same_bits(out, want), f"{py.phase.name} seat {seat}: rows differ at " + str(
            np.flatnonzero(out != want)[:9]
        )


def play(n: int, seed: int, heuristic_share: float) -> Iterator[tuple[Any, Any]]:
    """Twin games (Python, C++) at every phase-5 or phase-6 decision; political decisions
    are random, war decisions the default heuristic's with ``heuristic_share``."""
    config = GameConfig(num_players=n)
    py = new_game(config, seed=seed, backend="python")
    cpp = new_game(config, seed=seed, backend="native")
    rng = random.Random(seed * 31 + n)
    while not py.is_terminal:
        legal = py.legal_actions()
        action = legal[rng.randrange(len(legal))]
        if py.phase in WAR_PHASES:
            scores = yield py, cpp
            if scores and rng.random() < heuristic_share:
                action = legal[max(range(len(legal)), key=lambda i: scores[i])]
        elif py.phase not in _POLITICAL_PHASES and rng.random() < 0.3:
            yield py, cpp  # features only
        py.apply_action(action)
        cpp.apply_action(action)


def run_games(
    players: tuple[int, ...], seeds: range, personalities: tuple[HeuristicParams, ...],
    features_every: int,
) -> Counter[str]:
    counts: Counter[str] = Counter()
    step = 0
    for n in players:
        for seed in seeds:
            games = play(n, seed, heuristic_share=(0.3, 0.6, 0.9)[seed % 3])
            scores = None
            try:
                while True:
                    py, cpp = games.send(scores)
                    scores = None
                    step += 1
                    if py.phase in WAR_PHASES:
                        scores = check_scores(py, cpp, personalities)
                        counts[py.phase.name] += 1
                        legal = py.legal_actions()
                        if any(A.SPEND_CUBE <= a < A.SLAVE_REVOLT for a in legal):
                            counts["spend_cube"] += 1
                        if any(A.SLAVE_REVOLT <= a < A.END_STEP for a in legal):
                            counts["slave_revolt"] += 1
                        if any(a >= A.BATTLE_DOUBLE and a < A.CASUALTY for a in legal):
                            counts["battle_play"] += 1
                    if step % features_every == 0:
                        check_battle_features(py, cpp)
                        check_action_features(py, cpp)
                        counts["features"] += 1
                        counts[f"features_{py.phase.name}"] += 1
            except StopIteration:
                pass
    return counts


def test_war_scores_and_features_identical() -> None:
    counts = run_games((3, 4, 5), range(6), PERSONALITIES, features_every=3)
    print(dict(counts))
    assert counts["COMMIT"] >= 1500
    for phase in ("SPARTA_CHOICE", "DEAD_POOL", "BATTLE_SPECIAL", "CASUALTY", "PERMISSION"):
        assert counts[phase] >= 5, (phase, dict(counts))
    assert counts["spend_cube"] >= 20 and counts["battle_play"] >= 5
    assert counts["features_COMMIT"] >= 300 and counts["features_BATTLE_SPECIAL"] >= 2
