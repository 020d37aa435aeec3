"""The war side of the C++ league is the Python reference, float for float: the heuristic's
scores in every phase-5 and phase-6 decision (Sparta's choice, dead pool, commit step,
permission, battle specials, casualties) compared with ``==``, and the battle and commit
feature blocks compared bit for bit, over seeded games of 3, 4 and 5 players played by a mix
of heuristic and random moves, plus hand-built states for the rare branches."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.agents.tiebreak import tie_break
from perikles_env.analysis.action_features import _POLITICAL_PHASES, action_features
from perikles_env.analysis.battle_features import battle_features
from perikles_env.analysis.params import HeuristicParams
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.determinize import determinize
from perikles_env.engine.phases import Phase
from perikles_env.engine.queries import NEEDS_PERMISSION

from .helpers import require_native, unvalidated_twin

native = require_native()
ext = native.extension

# Phases 5 and 6 (B.7, C): Sparta's choice to casualties, in the order Phase numbers them.
WAR_PHASES = tuple(p for p in Phase if Phase.SPARTA_CHOICE <= p < Phase.GAME_OVER)
PERSONALITIES = (
    HeuristicParams(),
    HeuristicParams(aggression=1.5, caution=0.2),
    HeuristicParams(politics=1.8, aggression=0.2),
    HeuristicParams(spite=1.5),
    HeuristicParams(
        **{k: round(random.Random(7).uniform(0.0, 2.0), 3) for k in HeuristicParams.names()}
    ),
)


# (Python game, its C++ twin) -> the default heuristic's scores, or None
Visit = Callable[[Any, Any], "list[float] | None"]


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
        if len(legal) > 1:  # the same action under the tie-breaking contract
            seed = (py.turn * 1_000_003 + sum(legal) * 7_919 + p) * 0x9E3779B97F4A7C15 % 2**64
            chosen = ext.heuristic_decide(cpp.core, p, _tuple(params), seed)
            assert chosen == legal[tie_break(want, seed, params.noise)]
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


def play(n: int, seed: int, heuristic_share: float, visit: Visit) -> None:
    """Twin games (Python, C++) shown to ``visit`` at every decision and once over. Political
    decisions are random; where ``visit`` returns the default heuristic's scores, its best
    action is played with probability ``heuristic_share``."""
    config = GameConfig(num_players=n)
    py = new_game(config, seed=seed, backend="python")
    cpp = new_game(config, seed=seed, backend="native")
    rng = random.Random(seed * 31 + n)
    while not py.is_terminal:
        legal = py.legal_actions()
        action = legal[rng.randrange(len(legal))]
        scores = visit(py, cpp)
        if scores and rng.random() < heuristic_share:
            action = legal[max(range(len(legal)), key=lambda i: scores[i])]
        py.apply_action(action)
        cpp.apply_action(action)
    visit(py, cpp)


def note(counts: Counter[str], py: Any, scores: list[float]) -> None:
    """Count the decision and the rare branches it reaches."""
    phase, legal = py.phase, py.legal_actions()
    counts[phase.name] += 1
    if phase == Phase.COMMIT:
        p = py.current
        if any(A.SPEND_CUBE <= a < A.SLAVE_REVOLT for a in legal):
            counts["spend_cube"] += 1
        if A.SLAVE_REVOLT in legal:
            counts["slave_revolt_pool"] += 1
        if any(A.SLAVE_REVOLT < a < A.END_STEP for a in legal):
            counts["slave_revolt_slot"] += 1
        statuses = {
            py.class_placement_status(p, k, slot, side)
            for k, slot, side in (_place_args(a) for a in legal if a < A.SPEND_CUBE)
        }
        if NEEDS_PERMISSION in statuses:
            counts["needs_permission"] += 1
        if not py.step_closed and (py.step_normal if py.step_spend < 0 else py.step_extra) == 0:
            counts["room_2"] += 1
    elif phase == Phase.BATTLE_SPECIAL:
        if any(a >= A.BATTLE_TOKEN for a in legal):
            counts["battle_token"] += 1
        if A.BATTLE_DOUBLE in legal:
            counts["battle_double"] += 1
        if any(py.b_tokens) or py.b_double:
            counts["battle_after_play"] += 1
    elif phase == Phase.PERMISSION:
        counts["grant" if scores[legal.index(A.GRANT)] > 0 else "deny"] += 1


def _place_args(a: int) -> tuple[int, int, int]:
    rest, side = divmod(a - A.PLACE, 2)
    klass, slot = divmod(rest, D.LOCATION_SLOTS)
    return klass, slot, side


def run_games(
    players: tuple[int, ...],
    seeds: range,
    personalities: tuple[HeuristicParams, ...],
    features_every: int,
) -> Counter[str]:
    """Every war decision's scores and every ``features_every``-th decision's feature blocks
    (battle features in all phases, action features outside the political ones)."""
    counts: Counter[str] = Counter()

    def visit(py: Any, cpp: Any) -> list[float] | None:
        counts["decisions"] += 1
        if py.is_terminal:
            check_battle_features(py, cpp)
            counts["game_over"] += 1
            return None
        scores = None
        if py.phase in WAR_PHASES:
            scores = check_scores(py, cpp, personalities)
            note(counts, py, scores)
        if counts["decisions"] % features_every == 0:
            check_battle_features(py, cpp)
            if py.phase not in _POLITICAL_PHASES:
                check_action_features(py, cpp)
            counts[f"features_{py.phase.name}"] += 1
        return scores

    for n in players:
        for seed in seeds:
            play(n, seed, (0.3, 0.6, 0.9)[seed % 3], visit)
    return counts


WAR_COVERAGE = ("SPARTA_CHOICE", "DEAD_POOL", "BATTLE_SPECIAL", "CASUALTY", "PERMISSION")
BRANCHES = (
    "spend_cube",
    "slave_revolt_pool",
    "slave_revolt_slot",
    "needs_permission",
    "room_2",
    "battle_token",
    "battle_double",
    "battle_after_play",
    "grant",
    "deny",
)


def test_war_scores_and_features_identical() -> None:
    counts = run_games((3, 4, 5), range(3), PERSONALITIES, features_every=3)
    print(dict(counts))
    assert counts["COMMIT"] >= 1000, dict(counts)
    for name in WAR_COVERAGE + BRANCHES:
        assert counts[name] >= 3, (name, dict(counts))
    assert counts["features_COMMIT"] >= 300 and counts["features_BATTLE_SPECIAL"] >= 30
    assert counts["features_INFLUENCE_PICK"] >= 100 and counts["game_over"] == 9


@pytest.mark.slow
def test_war_identical_many_games() -> None:
    counts = run_games((3, 4, 5), range(6, 60), PERSONALITIES, features_every=2)
    print(dict(counts))
    assert counts["COMMIT"] >= 20000, dict(counts)
    for name in BRANCHES:
        assert counts[name] >= 30, (name, dict(counts))


# ---- hand-built states for the rare branches -------------------------------------------------


def _first_state(n: int, predicate: Any) -> Any:
    """The first state of seeded random games that satisfies ``predicate`` (a Python game)."""
    for seed in range(200):
        py = new_game(GameConfig(num_players=n), seed=seed, backend="python")
        rng = random.Random(seed)
        while not py.is_terminal:
            if predicate(py):
                return py
            legal = py.legal_actions()
            py.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError("no such state in 200 games")


def _give_special(g: Any, p: int, tile: int) -> None:
    """Player p holds ``tile`` (unplayed); his own tile goes where ``tile`` was."""
    old = g.special[p]
    holders = [q for q in range(g.n) if g.special[q] == tile]
    if holders:
        g.special[holders[0]] = old
    elif tile in g.unseen_specials:
        g.unseen_specials.remove(tile)
        if old >= 0:
            g.unseen_specials.append(old)
    g.special[p] = tile
    g.special_played[tile] = -1


def _compare(py: Any) -> list[float]:
    cpp = unvalidated_twin(py)
    assert cpp.legal_actions() == py.legal_actions()
    scores = check_scores(py, cpp, PERSONALITIES)
    check_battle_features(py, cpp)
    check_action_features(py, cpp)
    return scores


def _spartan_hoplites(g: Any, slot: int) -> int:
    return sum(
        g.at[((slot * 2 + side) * 2 + box) * D.NUM_CLASSES + k]
        for side in (0, 1)
        for box in (0, 1)
        for k in D.CLASSES_OF[D.SPARTA][D.HOPLITE]
    )


@pytest.mark.parametrize("n", [3, 5])
def test_slave_revolt_scores(n: int) -> None:
    """Slave Revolt from the pool and from every location holding Spartan hoplites (D.4)."""

    def ready(g: Any) -> bool:
        return (
            g.phase == Phase.COMMIT
            and g.leader[D.SPARTA] not in (-1, g.current)
            and sum(_spartan_hoplites(g, s) > 0 for s in range(D.LOCATION_SLOTS)) >= 2
        )

    py = _first_state(n, ready)
    _give_special(py, py.current, D.SLAVE_REVOLT)
    legal = py.legal_actions()
    revolts = [a for a in legal if A.SLAVE_REVOLT <= a < A.END_STEP]
    assert len([a for a in revolts if a > A.SLAVE_REVOLT]) >= 2, legal
    scores = _compare(py)
    assert all(scores[legal.index(a)] > -10.0 for a in revolts)


@pytest.mark.parametrize("tokens", [(0, 1), (1, 0), (0, 0)])
def test_battle_token_scores(tokens: tuple[int, int]) -> None:
    """A token tile offered with either side already holding the head start (D.6, D.8)."""

    def ready(g: Any) -> bool:
        return g.phase == Phase.BATTLE_SPECIAL

    py = _first_state(4, ready)
    t = D.LOCATION_TILES[py.loc_display[py.b_slot]].rounds[py.b_round]
    _give_special(py, py.current, D.BATTLE_SPECIALS_FOR_TYPE[t][1])
    py.b_tokens[:] = list(tokens)
    legal = py.legal_actions()
    open_sides = [side for side in (0, 1) if not tokens[side]]
    assert legal == [A.BATTLE_PASS] + [A.BATTLE_TOKEN + side for side in open_sides]
    scores = _compare(py)
    assert len(set(scores)) > 1  # the tile changes the odds


@pytest.mark.parametrize("attacked", [True, False])
def test_permission_scores(attacked: bool) -> None:
    """A request to join an undefended location, attacked or not: grant exactly when the
    owner's leader cannot defend an attacked location himself (B.7.8)."""

    def ready(g: Any) -> bool:
        return g.phase == Phase.PERMISSION

    py = _first_state(3, ready)
    slot = py.pending[1]
    py.main[slot * 2 + 1] = -1
    py.main[slot * 2] = (py.current + 1) % py.n if attacked else -1
    py.held2[py.current] = py.held1[py.current] = 0  # no steps left: he cannot defend
    scores = _compare(py)
    legal = py.legal_actions()
    assert scores[legal.index(A.GRANT)] == (1.0 if attacked else 0.0)


