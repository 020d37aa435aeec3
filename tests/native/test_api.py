"""The C++ core behind the ``Game`` API: backend choice (and the fallback when the core is
missing), clones, conversions both ways, state fields read and written from Python, the
native random playout, and the component tables and action ids C++ runs on."""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import pytest

from perikles_env.engine import Game, GameConfig
from perikles_env.engine import backend as B
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidConfigError
from tests.native.helpers import assert_same_state, require_native

native = require_native()


def _mid_game(n: int = 4, seed: int = 2, decisions: int = 150, backend: str = "native") -> Game:
    g = Game.new(GameConfig(num_players=n), seed=seed, backend=backend)
    policy = Rng(seed)
    for _ in range(decisions):
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
    return g


# ---- backend choice -------------------------------------------------------------------------


def test_backend_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PERIKLES_BACKEND", raising=False)
    assert type(Game.new(backend="native")) is native.NativeGame
    assert type(Game.new(backend="auto")) is native.NativeGame
    assert type(Game.new(backend="python")) is Game
    assert type(Game.new()) is native.NativeGame  # default: $PERIKLES_BACKEND, else auto
    monkeypatch.setenv("PERIKLES_BACKEND", "python")
    assert type(Game.new()) is Game
    monkeypatch.setenv("PERIKLES_BACKEND", "auto")
    assert type(Game.new()) is native.NativeGame
    monkeypatch.setenv("PERIKLES_BACKEND", "python")
    assert type(Game.new(backend="native")) is native.NativeGame  # explicit wins
    for bad in ("cpp", "", 1):
        with pytest.raises(InvalidConfigError, match="backend"):
            Game.new(backend=bad)  # type: ignore[arg-type]
    monkeypatch.setenv("PERIKLES_BACKEND", "fast")
    with pytest.raises(InvalidConfigError, match="PERIKLES_BACKEND"):
        Game.new()
    with pytest.raises(InvalidConfigError, match="seed"):
        Game.new(seed=-1, backend="native")  # Python validates before C++ sees it


