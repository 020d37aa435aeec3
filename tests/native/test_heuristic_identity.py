"""The C++ heuristic (``native/players/heuristic.hpp``) against the Python reference
(``agents/heuristic``): whole games played in lockstep on the Python engine and the C++ core,
every seat a heuristic personality (noise included), and at every decision with a choice
the same scores (exact doubles) and, with one seed of the tie-breaking contract, the same
action. ``make test`` compares at least 2,000 decisions per player count, covering every
decision phase; ``-m slow`` 100,000 per player count."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.agents.tiebreak import draw_seed, tie_break
from perikles_env.analysis.params import HeuristicParams
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine.phases import Phase
from tests.native.helpers import require_native

native = require_native()

PERSONALITIES = (
    HeuristicParams(),
    HeuristicParams(aggression=1.5, caution=0.2),
    HeuristicParams(politics=1.8, aggression=0.2),
    HeuristicParams(spite=1.5),
    HeuristicParams(caution=1.6, spite=0.0),
    HeuristicParams(noise=0.4),
)
DECIDED = set(Phase) - {Phase.GAME_OVER}  # every phase has decisions with a choice


def params_tuple(p: HeuristicParams) -> tuple[float, ...]:
    return tuple(getattr(p, k) for k in HeuristicParams.names())


def random_params(rng: np.random.Generator) -> HeuristicParams:
    values = rng.uniform(0.0, 2.0, size=4).round(3)
    return HeuristicParams(*values.tolist(), noise=float(rng.choice([0.0, 0.2])))


def compare_games(n: int, target: int, seed0: int) -> Counter:
    """Play games until ``target`` decisions with a choice were compared; their phases."""
    phases: Counter = Counter()
    seed = seed0
    while sum(phases.values()) < target:
        rng = np.random.default_rng(seed)
        seats = [
            PERSONALITIES[int(rng.integers(len(PERSONALITIES)))]
            if rng.random() < 0.8
            else random_params(rng)
            for _ in range(n)
        ]
        config = GameConfig(num_players=n, record_events=False)
        py = new_game(config, seed=seed, backend="python")
        cpp = new_game(config, seed=seed, backend="native")
        while not py.is_terminal:
            legal = py.legal_actions()
            p = py.current
            if len(legal) == 1:
                action = legal[0]
            else:
                params = seats[p]
                expected = score_actions(params, PlayerView(py, p), legal)
                got = native.extension.heuristic_scores(cpp.core, p, params_tuple(params))
                assert got == expected, (seed, py.decisions, py.phase.name)
                tie = draw_seed(rng)
                action = legal[tie_break(expected, tie, params.noise)]
                chosen = native.extension.heuristic_decide(cpp.core, p, params_tuple(params), tie)
                assert chosen == action, (seed, py.decisions, py.phase.name)
                phases[py.phase] += 1
            py.apply_action(action)
            cpp.apply_action(action)
        seed += 1
    return phases


@pytest.mark.parametrize("n", [3, 4, 5])
def test_cpp_heuristic_equals_python(n: int) -> None:
    phases = compare_games(n, 2_000, seed0=1000 * n)  # 100,000 per count in the slow run
    assert sum(phases.values()) >= 2_000
    missing = {p.name for p in DECIDED - set(phases)}
    assert not missing or missing <= {"ALKIBIADES_CUBE", "ALKIBIADES_DEST", "SPARTA_CHOICE"}, (
        missing
    )


def test_every_decision_phase_is_compared() -> None:
    """Over the three player counts of a run, each of the 15 decision phases occurs."""
    seen: set[Phase] = set()
    for n in (3, 4, 5):
        seen |= set(compare_games(n, 3_000, seed0=7000 * n))
    assert seen == DECIDED, {p.name for p in DECIDED - seen}


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5])
def test_cpp_heuristic_equals_python_long(n: int) -> None:
    assert sum(compare_games(n, 100_000, seed0=50_000 * n).values()) >= 100_000
