"""Fuzz ``Game.from_dict``: random corruptions of real saved states.

States come from seeded random games of 3, 4 and 5 players, a few from every decision phase
(and the end). Each corruption changes one thing the way a damaged or hand-edited file
would: a value (in range, off by one, far out), a type, a list's length, a dropped or an
unknown key, two items of a list or two fields swapped, one unit moved within a list.
Every corrupted state must either be rejected with ``InvalidStateError`` naming real
fields, or load and play on to the end under random legal actions with the invariants
holding after every action (a decision bound catches a game that never ends, a timer an
action that never returns). With the C++ core built, the states that load also play the
same game on it.
"""

from __future__ import annotations

import copy
import json
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import pytest

from perikles_env.engine import MAX_GAME_DECISIONS, Game, GameConfig, Phase, new_game
from perikles_env.engine.invariants import check_invariants, check_transition, relationship_snapshot
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidStateError

PLAYER_COUNTS = (3, 4, 5)
GAMES_PER_COUNT = 6  # source games per player count
STATES_PER_PHASE = 4  # saved states kept per (player count, phase)
CORRUPTIONS = 600  # per test chunk below
CHUNKS = 2
SECONDS_PER_STATE = 10  # generous: a clean play-on takes milliseconds
_KINDS = ("value", "value", "value", "type", "length", "drop", "add", "swap_items", "swap", "move")
_ODD_VALUES: tuple[Any, ...] = ("x", 1.5, None, True, False, [], {}, [0], -(1 << 70))


class _Timeout(Exception):
    pass


@contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Raise _Timeout if the block runs longer (an action that never returns)."""
    assert threading.current_thread() is threading.main_thread(), "signals need the main thread"

    def handler(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@cache
def _states() -> list[dict[str, Any]]:
    """A few JSON round-tripped states per (player count, phase) from seeded random games."""
    out: list[dict[str, Any]] = []
    for n in PLAYER_COUNTS:
        by_phase: dict[Phase, list[dict[str, Any]]] = {}
        for seed in range(GAMES_PER_COUNT):
            g = new_game(GameConfig(num_players=n), seed=seed)
            policy = Rng(seed)
            while True:
                kept = by_phase.setdefault(g.phase, [])
                if len(kept) < STATES_PER_PHASE * 8:
                    kept.append(json.loads(json.dumps(g.to_dict())))
                if g.is_terminal:
                    break
                g.apply_action(policy.choice(g.legal_actions()))
        pick = Rng(n)
        for states in by_phase.values():
            for _ in range(min(STATES_PER_PHASE, len(states))):
                out.append(states.pop(pick.randrange(len(states))))
    return out


def _new_value(old: Any, rng: Rng) -> Any:
    if isinstance(old, bool):
        return rng.choice([not old, 0, 1])
    if isinstance(old, int):
        return rng.choice(
            [old - 1, old + 1, -1, 0, 1, 2, 3, 4, 5, 7, 99, old * 2, rng.randrange(60)]
        )
    if isinstance(old, str):
        return rng.choice([*Phase.__members__, "perikles-state-2", ""])
    return rng.choice(list(_ODD_VALUES))


def _corrupt(d: dict[str, Any], rng: Rng) -> tuple[dict[str, Any], str]:
    """One random corruption of a copy of ``d`` and a description of it."""
    d = copy.deepcopy(d)
    kind = rng.choice(list(_KINDS))
    name = rng.choice(sorted(d))
    value = d[name]
    if kind in ("value", "type"):
        make = _new_value if kind == "value" else (lambda old, r: r.choice(list(_ODD_VALUES)))
        if isinstance(value, list) and value:
            i = rng.randrange(len(value))
            d[name][i] = make(value[i], rng)
            return d, f"{kind} {name}[{i}] -> {d[name][i]!r}"
        d[name] = make(value, rng)
        return d, f"{kind} {name} -> {d[name]!r}"
    if kind == "length" and isinstance(value, list):
        if value and rng.randrange(2):
            value.pop(rng.randrange(len(value)))
            return d, f"{name}: one item removed"
        value.insert(rng.randrange(len(value) + 1), rng.choice(value) if value else 0)
        return d, f"{name}: one item added"
    if kind == "swap_items" and isinstance(value, list) and len(value) > 1:
        i, j = rng.randrange(len(value)), rng.randrange(len(value))
        value[i], value[j] = value[j], value[i]
        return d, f"{name}[{i}] <-> [{j}]"
    if kind == "move" and isinstance(value, list) and value and type(value[0]) is int:
        i, j = rng.randrange(len(value)), rng.randrange(len(value))
        value[i] -= 1  # one unit moved: totals kept, so conservation alone cannot catch it
        value[j] += 1
        return d, f"{name}[{i}] -1, [{j}] +1"
    if kind == "swap":
        other = rng.choice(sorted(d))
        d[name], d[other] = d[other], d[name]
        return d, f"{name} <-> {other}"
    if kind == "add":
        d[f"extra_{name}"] = value
        return d, f"unknown key extra_{name}"
    del d[name]
    return d, f"{name} dropped"


def _play_on(g: Game, rng: Rng) -> None:
    """Random legal actions to the end; invariants after each action."""
    for _ in range(MAX_GAME_DECISIONS):
        if g.is_terminal:
            return
        legal = g.legal_actions()
        assert legal, f"no legal action in {g.phase.name}"
        before = relationship_snapshot(g)
        g.apply_action_checked(rng.choice(legal))
        check_invariants(g)
        check_transition(before, g)
    raise AssertionError(f"no end after {MAX_GAME_DECISIONS} decisions")


def _unknown_fields(error: InvalidStateError, keys: set[str]) -> set[str]:
    """Names in ``error.field`` (``a/b[3]/...``) that are not keys of the state."""
    names = {part.split("[")[0] for part in error.field.split("/")}
    return names - keys - {"state"}


def _load_and_play(bad: dict[str, Any], keys: set[str], rng: Rng) -> str:
    try:
        g = Game.from_dict(bad)
    except InvalidStateError as e:
        assert not _unknown_fields(e, keys), f"the error names no field of the state: {e}"
        return "rejected"
    assert g.to_dict() == bad, "loading changed the state"
    _play_on(g, rng)
    return "played"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_corrupted_states_are_rejected_or_play_on_cleanly(chunk: int) -> None:
    rng = Rng(7_000 + chunk)
    outcomes = {"rejected": 0, "played": 0}
    for i in range(CORRUPTIONS):
        source = _states()[rng.randrange(len(_states()))]
        bad, what = _corrupt(source, rng)
        where = f"chunk {chunk} case {i} ({source['n']}p {source['phase']}): {what}"
        try:
            with _time_limit(SECONDS_PER_STATE):
                outcomes[_load_and_play(bad, set(source) | set(bad), Rng(i))] += 1
        except _Timeout:
            pytest.fail(f"{where}: still running after {SECONDS_PER_STATE} s (endless loop?)")
        except Exception as e:  # noqa: BLE001 - any failure after loading is the bug we hunt
            raise AssertionError(f"{where}: {type(e).__name__}: {e}") from e
    # Both outcomes occur: harmless edits (a swap of equal values, an in-range change of a
    # field the future does not read) load, and most edits are caught.
    assert outcomes["rejected"] > CORRUPTIONS // 2, outcomes
    assert outcomes["played"] > 0, outcomes


def test_source_states_cover_every_phase_and_load() -> None:
    """The fuzz starts from every phase (and the end) of 3-, 4- and 5-player games, and each
    unchanged state loads byte-identical."""
    phases = {(d["n"], d["phase"]) for d in _states()}
    for n in PLAYER_COUNTS:
        assert {p for m, p in phases if m == n} == set(Phase.__members__)
    for d in _states():
        assert json.dumps(Game.from_dict(d).to_dict()) == json.dumps(d)


def test_accepted_corruptions_play_the_same_on_the_native_engine() -> None:
    """The C++ core loads through the same validation (``NativeGame.from_dict``): every
    corrupted state that loads plays the same random game on both engines."""
    native = pytest.importorskip("perikles_env.engine.native", reason="C++ core not built")
    rng = Rng(9_000)
    compared = 0
    for i in range(CORRUPTIONS // 2):
        source = _states()[rng.randrange(len(_states()))]
        bad, what = _corrupt(source, rng)
        try:
            python = Game.from_dict(bad)
        except InvalidStateError:
            continue
        where = f"case {i} ({source['n']}p {source['phase']}): {what}"
        with _time_limit(SECONDS_PER_STATE):
            cpp = native.NativeGame.from_dict(bad)
            policy = Rng(i)
            while not python.is_terminal:
                legal = python.legal_actions()
                assert cpp.legal_actions() == legal, f"{where}: legal actions differ"
                action = policy.choice(legal)
                python.apply_action(action)
                cpp.apply_action(action)
            assert cpp.to_dict() == python.to_dict(), f"{where}: final states differ"
        compared += 1
    assert compared > 0
