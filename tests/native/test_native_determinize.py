"""``determinize`` on the C++ core (docs/rules.md F): for the same state, player and seed the
native sample is exactly the Python reference's (same draws of the same SplitMix64 stream in
the same order), and it is a NativeGame built in C++, without a round trip through Python.

Compared by ``to_dict()`` (every field, the RNG and the event log) over seeded games at 3, 4
and 5 players, every player, several seeds, at sampled decisions plus every decision where
hidden information is special: a pending permission request (B.7.8), a location being
resolved (its counters face up, C.2), Persian co-leaders (B.11). A coverage check proves
those states and real resampling (strengths, specials, decks) were compared. ``-m slow``:
more games.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import queries as Q
from perikles_env.engine.determinize import determinize
from perikles_env.engine.information import revealed_slot
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidStateError
from tests.native.helpers import play_in_lockstep, require_native

native = require_native()

PLAYER_COUNTS = (3, 4, 5)
SEEDS_PER_STATE = 2
GAMES = 4  # per player count
SLOW_GAMES = 150
EVERY = 9  # ordinary decisions sampled; the special states above are sampled always
SPECIAL_PHASES = (Phase.PERMISSION, Phase.BATTLE_SPECIAL, Phase.CASUALTY)


def _hidden_rich(g: Game, legal: list[int], rng: Rng) -> int:
    """Fills boxes and asks for permission often (more hidden strengths, pending requests),
    otherwise uniform."""
    if g.phase == Phase.COMMIT and rng.randrange(4):
        asking, placing = [], []
        for a in legal:
            kind, klass, slot, side = A.decode(a)
            if kind == "PLACE":
                placing.append(a)
                status = Q.class_placement_status(g, g.step_player, klass, slot, side)
                if status == Q.NEEDS_PERMISSION:
                    asking.append(a)
        pool = asking if asking and rng.randrange(2) else placing
        if pool:
            return pool[rng.randrange(len(pool))]
    return legal[rng.randrange(len(legal))]


def _compare_game(n: int, seed: int, seen: dict[str, int]) -> None:
    config = GameConfig(num_players=n)
    py = new_game(config, seed=seed, backend="python")
    cpp = new_game(config, seed=seed, backend="native")
    policy = Rng(seed * 7 + n)
    step = 0
    while not py.is_terminal:
        if step % EVERY == 0 or py.phase in SPECIAL_PHASES:
            before = cpp.to_dict()
            for p in range(n):
                for s in range(SEEDS_PER_STATE):
                    seed_value = (seed << 20) + (step << 4) + (p << 1) + s
                    a, b = determinize(py, p, seed_value), determinize(cpp, p, seed_value)
                    assert type(b) is native.NativeGame and b is not cpp
                    da, db = a.to_dict(), b.to_dict()
                    assert db == da, f"{n}p seed {seed} decision {step} player {p}"
                    _note(py, da, p, seen)
            assert cpp.to_dict() == before  # the original is untouched
        legal = py.legal_actions()
        action = _hidden_rich(py, legal, policy)
        py.apply_action(action)
        cpp.apply_action(action)
        step += 1


def _note(g: Game, sample: dict, p: int, seen: dict[str, int]) -> None:  # type: ignore[type-arg]
    """Count what the compared states had and what the samples really changed."""
    seen["compared"] = seen.get("compared", 0) + 1
    marks = {
        "pending request": g.phase == Phase.PERMISSION,
        "revealed location": revealed_slot(g) >= 0,
        "persian viewer": bool(g.persian >> p & 1),
        "strengths moved": sample["at"] != g.at or sample["pool"] != g.pool,
        "request redrawn": g.phase == Phase.PERMISSION and sample["pending"] != g.pending,
        "specials redrawn": sample["special"] != g.special,
        "decks reshuffled": sample["loc_deck"] != g.loc_deck,
    }
    for name, hit in marks.items():
        if hit:
            seen[name] = seen.get(name, 0) + 1


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_native_determinize_equals_the_python_reference(n: int) -> None:
    seen: dict[str, int] = {}
    for seed in range(GAMES):
        _compare_game(n, 9_000 + seed, seen)
    missing = {
        "pending request",
        "revealed location",
        "persian viewer",
        "strengths moved",
        "request redrawn",
        "specials redrawn",
        "decks reshuffled",
    } - set(seen)
    assert not missing, f"never compared: {missing} ({seen})"
    assert seen["compared"] > 300


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_native_determinize_equals_the_python_reference_slow(n: int) -> None:
    seen: dict[str, int] = {}
    for seed in range(SLOW_GAMES):
        _compare_game(n, 200_000 + seed, seen)
    assert seen["compared"] > 10_000


def _state(n: int, seed: int, phase: Phase) -> tuple[Game, Game]:
    """Twin games (Python, native) at the first decision in ``phase``."""
    config = GameConfig(num_players=n)
    py = new_game(config, seed=seed, backend="python")
    cpp = new_game(config, seed=seed, backend="native")
    policy = Rng(seed)
    while py.phase != phase:
        assert not py.is_terminal, "phase never reached"
        action = _hidden_rich(py, py.legal_actions(), policy)
        py.apply_action(action)
        cpp.apply_action(action)
    return py, cpp


def test_every_rng_kind_draws_the_same_sample_on_both_backends() -> None:
    py, cpp = _state(4, 5, Phase.COMMIT)
    makers = (random.Random, np.random.default_rng, Rng, int)
    for make in makers:
        a, b = determinize(py, 2, make(42)), determinize(cpp, 2, make(42))
        assert a.to_dict() == b.to_dict(), make
    assert determinize(cpp, 2, 1 << 70).to_dict() == determinize(py, 2, 1 << 70).to_dict()
    assert determinize(cpp, 2, -5).to_dict() == determinize(py, 2, -5).to_dict()
    assert determinize(cpp, 2, np.int64(3)).to_dict() == determinize(py, 2, 3).to_dict()


def test_a_native_sample_plays_on_exactly_like_the_python_sample() -> None:
    """The sample is a whole game: both samples, played on with the same actions, stay
    identical to the end (the reseeded RNG included)."""
    for n, phase in ((3, Phase.PERMISSION), (4, Phase.BATTLE_SPECIAL), (5, Phase.COMMIT)):
        py, cpp = _state(n, 11, phase)
        a, b = determinize(py, 1, 77), determinize(cpp, 1, 77)
        play_in_lockstep(a, b, n)
        assert b.to_dict() == a.to_dict()


@pytest.mark.parametrize("player", (-1, 4, 9, 2**70))
def test_a_player_who_is_no_seat_is_refused_on_both_backends(player: int) -> None:
    py, cpp = _state(4, 3, Phase.COMMIT)
    before = cpp.to_dict()
    for g in (py, cpp):
        with pytest.raises(ValueError, match="not a seat"):
            determinize(g, player, 1)
    with pytest.raises(TypeError):
        determinize(cpp, "1", 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        determinize(cpp, 1, "seed")
    assert cpp.to_dict() == before


def test_an_edited_state_is_checked_before_it_reaches_cpp() -> None:
    """A state edited on the Python engine and loaded with from_python samples exactly like
    the Python engine's; an edit that breaks the state is refused at the load (the core
    never holds it), rather than sampled."""
    py, _ = _state(4, 8, Phase.COMMIT)
    py.loc_deck.reverse()
    cpp = native.NativeGame.from_python(py)
    assert determinize(cpp, 0, 5).to_dict() == determinize(py, 0, 5).to_dict()
    py.current = 3 if py.current != 3 else 2  # not the seat whose step it is
    with pytest.raises(InvalidStateError):
        native.NativeGame.from_python(py)
