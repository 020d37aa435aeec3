"""Where each move target lies on the SVG board (``render.svg``'s layout), and the layer of
clickable rectangles the page lays over the board for the moves a seat can make.

The rectangles follow the drawing's own boxes (tests/web/test_payload.py checks each one
against a rectangle of the rendered board), so a click lands on the thing it chooses.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from ..render import svg as L
from ..render.svg import Box


def box(target: str, players: int, viewer: int) -> Box | None:
    """The board rectangle of a move target (see ``moves``), or None if it has none: the
    drawing's own box (``render.svg``'s layout), with a margin where the thing is small."""
    kind, *args = target.split(":")
    n = [int(a) for a in args]
    if kind == "tile":
        return L.tile_box(n[0])
    if kind == "city":
        return L.city_box(n[0])
    if kind == "row":
        x, y, w, _ = L.city_box(n[0])
        return (x + 4, y + L.CUBE_ROWS_TOP - 1 + n[1] * L.CUBE_ROW_STEP, w - 8,
                L.CUBE_ROW_STEP - 1)
    if kind == "cand":
        x, y, w, h = L.candidate_chip(n[0], n[1])
        return (x - 2, y - 2, w + 4, h + 4)
    if kind == "loc":
        x, y, _, h = L.location_box(n[0])
        return (x, y, L.side_box(n[0], 0)[0] - 4 - x, h)
    if kind == "side":
        return L.side_box(n[0], n[1])
    if kind == "player":
        return L.player_row(n[0], players)
    if kind == "special":
        x, y, w, h = L.player_row(viewer, players)
        left = L.PLAYERS_BOX[0] + L.SPECIAL_COLUMN - 4
        return (left, y, x + w - left, h)
    return None


# Drawing order: big boxes first, so the small ones inside them stay clickable.
_ORDER = {"city": 0, "loc": 1, "side": 1, "player": 1, "tile": 2, "row": 3, "cand": 3,
          "special": 3}


def layer(targets: Iterable[str], players: int, viewer: int) -> str:
    """SVG rectangles, one per target, each carrying its name in ``data-target``."""
    out = []
    for target in sorted(set(targets), key=lambda t: (_ORDER.get(t.split(":")[0], 9), t)):
        b = box(target, players, viewer)
        if b is None:
            continue
        x, y, w, h = b
        out.append(
            f'<rect class="hot" data-target="{escape(target)}" x="{x:g}" y="{y:g}" '
            f'width="{w:g}" height="{h:g}" rx="4"/>'
        )
    return '<g id="hotspots">' + "".join(out) + "</g>"


def with_layer(svg: str, layer_svg: str) -> str:
    """The board document with the clickable layer drawn on top."""
    return svg.removesuffix("</svg>") + layer_svg + "</svg>"

