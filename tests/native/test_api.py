"""The C++ core behind the ``Game`` API: backend choice (and the fallback when the core is
missing), clones, conversions both ways, state fields read and written from Python, the
native random playout, and the read-only state (a scenario is built on a Python game)."""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import pytest

from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine import backend as B
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidConfigError, InvalidStateError, ReadOnlyStateError
from tests.engine.builders import assert_random_playout_is_the_policy_loop
from tests.native.helpers import assert_same_state, play_in_lockstep, require_native

native = require_native()


def _mid_game(n: int = 4, seed: int = 2, decisions: int = 150, backend: str = "native") -> Game:
    g = new_game(GameConfig(num_players=n), seed=seed, backend=backend)
    policy = Rng(seed)
    for _ in range(decisions):
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
    return g


# ---- backend choice -------------------------------------------------------------------------


def test_backend_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERIKLES_BACKEND", raising=False)
    assert type(new_game(backend="native")) is native.NativeGame
    assert type(new_game(backend="auto")) is native.NativeGame
    assert type(new_game(backend="python")) is Game
    assert type(new_game()) is native.NativeGame  # default: $PERIKLES_BACKEND, else auto
    monkeypatch.setenv("PERIKLES_BACKEND", "python")
    assert type(new_game()) is Game
    monkeypatch.setenv("PERIKLES_BACKEND", "auto")
    assert type(new_game()) is native.NativeGame
    monkeypatch.setenv("PERIKLES_BACKEND", "python")
    assert type(new_game(backend="native")) is native.NativeGame  # explicit wins
    for bad in ("cpp", "", 1):
        with pytest.raises(InvalidConfigError, match="backend"):
            new_game(backend=bad)  # type: ignore[arg-type]
    monkeypatch.setenv("PERIKLES_BACKEND", "fast")
    with pytest.raises(InvalidConfigError, match="PERIKLES_BACKEND"):
        new_game()
    with pytest.raises(InvalidConfigError, match="seed"):
        new_game(seed=-1, backend="native")  # Python validates before C++ sees it


def test_without_the_core_auto_falls_back_with_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without a compiler: auto -> Python engine and one clear warning;
    an explicit native request is a clear error."""
    monkeypatch.setitem(B._state, "error", "No module named 'perikles_env._native'")
    monkeypatch.setitem(B._state, "warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = [new_game(backend="auto") for _ in range(3)]
    assert all(type(g) is Game for g in games)
    assert len(caught) == 1 and "C++ engine core is not available" in str(caught[0].message)
    with pytest.raises(InvalidConfigError, match="C\\+\\+ engine is unavailable"):
        new_game(backend="native")
    assert not B.native_available()


# ---- copies and conversions ----------------------------------------------------------------


def test_clone_is_independent_and_equal() -> None:
    g = _mid_game()
    twin = g.clone()
    assert type(twin) is native.NativeGame and twin == g and twin.to_dict() == g.to_dict()
    twin.apply_action(twin.legal_actions()[0])
    assert twin != g and g.to_dict() != twin.to_dict()
    assert g.clone().to_dict() == g.to_dict()


@pytest.mark.parametrize("n", (3, 4, 5))
def test_dicts_load_both_ways_and_play_on_identically(n: int) -> None:
    cpp = _mid_game(n, seed=n, decisions=100 + 20 * n)
    py = Game.from_dict(json.loads(json.dumps(cpp.to_dict())))  # native -> Python
    assert type(py) is Game and json.dumps(py.to_dict()) == json.dumps(cpp.to_dict())
    back = native.NativeGame.from_dict(py.to_dict())  # Python -> native
    assert back == py == cpp and back.event_log == py.events
    play_in_lockstep(py, back, n)
    assert back.to_dict() == py.to_dict()


def test_pickle_deepcopy_and_python_copies() -> None:
    g = _mid_game()
    for copied in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert type(copied) is native.NativeGame and copied == g
    py = g.to_python()
    assert type(py) is Game and py == g
    py.apply_action(py.legal_actions()[0])
    assert py != g  # an independent copy
    assert native.from_python(py) == py


# ---- state fields from Python --------------------------------------------------------------


def test_a_clone_brings_the_decoded_events_and_keeps_its_own_log(monkeypatch) -> None:
    """A clone of a game whose log was read decodes only its own later events; moves on
    either copy extend that copy's log alone."""
    from perikles_env.engine import events

    g = _mid_game()
    log = list(g.event_log)
    decoded: list[int] = []
    real = events.decode
    monkeypatch.setattr(events, "decode", lambda raw, n: decoded.append(1) or real(raw, n))
    c = g.clone()
    assert c.event_log == log and decoded == []
    policy = Rng(9)
    while len(c.event_log) == len(log):
        legal = c.legal_actions()
        c.apply_action(legal[policy.randrange(len(legal))])
    assert c.event_log[: len(log)] == log and len(decoded) == len(c.event_log) - len(log)
    assert g.event_log == log and c.event_log == c.to_python().events


