"""The rule queries answered by the C++ core equal the Python reference (engine/queries.py).

On a NativeGame, ``queries.py`` sends the placement queries, ``military_knowledge``,
``proposals``, ``assassination_targets``, ``plague_losses``, ``statue_vp`` and
``location_vp`` to C++, and ``NativeGame`` answers ``location_vp``, ``statue_count``,
``round_strengths`` and ``predicted_rounds`` there.
Checked at every decision of seeded games at 3, 4 and 5 players (twin games: the same query
on the Python engine's state is the reference), with a proof that C++ really answered
(the core's own answer and the fresh-field test ``FieldList.core_of``); arguments outside
the C++ ranges give the reference's answer or error; and the engine's own query tests
(tests/engine/test_rule_queries.py) run again on the native backend. ``-m slow``: more
games.
"""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, GameConfig, Phase
from perikles_env.engine import data as D
from perikles_env.engine import queries as Q
from perikles_env.engine.information import revealed_slot
from perikles_env.engine.rng import Rng
from tests.engine import test_rule_queries as engine_checks
from tests.native.helpers import require_native

native = require_native()

PLAYER_COUNTS = (3, 4, 5)
GAMES = 5  # per player count
SLOW_GAMES = 200
SLOTS = range(D.LOCATION_SLOTS)
CITIES = range(D.NUM_CITIES)
MILITARY = range(D.NUM_MILITARY_CITIES)


def test_the_core_is_registered_with_the_queries() -> None:
    """What makes ``queries.py`` dispatch: importing the core registers its types."""
    assert Q._NATIVE_GAME is native.NativeGame and Q._NATIVE_LIST is native.FieldList


def _placements_agree(py: Game, cpp: Game, players: range, full: bool) -> None:
    core = cpp.core
    for p in players:
        for x in MILITARY:
            for first in (False, True):
                for skip in (False, True):
                    want = Q.placement_targets(py, p, x, first, skip)
                    assert Q.placement_targets(cpp, p, x, first, skip) == want
                    assert core.placement_targets(p, x, first, skip) == want
            some = (6, 2, 2, 0)
            want = Q.placement_targets(py, p, x, slots=some)
            assert Q.placement_targets(cpp, p, x, slots=some) == want
            if not full:
                continue
            for slot in SLOTS:
                for side in (0, 1):
                    want = Q.placement_status(py, p, x, slot, side)
                    assert Q.placement_status(cpp, p, x, slot, side) == want
                    assert core.placement_status(p, x, slot, side) == want
        if full:
            for k in D.EXISTING_CLASSES:
                for slot in SLOTS:
                    for side in (0, 1):
                        want = Q.class_placement_status(py, p, k, slot, side)
                        assert Q.class_placement_status(cpp, p, k, slot, side) == want
                        assert core.class_placement_status(p, k, slot, side) == want


def _influence_agree(py: Game, cpp: Game) -> None:
    n, core = py.n, cpp.core
    cubes, cand = cpp.cubes, cpp.cand
    assert cubes.core_of("cubes", cand, "cand", n) is core  # fresh fields: C++ answers
    for p in range(n):
        want = Q.proposals(py.cubes, py.cand, p, n)
        assert Q.proposals(cubes, cand, p, n) == want and core.proposals(p) == want
        want = Q.assassination_targets(py.cubes, py.cand, n, p)
        assert Q.assassination_targets(cubes, cand, n, p) == want
        assert core.assassination_targets(p) == want
    for c in CITIES:
        want = Q.plague_losses(py.cubes, py.cand, c, n)
        assert Q.plague_losses(cubes, cand, c, n) == want and core.plague_losses(c) == want
        want_e = Q.election_outcome(py.cubes, py.cand, c)
        assert Q.election_outcome(cubes, cand, c) == want_e
        assert core.election_outcome(c) == want_e


