"""The rule queries answered by the C++ core equal the Python reference (engine/queries.py).

``Game`` exposes the queries about its state as methods (``placement_targets``,
``military_knowledge``, ``proposals``, ...) that call the reference; ``NativeGame`` overrides
each with the C++ twin. Checked at every decision of seeded games at 3, 4 and 5 players
(twin games: the reference on the Python engine's state), with the core's own answer too;
bad arguments give the same error type on both engines; and the engine's own query tests
(tests/engine/test_rule_queries.py) run again on the native backend. ``-m slow``: more
games.
"""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine import data as D
from perikles_env.engine import queries as Q
from perikles_env.engine.information import revealed_slot
from perikles_env.engine.rng import Rng
from tests.engine import test_rule_queries as engine_checks
from tests.native.helpers import require_native

native = require_native()

PLAYER_COUNTS = (3, 4, 5)
GAMES = 2  # per player count
SLOW_GAMES = 200
SLOTS = range(D.LOCATION_SLOTS)
CITIES = range(D.NUM_CITIES)
MILITARY = range(D.NUM_MILITARY_CITIES)
QUERY_METHODS = (
    "military_knowledge", "placement_targets", "placement_status", "class_placement_status",
    "proposals", "assassination_targets", "plague_losses", "election_outcome", "location_vp",
    "statue_count", "statue_vp", "cube_vp", "round_strengths", "predicted_rounds", "scores",
    "winners",
)


