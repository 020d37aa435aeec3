"""The learner's table: a game whose learner seats are played by the caller and whose
other seats by agents inside the env (moved by the one table loop, ``agents/table_loop.py``),
as OpenSpiel's ``rl_environment`` steps a game for its learners. The single-agent env and
the RLlib env step through a ``LearnerTable``; what they add (observations, spaces, rewards from
``environment/rewards.py``) is theirs.

* **Turns** follow the engine (``Game.current``, interrupts included). ``play_agents()``
  lets the agent seats move (the loop's ``run``) until a learner seat must decide or the
  table is over; each agent decides through ``act_state`` on ``game_for``'s game (a copy
  unless it only reads) with the table's generator, so a seeded generator gives the same
  games.
* **Learner moves**: ``step(action)`` applies one, then plays the agents. An action that is
  not a legal id now raises ``IllegalActionError`` and changes nothing (never replaced);
  an adapter turns that into its own documented outcome (a penalty, an error).
* **An agent's illegal move** (or an ``IllegalActionError`` inside its decision) raises
  ``AgentError`` naming the agent and the seat: an agent bug, never a move to skip or
  replace, and never taken for the learner's illegal action.
* **Ends**: ``terminated`` (the game is over, or an ``ended`` hook says the adapter ended
  it, e.g. with a penalty) or ``truncated`` (unfinished after ``max_decisions`` decisions
  of this table, or at the engine's limit, ``Game.is_truncated``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..agents import Agent, TableLoop, make_agent
from ..agents.table_loop import RAISE, action_id_of, action_str
from ..engine import MAX_GAME_DECISIONS, NUM_ACTIONS, Game

__all__ = ["LEARNER", "AgentCache", "LearnerTable", "action_id_of", "action_str"]

LEARNER = "learner"  # the spec of a seat the caller plays


def _why_illegal(action_id: int | None) -> str:
    if action_id is None:
        return "an action is an integer id"
    if not 0 <= action_id < NUM_ACTIONS:
        return f"action id out of range 0..{NUM_ACTIONS - 1}"
    return "not legal now"


class AgentCache:
    """One agent per spec, made on first use and kept across games (a network loads once)
    until ``keep`` drops the specs that left the pool."""

    def __init__(self) -> None:
        self._agents: dict[str, Agent] = {}

    def __call__(self, spec: str) -> Agent:
        agent = self._agents.get(spec)
        if agent is None:
            agent = self._agents[spec] = make_agent(spec)
        return agent

    def keep(self, specs: Iterable[str]) -> None:
        kept = set(specs)
        for spec in [s for s in self._agents if s not in kept]:
            del self._agents[spec]

    def clear(self) -> None:
        self._agents.clear()


class LearnerTable:
    """One game: ``specs[seat]`` is ``LEARNER`` or the spec of the agent (from ``agents``)
    that plays that seat. Making a table resets its agents (a new game).

    ``apply`` applies an action to the game (default ``Game.apply_action``, after the
    table's own check); an adapter that keeps its own bookkeeping passes its step here and
    then checks the learner's actions itself (the RLlib env passes the AEC env's)."""

    def __init__(
        self,
        game: Game,
        specs: Sequence[str],
        agents: Callable[[str], Agent],
        rng: np.random.Generator,
        max_decisions: int = MAX_GAME_DECISIONS,
        apply: Callable[[int], Any] | None = None,
        ended: Callable[[], bool] | None = None,
    ) -> None:
        if len(specs) != game.n:
            raise ValueError(f"a {game.n}-player game needs {game.n} seat specs, got {specs!r}")
        self.game = game
        self.specs = list(specs)
        self.rng = rng
        self.max_decisions = max_decisions
        self._apply = apply
        self._ended = ended
        seats = [None if spec == LEARNER else agents(spec) for spec in self.specs]
        self._loop = TableLoop(
            game, seats, rng, check=RAISE, names=self.specs, max_decisions=max_decisions,
            apply=apply, ended=ended,
        )

    @property
    def decisions(self) -> int:
        """Decisions made at this table, learners' and agents'."""
        return self._loop.decisions

    # ---- ends -----------------------------------------------------------------------

    @property
    def terminated(self) -> bool:
        return self.game.is_terminal or (self._ended is not None and self._ended())

    @property
    def truncated(self) -> bool:
        """Unfinished at this table's decision limit or the engine's."""
        return not self.terminated and (
            self.decisions >= self.max_decisions or self.game.is_truncated
        )

    @property
    def over(self) -> bool:
        game = self.game
        if game.is_terminal or (self._ended is not None and self._ended()):
            return True
        return self.decisions >= self.max_decisions or game.is_truncated

    # ---- moves ----------------------------------------------------------------------

    def step(self, action: Any) -> int:
        """The learner's ``action``, then the agents' moves (``play_agents``); returns the
        decisions made. ``IllegalActionError`` before anything moves for an action that is
        not a legal id now (unless an ``apply`` hook checks it) or once the table is over;
        it comes from nowhere else (an agent's failure is an ``AgentError``)."""
        game = self.game
        if self._apply is None:
            action_id = action if type(action) is int else action_id_of(action)
            over = self.over
            if action_id is None or over or not game.is_legal(action_id):
                why = "the table is over" if over else _why_illegal(action_id)
                raise game.illegal_action_error(action, why)
            game.apply_action(action_id)
        elif self.over:
            raise game.illegal_action_error(action, "the table is over")
        else:
            self._apply(action)
        self._loop.decisions += 1
        return 1 + self.play_agents()

    def play_agents(self) -> int:
        """Let the agent seats move until a learner seat must decide or the table is over;
        returns the decisions made."""
        return self._loop.run()