def _scores_agree(py: Game, cpp: Game) -> None:
    core = cpp.core
    for p in range(py.n):
        want = (
            Q.cube_vp(py.cubes, py.cand, p),
            Q.location_vp(py.loc_claim, p),
            Q.statue_vp(py.statues, py.defeats, p),
        )
        got = (
            Q.cube_vp(cpp.cubes, cpp.cand, p),
            Q.location_vp(cpp.loc_claim, p),
            Q.statue_vp(cpp.statues, cpp.defeats, p),
        )
        assert got == want
        assert (core.cube_vp(p), core.location_vp(p), core.statue_vp(p)) == want
        assert cpp.location_vp(p) == py.location_vp(p)
        assert cpp.statue_count(p) == py.statue_count(p) == core.statue_count(p)
    assert cpp.ranking_keys() == py.ranking_keys()


def _battles_agree(py: Game, cpp: Game) -> None:
    for slot in SLOTS:
        assert cpp.predicted_rounds(slot) == py.predicted_rounds(slot)
        for t in (D.HOPLITE, D.TRIREME):
            assert cpp.round_strengths(slot, t) == py.round_strengths(slot, t)


def _knowledge_agree(py: Game, cpp: Game) -> tuple[bool, bool]:
    """Every player's ``military_knowledge``; returns whether a location was face up and
    whether some strength was hidden from some player (what the check covered)."""
    hidden = False
    for p in range(py.n):
        want = Q.military_knowledge(py, p)
        assert Q.military_knowledge(cpp, p) == want
        assert Q.MilitaryKnowledge(*cpp.core.military_knowledge(p)) == want
        hidden = hidden or -1 in want.box_known
    return revealed_slot(py) >= 0, hidden


def _play(n: int, seed: int) -> dict[str, int]:
    """One game on both engines; every query compared at every decision (the placement
    statuses of every slot and side: at commit decisions, for the player to move)."""
    config = GameConfig(num_players=n)
    py = Game.new(config, seed=seed, backend="python")
    cpp = Game.new(config, seed=seed, backend="native")
    policy = Rng(seed * 13 + n)
    seen = {"decisions": 0, "commit": 0, "battle": 0, "face_up": 0, "hidden": 0}
    while True:
        _influence_agree(py, cpp)
        _scores_agree(py, cpp)
        _battles_agree(py, cpp)
        face_up, hidden = _knowledge_agree(py, cpp)
        seen["face_up"] += face_up
        seen["hidden"] += hidden
        if py.is_terminal:
            return seen
        commit = py.phase == Phase.COMMIT
        _placements_agree(py, cpp, range(n), full=commit)
        seen["decisions"] += 1
        seen["commit"] += commit
        seen["battle"] += py.phase == Phase.BATTLE_SPECIAL
        legal = py.legal_actions()
        action = legal[policy.randrange(len(legal))]
        py.apply_action(action)
        cpp.apply_action(action)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_native_queries_equal_the_python_reference_at_every_decision(n: int) -> None:
    total = {"decisions": 0, "commit": 0, "battle": 0, "face_up": 0, "hidden": 0}
    for seed in range(GAMES):
        for key, value in _play(n, 30_000 + seed).items():
            total[key] += value
    assert total["decisions"] > GAMES * 100 and total["commit"] > GAMES * 10, total
    assert total["face_up"] > GAMES and total["hidden"] > GAMES * 50, total


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_native_queries_equal_the_python_reference_slow(n: int) -> None:
    for seed in range(SLOW_GAMES):
        _play(n, 400_000 + seed)


def test_stale_or_foreign_lists_are_answered_by_the_reference() -> None:
    """A list read before the last decision, a copy, or lists of two different games are
    not the game's state now: Python answers on their contents."""
    g = Game.new(GameConfig(num_players=4), seed=2, backend="native")
    policy = Rng(2)
    while g.phase != Phase.PROPOSE:
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
    old_cubes, old_cand = g.cubes, g.cand
    expected = Q.proposals(list(old_cubes), list(old_cand), g.current, 4)
    other = g.clone()
    assert old_cubes.core_of("cubes", other.cand, "cand", 4) is None  # two games
    assert old_cubes.core_of("cand", old_cand, "cubes", 4) is None  # swapped names
    assert old_cubes.core_of("cubes", old_cand, "cand", 3) is None  # another player count
    g.apply_action(g.legal_actions()[0])
    assert old_cubes.core_of("cubes", old_cand, "cand", 4) is None  # stale
    assert Q.proposals(old_cubes, old_cand, g.current, 4) == Q.proposals(
        list(old_cubes), list(old_cand), g.current, 4
    )
    assert expected == Q.proposals(list(old_cubes), list(old_cand), other.current, 4)