def test_native_game_answers_every_query_method_in_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule query about the state is a Game method (arguments checked, answered by
    queries.py); NativeGame overrides every one to ask its C++ core: with the Python
    reference made to fail, the native game still answers and the Python game does not."""
    from perikles_env.engine import game as game_module

    def broken(*args: object) -> None:
        raise AssertionError("the Python reference answered")

    monkeypatch.setattr(game_module, "_REFERENCE", dict.fromkeys(game_module._REFERENCE, broken))
    for name in ("placement_targets", "placement_status", "class_placement_status",
                 "military_knowledge", "ranking_keys", "winners", "cube_vp"):
        monkeypatch.setattr(Q, name, broken, raising=False)
    monkeypatch.setattr(Game, "scores", broken)
    monkeypatch.setattr(Game, "winners", broken)
    cpp = new_game(GameConfig(num_players=4), seed=1, backend="native")
    py = new_game(GameConfig(num_players=4), seed=1, backend="python")
    args = {"placement_targets": (0, 1), "placement_status": (0, 1, 2, 0),
            "class_placement_status": (0, 9, 2, 0), "round_strengths": (0, 0),
            "scores": (), "winners": ()}
    for name in QUERY_METHODS:
        assert name in vars(native.NativeGame), f"NativeGame does not answer {name} in C++"
        getattr(cpp, name)(*args.get(name, (1,)))
        with pytest.raises(AssertionError, match="reference answered"):
            getattr(py, name)(*args.get(name, (1,)))


def _placements_agree(py: Game, cpp: Game, players: range, full: bool) -> None:
    core = cpp.core
    for p in players:
        for x in MILITARY:
            for first in (False, True):
                for skip in (False, True):
                    want = Q.placement_targets(py, p, x, first, skip)
                    assert py.placement_targets(p, x, first, skip) == want
                    assert cpp.placement_targets(p, x, first, skip) == want
                    assert core.placement_targets(p, x, first, skip) == want
            if not full:
                continue
            for slot in SLOTS:
                for side in (0, 1):
                    want = Q.placement_status(py, p, x, slot, side)
                    assert cpp.placement_status(p, x, slot, side) == want
                    assert py.placement_status(p, x, slot, side) == want
        if full:
            for k in D.EXISTING_CLASSES:
                for slot in SLOTS:
                    for side in (0, 1):
                        want = Q.class_placement_status(py, p, k, slot, side)
                        assert cpp.class_placement_status(p, k, slot, side) == want


def _influence_agree(py: Game, cpp: Game) -> None:
    n = py.n
    for p in range(n):
        want = Q.proposals(py.cubes, py.cand, p, n)
        assert cpp.proposals(p) == want == py.proposals(p)
        want = Q.assassination_targets(py.cubes, py.cand, n, p)
        assert cpp.assassination_targets(p) == want == py.assassination_targets(p)
    for c in CITIES:
        want = Q.plague_losses(py.cubes, py.cand, c, n)
        assert cpp.plague_losses(c) == want == py.plague_losses(c)
        want_e = Q.election_outcome(py.cubes, py.cand, c)
        assert cpp.election_outcome(c) == want_e == py.election_outcome(c)


def _scores_agree(py: Game, cpp: Game) -> None:
    for p in range(py.n):
        want = (
            Q.cube_vp(py.cubes, py.cand, p),
            Q.location_vp(py.loc_claim, p),
            Q.statue_vp(py.statues, py.defeats, p),
            py.statue_count(p),
        )
        got = (cpp.cube_vp(p), cpp.location_vp(p), cpp.statue_vp(p), cpp.statue_count(p))
        assert got == want
        assert (py.cube_vp(p), py.location_vp(p), py.statue_vp(p)) == want[:3]
    assert cpp.ranking_keys() == py.ranking_keys() and cpp.scores() == py.scores()


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
        assert cpp.military_knowledge(p) == want == py.military_knowledge(p)
        hidden = hidden or -1 in want.box_known
    return revealed_slot(py) >= 0, hidden


def _play(n: int, seed: int) -> dict[str, int]:
    """One game on both engines; every query compared at every decision (the placement
    statuses of every slot and side: at commit decisions, for the player to move)."""
    config = GameConfig(num_players=n)
    py = new_game(config, seed=seed, backend="python")
    cpp = new_game(config, seed=seed, backend="native")
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


def _outcome(case, game):  # type: ignore[no-untyped-def]
    try:
        return ("ok", case(game))
    except Exception as error:  # noqa: BLE001 - the error type is what is compared
        return ("error", type(error))


def test_arguments_outside_the_native_ranges_behave_like_the_reference() -> None:
    """Out-of-range seats, cities, slots, sides and classes, wrong types: each gives the
    Python engine's result or error type on the native backend too (a seat is checked
    before any query runs: ``location_vp(2**33)`` is a ValueError, not an allocation)."""
    config = GameConfig(num_players=4)
    py = new_game(config, seed=4, backend="python")
    cpp = new_game(config, seed=4, backend="native")
    policy = Rng(4)
    while py.phase != Phase.COMMIT:
        legal = py.legal_actions()
        action = legal[policy.randrange(len(legal))]
        py.apply_action(action)
        cpp.apply_action(action)
    cases = [
        lambda g: g.military_knowledge(7),
        lambda g: g.military_knowledge(-1),
        lambda g: g.military_knowledge("0"),
        lambda g: g.placement_targets(7, 0),
        lambda g: g.placement_targets(-1, 0),
        lambda g: g.placement_targets(0, 7),
        lambda g: g.placement_targets(0, -1),
        lambda g: g.placement_targets(0, 1.0),
        lambda g: g.placement_status(0, 1, -1, 0),
        lambda g: g.placement_status(0, 1, 2, 5),
        lambda g: g.placement_status(2**70, 1, 2, 0),
        lambda g: g.class_placement_status(0, -1, 2, 0),
        lambda g: g.class_placement_status(0, 56, 2, 0),
        lambda g: g.proposals(7),
        lambda g: g.proposals(4),
        lambda g: g.proposals(True),
        lambda g: g.assassination_targets(-1),
        lambda g: g.plague_losses(-1),
        lambda g: g.plague_losses(6),
        lambda g: g.election_outcome(9),
        lambda g: g.location_vp(-1),
        lambda g: g.location_vp(2**33),
        lambda g: g.statue_vp(9),
        lambda g: g.cube_vp(4),
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
        g = new_game(GameConfig(num_players=n), seed=seed, backend="native")
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
