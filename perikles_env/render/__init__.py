"""Pictures of the board: SVG drawn from what one observer may know (``svg``), and its
rasterisation to an RGB array (``raster``, needs the ``render`` extra); the game in words
(``narrate``). Importing the package loads no third-party module: only rasterising does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.game import Game
from .svg import HEIGHT, PLAYER_COLOURS, WIDTH, board_sections, board_svg, svg_document

if TYPE_CHECKING:
    import numpy as np


def board_rgb(
    game: Game, viewer: int | None = None, scale: float = 1.0, caption: str = ""
) -> np.ndarray:
    """The board as an ``H x W x 3`` uint8 array (``H, W = 820, 1200`` at scale 1);
    ``caption`` as in ``board_svg``."""
    from .raster import svg_to_rgb

    return svg_to_rgb(board_svg(game, viewer, caption=caption), scale)


__all__ = [
    "HEIGHT",
    "PLAYER_COLOURS",
    "WIDTH",
    "board_rgb",
    "board_sections",
    "board_svg",
    "svg_document",
]