def test_hidden_state_never_read() -> None:
    """Resampling what a player cannot see (other players' tiles and face-down strengths,
    the decks; docs/rules.md F) changes none of his scores or feature rows."""
    changed = compared = 0
    b1 = np.empty(ext.BATTLE_FEATURES_SIZE, dtype=np.float32)
    b2 = np.empty_like(b1)
    a1 = np.empty(ext.ACTION_FEATURES_SIZE, dtype=np.float32)
    a2 = np.empty_like(a1)
    for n in (3, 4, 5):
        for seed in range(3):
            game = new_game(GameConfig(num_players=n), seed=seed, backend="native")
            rng = random.Random(seed)
            while not game.is_terminal:
                legal = game.legal_actions()
                p = game.current
                if game.phase in WAR_PHASES and rng.random() < 0.5:
                    other = determinize(game, p, rng.getrandbits(64))
                    changed += other.to_dict()["at"] != game.to_dict()["at"]
                    for params in PERSONALITIES:
                        want = ext.heuristic_scores(game.core, p, _tuple(params))
                        assert ext.heuristic_scores(other.core, p, _tuple(params)) == want
                    if game.phase == Phase.COMMIT:
                        ext.action_features(game.core, p, a1)
                        ext.action_features(other.core, p, a2)
                        assert _same_bits(a1, a2)
                    seat = rng.randrange(n)
                    other = determinize(game, seat, rng.getrandbits(64))
                    ext.battle_features(game.core, seat, b1)
                    ext.battle_features(other.core, seat, b2)
                    assert _same_bits(b1, b2)
                    compared += 1
                game.apply_action(legal[rng.randrange(len(legal))])
    assert compared >= 300 and changed >= 100, (compared, changed)
