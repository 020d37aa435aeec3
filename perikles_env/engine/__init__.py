"""The Perikles rules engine: standard library only, deterministic for a seed.

>>> from perikles_env.engine import GameConfig, new_game
>>> g = new_game(GameConfig(num_players=4), seed=7)
>>> while not g.is_terminal:
...     g.apply_action(g.legal_actions()[0])
>>> len(g.scores())
4
"""

from .actions import NUM_ACTIONS, action_to_str
from .factory import load_game, new_game
from .game import Game
from .interface import MAX_GAME_DECISIONS, GameInterface
from .invariants import InvariantError, check_invariants
from .phases import Phase
from .state import GameConfig

__all__ = [
    "NUM_ACTIONS",
    "MAX_GAME_DECISIONS",
    "Game",
    "GameConfig",
    "GameInterface",
    "InvariantError",
    "Phase",
    "action_to_str",
    "check_invariants",
    "load_game",
    "new_game",
]
