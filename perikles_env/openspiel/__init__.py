"""Perikles for OpenSpiel (needs the ``openspiel`` extra): importing this package registers
the game ``python_perikles`` with ``pyspiel``, so ``pyspiel.load_game("python_perikles")``
works; ``PeriklesAgentBot`` plays any project agent as an OpenSpiel bot, and
``LeafValueEvaluator`` gives OpenSpiel's MCTS / IS-MCTS bots the project's search-leaf
values. docs/ecosystem.md has examples and known limits.
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as exc:  # the optional extra is missing: say which one
    raise ImportError(
        "perikles_env.openspiel needs OpenSpiel: pip install 'perikles_env[openspiel]'"
    ) from exc

from .bots import LeafValueEvaluator, PeriklesAgentBot
from .game import GAME_TYPE, SHORT_NAME, PeriklesGame, PeriklesState

if SHORT_NAME not in {g.short_name for g in pyspiel.registered_games()}:
    pyspiel.register_game(GAME_TYPE, PeriklesGame)

__all__ = [
    "GAME_TYPE",
    "SHORT_NAME",
    "LeafValueEvaluator",
    "PeriklesAgentBot",
    "PeriklesGame",
    "PeriklesState",
]
