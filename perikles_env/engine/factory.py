"""Which engine a new or loaded game runs on: the C++ core (``native.py``) or the Python
reference (``game.py``), siblings behind one ``interface.GameInterface``. This module sits
above both, so neither imports the other's chooser; ``backend.py`` resolves the
``backend`` option.

>>> from perikles_env.engine import GameConfig, new_game
>>> g = new_game(GameConfig(num_players=3), seed=1, backend="python")
>>> g.n
3
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .backend import use_native
from .game import Game, checked_seed
from .interface import GameInterface
from .state import GameConfig

if TYPE_CHECKING:
    from .native import NativeGame


def new_game(
    config: GameConfig | None = None, seed: int | None = 0, backend: str | None = None
) -> GameInterface:
    """A new game. ``seed`` is an int in 0..2**64-1, or None for a fresh random seed;
    ``backend`` is "python" (the reference engine), "native" (the C++ core, an error if not
    built), "auto" (native when built, else Python with one warning) or None
    (``$PERIKLES_BACKEND``, else "auto"). Both engines give the same game for the same seed
    and actions."""
    config = config or GameConfig()
    seed = checked_seed(seed)
    if not use_native(backend):
        return Game.new(config, seed)
    from .native import new_native

    return new_native(config, seed)


def load_game(d: dict[str, Any], backend: str | None = None) -> GameInterface:
    """The state ``Game.to_dict`` wrote, validated (``InvalidStateError`` names a bad field),
    on the chosen backend (see ``new_game``)."""
    if not use_native(backend):
        return Game.from_dict(d)  # type: ignore[no-any-return]
    from .native import NativeGame

    return NativeGame.from_dict(d)


def on_native_core(game: GameInterface) -> NativeGame:
    """``game`` on the C++ core, for the C++ search: itself, or a validated C++ copy of a
    Python game (ImportError when the core is not built). Here, above both engines, since
    the Python engine does not import the C++ one."""
    from .native import NativeGame

    return game if isinstance(game, NativeGame) else NativeGame.from_dict(game.to_dict())