def test_fields_read_like_the_python_engine() -> None:
    g = _mid_game()
    py = g.to_python()
    assert_same_state(py, g, "fields")
    assert g.phase is py.phase and g.current_player == py.current_player
    assert g.event_log == py.events and g.rng == py.rng
    assert g.scores() == Game.scores(py) and g.winners() == Game.winners(py)
    assert g.location_vp(0) == py.location_vp(0) and g.is_truncated == py.is_truncated


def test_state_is_read_only_with_a_typed_error_naming_the_way() -> None:
    """Assigning a field, editing a snapshot list or drawing from the RNG raises
    ReadOnlyStateError (naming from_python) and changes nothing; copies are plain lists."""
    g = new_game(GameConfig(num_players=4), seed=3, backend="native")
    before = g.to_dict()
    edits = (
        lambda: setattr(g, "turn", 2),
        lambda: setattr(g, "cubes", [0] * 30),
        lambda: setattr(g, "phase", g.phase),
        lambda: setattr(g, "forced_dice", [6]),
        lambda: delattr(g, "supply"),
        lambda: g.cubes.__setitem__(0, 5),
        lambda: g.supply.append(1),
        lambda: g.display.reverse(),
        lambda: g.events.append(("x",)),
        lambda: g.rng.randrange(6),
    )
    for edit in edits:
        with pytest.raises(ReadOnlyStateError, match="from_python"):
            edit()
    assert g.to_dict() == before
    mine = g.cubes[:]
    mine[0] = 9  # a copy is an ordinary list
    assert type(copy.copy(g.cubes)) is list and mine[0] == 9 and g.cubes[0] != 9


def test_the_rng_snapshot_refuses_writes_with_the_typed_error() -> None:
    """``g.rng.state = -1`` raised a bare AttributeError; every write to the RNG snapshot
    now raises ReadOnlyStateError and changes nothing, while copies still work."""
    g = new_game(GameConfig(num_players=4), seed=3, backend="native")
    rng, before = g.rng, g.to_dict()
    for edit in (
        lambda: setattr(rng, "state", -1),
        lambda: setattr(rng, "_state", 0),
        lambda: delattr(rng, "state"),
    ):
        with pytest.raises(ReadOnlyStateError, match="from_python"):
            edit()
    assert g.to_dict() == before and rng.state == g.rng.state == before["rng"]
    for twin in (copy.copy(rng), copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))):
        assert twin.state == rng.state
    plain = rng.copy()  # a plain Rng to draw from, apart from the game
    assert type(plain) is Rng and plain.next64() >= 0 and rng.state == before["rng"]