def _outcome(case, game):  # type: ignore[no-untyped-def]
    try:
        return ("ok", case(game))
    except Exception as error:  # noqa: BLE001 - the error type is what is compared
        return ("error", type(error))


def test_arguments_outside_the_native_ranges_behave_like_the_reference() -> None:
    """Out-of-range seats, cities, slots, sides and classes, wrong types, odd ``slots``:
    each gives the Python reference's result or error type on the native backend too."""
    config = GameConfig(num_players=4)
    py = Game.new(config, seed=4, backend="python")
    cpp = Game.new(config, seed=4, backend="native")
    policy = Rng(4)
    while py.phase != Phase.COMMIT:
        legal = py.legal_actions()
        action = legal[policy.randrange(len(legal))]
        py.apply_action(action)
        cpp.apply_action(action)
    cases = [
        lambda g: Q.military_knowledge(g, 7),
        lambda g: Q.military_knowledge(g, -1),
        lambda g: Q.military_knowledge(g, "0"),
        lambda g: Q.placement_targets(g, 7, 0),
        lambda g: Q.placement_targets(g, -1, 0),
        lambda g: Q.placement_targets(g, 0, 7),
        lambda g: Q.placement_targets(g, 0, -1),
        lambda g: Q.placement_targets(g, 0, 1, first=1),
        lambda g: Q.placement_targets(g, 0, 1, slots=(slot for slot in (3, 1))),
        lambda g: Q.placement_targets(g, 0, 1, slots=(-1, 9)),
        lambda g: Q.placement_targets(g, 0, 1.0),
        lambda g: Q.placement_status(g, 0, 1, -1, 0),
        lambda g: Q.placement_status(g, 0, 1, 2, 5),
        lambda g: Q.placement_status(g, 2**70, 1, 2, 0),
        lambda g: Q.class_placement_status(g, 0, -1, 2, 0),
        lambda g: Q.class_placement_status(g, 0, 56, 2, 0),
        lambda g: Q.proposals(g.cubes, g.cand, 7, 4),
        lambda g: Q.proposals(g.cubes, g.cand, 0, 3),
        lambda g: Q.proposals(g.cubes, g.cand, 0, 4.0),
        lambda g: Q.assassination_targets(g.cubes, g.cand, 4, -1),
        lambda g: Q.assassination_targets(g.cubes, g.cand, 5, 0),
        lambda g: Q.plague_losses(g.cubes, g.cand, -1, 4),
        lambda g: Q.plague_losses(g.cubes, g.cand, 6, 4),
        lambda g: Q.location_vp(g.loc_claim, -1),
        lambda g: Q.statue_vp(g.statues, g.defeats, 9),
        lambda g: g.location_vp(9),
        lambda g: g.statue_count(-2),
        lambda g: g.round_strengths(-1, 0),
        lambda g: g.round_strengths(0, 2),
        lambda g: g.predicted_rounds(7),
        lambda g: g.predicted_rounds(-7),
    ]
    for i, case in enumerate(cases):
        assert _outcome(case, cpp) == _outcome(case, py), f"case {i}"


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_the_engine_query_tests_pass_on_the_native_backend(n: int) -> None:
    """tests/engine/test_rule_queries.py's checks (each query against what the engine then
    does, the heuristic's view against the game) on NativeGames."""
    rounds = 0
    for seed in range(2):
        g = Game.new(GameConfig(num_players=n), seed=seed, backend="native")
        policy = Rng(7_000_000 + seed)
        while not g.is_terminal:
            legal = g.legal_actions()
            engine_checks.check_placements(g, legal)
            engine_checks.check_influence_effects(g, legal)
            engine_checks.check_unseen(g, legal)
            g.apply_action(legal[policy.randrange(len(legal))])
        rounds += engine_checks.check_battle_log(g)
        engine_checks.check_end(g)
    assert rounds > 5
