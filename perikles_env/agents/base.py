"""The agent protocol shared by every baseline and learned policy.

Every agent implements ``act(observation, action_mask, rng) -> int``: the action id for the
player whose observation it is, chosen among the ids the mask allows. Agents that play at
the engine level (the heuristic, IS-MCTS) also implement ``act_state(game, player, rng)``;
they must use only what ``player`` may know (docs/rules.md section F): the heuristic reads the
game through a ``PlayerView``, IS-MCTS through ``determinize``. Callers that hold an engine
``Game`` (the evaluator) prefer ``act_state`` when an agent has it.

``rng`` is a ``numpy.random.Generator`` owned by the caller: all of an agent's randomness
comes from it, so a fixed seed gives a fixed decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import PeriklesError
from .tiebreak import draw_seed, tie_break

if TYPE_CHECKING:
    from ..engine.game import Game


class AgentError(PeriklesError, ValueError):
    """An agent was asked something it cannot do (bad spec, no engine state, ...)."""


class Agent:
    """Base class: subclasses override ``act`` and, for engine-level play, ``act_state``."""

    #: registry name (``random``, ``heuristic``, ...)
    name = "agent"
    #: True when ``act_state`` is implemented
    uses_state = False
    #: True when ``act_state`` never changes the game it is given, so callers may hand it
    #: the live game instead of a copy (``game_for``): one clone less per decision, and on
    #: the C++ core the field copies a ``NativeGame`` caches stay warm between decisions
    read_only = False
    #: the player counts this agent can play (a network trained for one count plays only
    #: that one): tables and tools refuse the others up front
    supported_players: tuple[int, ...] = (3, 4, 5)

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        raise AgentError(f"agent {self.name!r} cannot act from an observation")

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        raise AgentError(f"agent {self.name!r} cannot act from an engine state")

    def reset(self) -> None:
        """Forget anything remembered from an earlier game (called before each game)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"

    def describe(self) -> str:
        """The registry spec that recreates this agent."""
        return self.name


def check_plays(agent: Agent, players: int) -> None:
    """Refuse, in one line, a table of ``players`` that ``agent`` cannot play (a network
    trained for one player count): every tool checks before its first game."""
    if players not in agent.supported_players:
        counts = " or ".join(map(str, agent.supported_players))
        raise AgentError(
            f"agent {agent.describe()!r} plays only {counts}-player games, not {players}"
        )


def game_for(agent: Agent, game: Game) -> Game:
    """What to pass ``agent.act_state``: the game itself when the agent only reads it
    (``Agent.read_only``), else a copy, so that no agent can change the real game."""
    return game if agent.read_only else game.clone()


def legal_from_mask(action_mask: np.ndarray) -> np.ndarray:
    """Indices of allowed actions; raises AgentError on an empty mask."""
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise AgentError("the action mask allows no action (is the game over?)")
    return legal


def mask_from_legal(legal: list[int], size: int) -> np.ndarray:
    mask = np.zeros(size, dtype=np.int8)
    mask[legal] = 1
    return mask


def pick_best(scores: list[float], rng: np.random.Generator, noise: float = 0.0) -> int:
    """Index of the highest score; exact ties (and noise, if any) drawn with the
    tie-breaking contract (``agents/tiebreak.py``) from one seed of ``rng``."""
    return tie_break(scores, draw_seed(rng), noise)
