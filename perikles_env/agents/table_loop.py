"""The one table loop: every place that plays seats against each other on an engine game
moves through here (the evaluator, pretraining, agreement, war profiles, the search warm
start, expert self-play, the single-agent ``Table``, the terminal game), and every single
agent decision goes through ``decide`` (also the OpenSpiel bots and the web game), so
seating, generators, timing, legality and records mean the same thing everywhere.

* **Seats.** ``seats[p]`` is an ``Agent`` (it decides through ``act_state`` on
  ``game_for``'s game: a copy unless it only reads), a *chooser* ``(game, player, rng) ->
  action`` (a teacher that records what it saw, a human reading input; it returns None to
  stop the loop, e.g. a human who quits), or None: a seat played outside the loop (a
  learner, a batched search), at whose turn the loop pauses.
* **Generators.** ``rngs`` is one ``numpy`` generator that every seat draws from in turn,
  or one per seat; the loop passes each decision its seat's generator and draws nothing
  itself, so a caller's seeding fixes the games.
* **Order of a turn**: the end checks (terminal, the caller's ``ended`` hook, then, with
  ``stop_at_truncation``, this loop's ``max_decisions`` and ``Game.is_truncated``); with
  ``skip_forced`` a single legal action is applied without asking the seat; ``before``;
  the decision (timed with ``timed``); ``on_decision``; the legality check; the move.
* **Illegal choices** (``check``): ``TRUST`` applies the id unchecked (agents known to be
  legal, the fast path of the training tools); ``ENGINE`` applies through
  ``Game.apply_action_checked`` (an ``IllegalActionError`` that changes nothing);
  ``FORFEIT`` stops with ``forfeit`` set to the seat (the evaluator ranks it last);
  ``RAISE`` raises ``AgentError`` naming the seat, also for an ``IllegalActionError`` from
  inside the decision (an agent bug, never taken for a learner's illegal action).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import NUM_ACTIONS
from ..errors import IllegalActionError, InvalidConfigError
from .base import Agent, AgentError, check_plays, game_for

if TYPE_CHECKING:
    from ..engine.game import Game

#: a seat's decision function: the action for ``player`` (None: stop the loop here)
Chooser = Callable[["Game", int, np.random.Generator], Any]
#: what may sit at a table: an agent, a chooser, or None (played outside the loop)
Seat = Agent | Chooser | None

TRUST, ENGINE, FORFEIT, RAISE = "trust", "engine", "forfeit", "raise"
CHECKS = (TRUST, ENGINE, FORFEIT, RAISE)


def decide(agent: Agent, game: Game, player: int, rng: np.random.Generator,
           private: bool = False) -> Any:
    """``agent``'s choice for ``player``: on ``game_for``'s game, or on ``game`` itself when
    it is already the caller's own copy (``private``, e.g. one handed to a thread). An
    agent that cannot play this player count is refused (``check_plays``)."""
    check_plays(agent, game.n)
    return agent.act_state(game if private else game_for(agent, game), player, rng)


def action_id_of(action: Any) -> int | None:
    """The action id in ``action`` (an int, a numpy integer, or an integer array of shape
    ``()`` or ``(1,)``); None for anything else (floats, strings, bools, other shapes)."""
    if isinstance(action, np.ndarray):
        if action.shape not in ((), (1,)) or action.dtype.kind not in "iu":
            return None
        action = action.reshape(())[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return None
    return int(action)


def action_str(game: Game, action: Any) -> str:
    """``action`` as the engine names it, or its ``repr`` when it is no action id."""
    action_id = action_id_of(action)
    if action_id is None or not 0 <= action_id < NUM_ACTIONS:
        return repr(action)
    return game.action_to_str(action_id)


@dataclass
class Decision:
    """One seat's choice as ``on_decision`` sees it: before it is checked and applied
    (``action`` is what the seat returned); the seconds are 0 unless the loop is timed."""

    player: int
    action: Any
    seconds: float = 0.0
    cpu_seconds: float = 0.0


def _agent_chooser(agent: Agent) -> Chooser:
    """``decide`` for one agent, with its copy-or-not settled once."""
    act = agent.act_state
    if agent.read_only:
        return act
    return lambda game, player, rng: act(game.clone(), player, rng)


class TableLoop:
    """One game played by its seats (module docstring). Making a loop resets the seats'
    agents (a new game); ``run`` plays until the game ends, a seat pauses or forfeits."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[Seat],
        rngs: np.random.Generator | Sequence[np.random.Generator],
        *,
        check: str = TRUST,
        names: Sequence[str] | None = None,
        stop_at_truncation: bool = True,
        max_decisions: int | None = None,
        skip_forced: bool = False,
        timed: bool = False,
        keep_actions: bool = False,
        before: Callable[[Game, int], object] | None = None,
        on_decision: Callable[[Decision], object] | None = None,
        apply: Callable[[int], object] | None = None,
        ended: Callable[[], bool] | None = None,
    ) -> None:
        if len(seats) != game.n:
            raise InvalidConfigError(f"a {game.n}-player game needs {game.n} seats, got {seats!r}")
        for seat in seats:
            if isinstance(seat, Agent):
                check_plays(seat, game.n)
        if check not in CHECKS:
            raise InvalidConfigError(f"check must be one of {CHECKS}, got {check!r}")
        self.game = game
        self.seats = list(seats)
        self._choosers: list[Chooser | None] = [
            _agent_chooser(s) if isinstance(s, Agent) else s for s in self.seats
        ]
        # a chooser's None stops the loop; an agent's None is an illegal choice
        self._may_stop = [not isinstance(s, Agent) for s in self.seats]
        if isinstance(rngs, np.random.Generator):
            self.rngs = [rngs] * game.n
        elif (
            isinstance(rngs, Sequence)
            and len(rngs) == game.n
            and all(isinstance(r, np.random.Generator) for r in rngs)
        ):
            self.rngs = list(rngs)
        else:
            raise InvalidConfigError(
                f"rngs: one numpy Generator or one per seat ({game.n}), got {rngs!r}"
            )
        self.names = list(names) if names is not None else [
            s.describe() if isinstance(s, Agent) else f"seat {p}" for p, s in enumerate(seats)
        ]
        self.check = check
        self.stop_at_truncation = stop_at_truncation
        self.max_decisions = max_decisions
        self.skip_forced = skip_forced
        self.timed = timed
        self.keep_actions = keep_actions
        #: the moves applied by this loop, in order (with ``keep_actions``)
        self.actions: list[int] = []
        self._before = before
        self._on_decision = on_decision
        self._apply = apply
        self._ended = ended
        #: moves applied at this table (the loop's, and those the caller counts in)
        self.decisions = 0
        #: the seat that chose an illegal action under ``FORFEIT`` (-1: none)
        self.forfeit = -1
        for agent in {id(s): s for s in self.seats if isinstance(s, Agent)}.values():
            agent.reset()

    @property
    def over(self) -> bool:
        """The game ended, the ``ended`` hook says so, a seat forfeited, or (with
        ``stop_at_truncation``) the table's or the engine's decision limit is reached."""
        game = self.game
        if game.is_terminal or self.forfeit >= 0 or (self._ended is not None and self._ended()):
            return True
        return self.stop_at_truncation and (
            game.is_truncated
            or (self.max_decisions is not None and self.decisions >= self.max_decisions)
        )

    def run(self) -> int:
        """Play until the table is over or a seat pauses (a None seat's turn, or a chooser
        that returned None); returns the moves applied."""
        game, choosers, rngs = self.game, self._choosers, self.rngs
        before, on_decision, ended = self._before, self._on_decision, self._ended
        apply = game.apply_action if self._apply is None else self._apply
        limit = self.max_decisions
        cut, timed, check = self.stop_at_truncation, self.timed, self.check
        start = self.decisions
        while not game.is_terminal and not (ended is not None and ended()):
            if cut and (game.is_truncated or (limit is not None and self.decisions >= limit)):
                break
            p = game.current
            if self.skip_forced:
                legal = game.legal_actions()
                if len(legal) == 1:
                    apply(legal[0])
                    self._moved(legal[0])
                    continue
            choose = choosers[p]
            if choose is None:
                break  # a seat played outside the loop decides
            if before is not None:
                before(game, p)
            if timed:
                t0, c0 = time.perf_counter(), time.process_time()
            try:
                chosen = choose(game, p, rngs[p])
            except IllegalActionError as exc:
                if check != RAISE:
                    raise
                raise AgentError(f"agent {self.names[p]!r} at seat {p} failed: {exc}") from exc
            if on_decision is not None:
                if timed:
                    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
                    on_decision(Decision(p, chosen, seconds, cpu))
                else:
                    on_decision(Decision(p, chosen))
            if chosen is None and self._may_stop[p]:
                break  # the seat stops the game here (a human who quits)
            if check == TRUST:
                action = int(chosen)
                apply(action)
            elif check == ENGINE:
                game.apply_action_checked(chosen)
                action = int(chosen)
            elif check == FORFEIT:
                if not isinstance(chosen, (int, np.integer)) or not game.is_legal(int(chosen)):
                    self.forfeit = p
                    break
                action = int(chosen)
                apply(action)
            else:
                action = chosen if type(chosen) is int else action_id_of(chosen)
                if action is None or not game.is_legal(action):
                    raise AgentError(
                        f"agent {self.names[p]!r} at seat {p} chose illegal action {chosen!r} "
                        f"({action_str(game, chosen)}) in phase {game.phase.name}"
                    )
                apply(action)
            self._moved(action)
        return self.decisions - start

    def _moved(self, action: int) -> None:
        self.decisions += 1
        if self.keep_actions:
            self.actions.append(action)