def test_python_rule_code_never_runs_over_cpp_state() -> None:
    """Every private rule method the Python engine would run (phase entry points, appliers,
    helpers) refuses on a NativeGame instead of diverging silently."""
    from perikles_env.engine.combat import CombatRules
    from perikles_env.engine.influence import InfluenceRules
    from perikles_env.engine.military import MilitaryRules

    g = new_game(GameConfig(num_players=4), seed=3, backend="native")
    names = [
        name for rules in (InfluenceRules, MilitaryRules, CombatRules)
        for name, value in vars(rules).items() if name.startswith("_") and callable(value)
        and not name.startswith("__")
    ]
    assert len(names) > 80
    for name in names:
        with pytest.raises(ReadOnlyStateError, match=f"{name} is the Python engine's rule"):
            getattr(g, name)()
    assert g == new_game(GameConfig(num_players=4), seed=3, backend="python")


def test_scenario_built_on_python_loads_and_plays_identically() -> None:
    """The documented way to a scenario: edit a Python game (scripted dice included),
    load it with from_python; an edit the validator refuses is refused at the load."""
    py = new_game(GameConfig(num_players=4), seed=3, backend="python")
    py.forced_dice = [6, 6, 1, 1]
    py.cubes[0] += 1
    py.supply[0] -= 1
    cpp = native.NativeGame.from_python(py)
    assert cpp == py and cpp.forced_dice == [6, 6, 1, 1]
    while not py.is_terminal:
        action = py.legal_actions()[-1]
        py.apply_action(action)
        cpp.apply_action(action)
    assert cpp == py
    bad = new_game(GameConfig(num_players=4), seed=3, backend="python")
    bad.supply[0] -= 1  # a cube lost
    with pytest.raises(InvalidStateError, match="cubes/cand/supply"):
        native.NativeGame.from_python(bad)


# ---- native random playout -----------------------------------------------------------------


@pytest.mark.parametrize("n", (3, 4, 5))
def test_random_playout_is_the_python_policy_loop(n: int) -> None:
    start = _mid_game(n, seed=10 + n, decisions=50)
    assert_random_playout_is_the_policy_loop(start, start.to_python(), 77, 10)


def test_random_games_count_the_decisions_of_the_same_games() -> None:
    expected = 0
    for seed in range(5):
        g = new_game(GameConfig(num_players=4, record_events=False), seed=seed, backend="python")
        expected += native.NativeGame.from_dict(g.to_dict()).random_playout(seed)
    assert native.extension.random_games(4, 5, 0, False) == expected


# ---- tables and ids ------------------------------------------------------------------------


def test_legal_mask_fills_a_caller_owned_array_and_checks_it() -> None:
    import numpy as np

    g = _mid_game()
    for dtype in (bool, np.uint8, np.int8):
        out = np.full(957, True if dtype is bool else 7, dtype=dtype)
        assert g.legal_mask(out) is None  # written in place
        assert np.flatnonzero(out).tolist() == g.legal_actions() and out.max() == 1
    with pytest.raises(ValueError, match="957"):
        g.legal_mask(np.zeros(956, dtype=bool))
    for bad in (np.zeros(957, dtype=np.int64), np.zeros((957, 2), dtype=bool)[:, 0], [0] * 957):
        with pytest.raises(TypeError):
            g.legal_mask(bad)


@pytest.mark.parametrize("n", [3, 5])
def test_snapshots_are_never_stale(n: int) -> None:
    """Fields read before a decision are copies of that moment; after it every read shows
    the new state (equal to a cache-free clone's)."""
    g = new_game(GameConfig(num_players=n), seed=n, backend="native")
    policy = Rng(n)
    names = [name for name in native._NAMES if name != "rng"]
    while not g.is_terminal:
        before = {name: getattr(g, name) for name in names}
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
        fresh = g.clone()  # no snapshot read yet: every field straight from C++
        assert all(getattr(g, name) == getattr(fresh, name) for name in names)
        assert before["decisions"] == g.decisions - 1


def test_an_illegal_decision_keeps_the_cache() -> None:
    from perikles_env.errors import IllegalActionError

    g = _mid_game()
    cubes = g.cubes
    illegal = next(a for a in range(957) if not g.is_legal(a))
    with pytest.raises(IllegalActionError):
        g.apply_action(illegal)
    assert g.cubes is cubes
