"""Shared tools of tests/native: twin games (Python reference + C++ core) and comparisons.

The suite is skipped where the C++ core is not built, unless ``PERIKLES_REQUIRE_NATIVE=1``
(``make test`` and ``.ci/run`` set it): then a missing or stale build fails collection.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine.backend import native_error
from perikles_env.engine.rng import Rng
from perikles_env.engine.state import STATE_FIELDS


def require_native() -> Any:
    """The ``perikles_env.engine.native`` module, or skip (fail when it is required)."""
    error = native_error()
    if error:
        if os.environ.get("PERIKLES_REQUIRE_NATIVE") == "1":
            raise ImportError(f"PERIKLES_REQUIRE_NATIVE=1 but the C++ core is unusable: {error}")
        pytest.skip(f"C++ core not built: {error}", allow_module_level=True)
    from perikles_env.engine import native

    return native


def unvalidated_twin(game: Game) -> Any:
    """A C++ copy of a hand-built Python state that the validator may refuse (scenario
    builders jump between phases without conserving tiles): loaded through the core's
    private range-checked loader, which no product path uses (they all validate first)."""
    native = require_native()
    values = [
        int(game.phase) if name == "phase" else game.rng.state if name == "rng"
        else getattr(game, name)
        for name in native._NAMES
    ]
    return native.wrap_engine(native.extension.Engine.load(values), list(game.event_log))


STATE_KEYS = tuple(f for f in STATE_FIELDS if f != "events")

# (python game, legal actions, policy rng) -> action
Policy = Callable[[Game, list[int], Rng], int]


def uniform(g: Game, legal: list[int], rng: Rng) -> int:
    return legal[rng.randrange(len(legal))]


def state_of(g: Game) -> dict[str, Any]:
    """Every state field but the event log (compared incrementally), plus the RNG."""
    out = {name: getattr(g, name) for name in STATE_KEYS}
    out["rng"] = g.rng.state
    return out


def assert_same_state(py: Game, cpp: Game, where: str) -> None:
    a, b = state_of(py), state_of(cpp)
    if a != b:
        diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
        raise AssertionError(f"{where}: states differ (python, native): {diff}")


@dataclass
class Coverage:
    """What a batch of games went through: to prove rare paths were really compared."""

    games: int = 0
    decisions: int = 0
    phases: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    details: set[tuple[Any, ...]] = field(default_factory=set)

    def note_event(self, e: tuple[Any, ...]) -> None:
        self.events.add(e[0])
        if e[0] == "special":
            self.details.add(("special", e[2]))
        elif e[0] == "round":
            self.details.add(("round", e[-1]))
        elif e[0] in ("unclaimed", "slave_revolt"):
            self.details.add((e[0], e[-2] if e[0] == "slave_revolt" else e[-1]))
        elif e[0] == "permission":
            self.details.add(("permission", e[-1]))


def play_twins(
    native: Any,
    n: int,
    seed: int,
    policy: Policy = uniform,
    coverage: Coverage | None = None,
    state_every: int = 1,
    record_events: bool = True,
) -> tuple[Game, Game]:
    """Play one game on both engines with the same actions, comparing the legal list every
    decision, the full state every ``state_every`` decisions and the new events after every
    action; at the end the whole ``to_dict()`` (events included), scores and winners."""
    config = GameConfig(num_players=n, record_events=record_events)
    py = new_game(config, seed=seed, backend="python")
    cpp = new_game(config, seed=seed, backend="native")
    assert type(cpp) is native.NativeGame
    rng = Rng(1_000_003 * seed + n)
    where = f"{n}p seed {seed}"
    assert_same_state(py, cpp, f"{where} new")
    assert cpp.event_log == py.events
    step = 0
    while not py.is_terminal:
        legal = py.legal_actions()
        assert cpp.legal_actions() == legal, f"{where} decision {step} ({py.phase.name})"
        assert cpp.current_player == py.current_player and not cpp.is_terminal
        if coverage is not None:
            coverage.phases.add(py.phase.name)
        action = policy(py, legal, rng)
        before = len(py.events)
        py.apply_action(action)
        cpp.apply_action(action)
        step += 1
        new = py.events[before:]
        assert cpp.event_log[before:] == new, f"{where} decision {step}: events differ"
        if coverage is not None:
            for e in new:
                coverage.note_event(e)
        if step % state_every == 0:
            assert_same_state(py, cpp, f"{where} decision {step}")
    assert cpp.is_terminal and cpp.current_player is None and cpp.legal_actions() == []
    assert cpp.to_dict() == py.to_dict(), f"{where}: final to_dict differs"
    assert cpp.scores() == py.scores() and cpp.winners() == py.winners()
    if coverage is not None:
        coverage.games += 1
        coverage.decisions += step
    return py, cpp


def play_in_lockstep(lead: Any, follow: Any, seed: int) -> None:
    """Play ``lead`` and ``follow`` to the end with the same uniformly random actions
    (``Rng(seed)`` over ``lead``'s legal actions), asserting at each step that ``follow``
    offers the same legal actions."""
    policy = Rng(seed)
    while not lead.is_terminal:
        legal = lead.legal_actions()
        assert follow.legal_actions() == legal
        action = legal[policy.randrange(len(legal))]
        lead.apply_action(action)
        follow.apply_action(action)


def run_in_threads(*targets: Callable[[], None]) -> None:
    """Run each target in its own thread, all at once, and wait for every one."""
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