def test_without_the_core_auto_falls_back_with_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without a compiler: auto -> Python engine and one clear warning;
    an explicit native request is a clear error."""
    monkeypatch.setitem(B._state, "error", "No module named 'perikles_env._native'")
    monkeypatch.setitem(B._state, "warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = [Game.new(backend="auto") for _ in range(3)]
    assert all(type(g) is Game for g in games)
    assert len(caught) == 1 and "C++ engine core is not available" in str(caught[0].message)
    with pytest.raises(InvalidConfigError, match="C\\+\\+ engine is unavailable"):
        Game.new(backend="native")
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
    policy = Rng(n)
    while not py.is_terminal:
        legal = py.legal_actions()
        assert back.legal_actions() == legal
        action = legal[policy.randrange(len(legal))]
        py.apply_action(action)
        back.apply_action(action)
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


def test_fields_read_like_the_python_engine() -> None:
    g = _mid_game()
    py = g.to_python()
    assert_same_state(py, g, "fields")
    assert g.phase is py.phase and g.current_player == py.current_player
    assert g.event_log == py.events and g.rng == py.rng
    assert g.scores() == Game.scores(py) and g.winners() == Game.winners(py)
    assert g.location_vp(0) == py.location_vp(0) and g.is_truncated == py.is_truncated


def test_writes_go_through_to_cpp() -> None:
    """Assigning a field or changing a list read from one changes the C++ state, as on
    the Python engine; a list read before a later change refuses to be edited."""
    g = Game.new(GameConfig(num_players=4), seed=3, backend="native")
    py = Game.new(GameConfig(num_players=4), seed=3, backend="python")
    for game in (g, py):
        game.cubes[0] += 5
        game.supply[0] -= 5
        game.forced_dice = [6, 6, 1, 1]
        game.display.reverse()
        game.rng.state ^= 0xFF
    assert_same_state(py, g, "after edits")
    assert g.legal_actions() == py.legal_actions()
    stale = g.cubes
    g.apply_action(g.legal_actions()[0])
    with pytest.raises(TypeError, match="read the field again"):
        stale[0] = 1
    replaced = g.cubes
    g.cubes = list(replaced)
    with pytest.raises(TypeError, match="read the field again"):
        replaced.append(1)


def test_writes_are_checked() -> None:
    """Out-of-range values are refused at once; an inconsistent state before the next use."""
    g = Game.new(GameConfig(num_players=3), seed=3, backend="native")
    with pytest.raises(ValueError, match="cubes: wrong length"):
        g.cubes = [0] * 3
    before = g.to_dict()
    with pytest.raises(ValueError, match="supply: value out of range"):
        g.supply = [1, 2, -5, 0, 0]  # refused as a whole: supply[0..1] unchanged too
    assert g.to_dict() == before
    g.supply.sort(key=lambda v: -v)
    assert g.supply == sorted(before["supply"], reverse=True)
    g.supply = before["supply"]
    with pytest.raises(ValueError, match="display: value out of range"):
        g.display[0] = 99
    assert g.display[0] != 99  # the refused list was forgotten, C++ kept the old value
    with pytest.raises(TypeError, match="expected an int"):
        g.turn = "2"  # type: ignore[assignment]
    g.current = 4  # in range for 5 players, not for this 3-player game
    with pytest.raises(ValueError, match="current: no such seat"):
        g.legal_actions()


# ---- native random playout -----------------------------------------------------------------


@pytest.mark.parametrize("n", (3, 4, 5))
def test_random_playout_is_the_python_policy_loop(n: int) -> None:
    start = _mid_game(n, seed=10 + n, decisions=50)
    py = start.to_python()
    policy = Rng(77)
    count = 0
    while not py.is_terminal:
        legal = py.legal_actions()
        py.apply_action(legal[policy.randrange(len(legal))])
        count += 1
    cpp = start.clone()
    assert cpp.random_playout(77) == count and cpp == py
    partial = start.clone()
    assert partial.random_playout(77, max_decisions=10) == 10
    assert partial.decisions == start.decisions + 10


def test_random_games_count_the_decisions_of_the_same_games() -> None:
    expected = 0
    for seed in range(5):
        g = Game.new(GameConfig(num_players=4, record_events=False), seed=seed, backend="python")
        expected += native.NativeGame.from_dict(g.to_dict()).random_playout(seed)
    assert native.random_games(4, 5, seed0=0, record_events=False) == expected


# ---- tables and ids ------------------------------------------------------------------------


def test_legal_mask_fills_a_caller_owned_array_and_checks_it() -> None:
    import numpy as np

    g = _mid_game()
    for dtype in (bool, np.uint8):
        out = np.full(957, 7 if dtype is np.uint8 else True, dtype=dtype)
        assert g.legal_mask(out) is None  # written in place
        assert np.flatnonzero(out).tolist() == g.legal_actions() and out.max() == 1
    with pytest.raises(ValueError, match="957"):
        g.legal_mask(np.zeros(956, dtype=bool))
    for bad in (np.zeros(957, dtype=np.int64), np.zeros((957, 2), dtype=bool)[:, 0], [0] * 957):
        with pytest.raises(TypeError):
            g.legal_mask(bad)


@pytest.mark.parametrize("n", [3, 5])
def test_a_decision_forgets_only_the_cached_fields_it_changed(n: int) -> None:
    """Fields read before a decision stay cached (the same objects, still editable) when the
    decision leaves them alone, and are read again from C++ when it changed them: the
    cache never serves a stale value, and most reads after a decision cost no copy."""
    from perikles_env.engine.native import _CACHED_FIELDS

    g = Game.new(GameConfig(num_players=n), seed=n, backend="native")
    policy = Rng(n)
    kept = dropped = 0
    while not g.is_terminal:
        values = {name: getattr(g, name) for name in _CACHED_FIELDS}
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
        fresh = g.clone()  # no cache: every field straight from C++
        for name, old in values.items():
            now = getattr(fresh, name)
            if g.__dict__.get(name) is old:
                assert old == now, name
                kept += 1
            else:
                assert name not in g.__dict__ and getattr(g, name) == now, name
                dropped += 1
    assert kept > 5 * dropped  # a decision changes a few fields, not the state
    survivor = next(name for name in ("cubes", "supply") if name in g.__dict__)
    lst = getattr(g, survivor)
    lst[0] += 1  # a list kept over a decision is still this game's state: edits go through
    assert g.clone().to_dict()[survivor][0] == lst[0]


def test_an_illegal_decision_keeps_the_cache() -> None:
    from perikles_env.errors import IllegalActionError

    g = _mid_game()
    cubes = g.cubes
    illegal = next(a for a in range(957) if not g.is_legal(a))
    with pytest.raises(IllegalActionError):
        g.apply_action(illegal)
    assert g.cubes is cubes
