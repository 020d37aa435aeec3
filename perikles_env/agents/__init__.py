"""Baseline agents for Perikles and the protocol they share (docs/agents.md).

``make_agent("heuristic:aggression=0.8")`` builds an agent from a registry spec; names:
``random``, ``heuristic``, ``ismcts``, ``ppo:<path>``. Every agent has
``act(observation, action_mask, rng) -> int``; engine-level agents also have
``act_state(game, player, rng) -> int`` and see only what that player may know. Games
between agents are played by the one table loop (``TableLoop``, ``decide``: table_loop.py).
"""

from ..analysis.view import PlayerView
from .base import Agent, AgentError, check_plays, game_for
from .heuristic import HeuristicAgent, HeuristicParams
from .random_agent import RandomAgent
from .registry import agent_names, make_agent, parse_spec, register_agent, split_specs
from .table_loop import Decision, TableLoop, decide

__all__ = [
    "Agent",
    "AgentError",
    "Decision",
    "HeuristicAgent",
    "HeuristicParams",
    "PlayerView",
    "RandomAgent",
    "agent_names",
    "check_plays",
    "game_for",
    "make_agent",
    "parse_spec",
    "register_agent",
    "TableLoop",
    "decide",
    "split_specs",
]
