"""Where each move target lies on the SVG board (``render.svg``'s layout), and the layer of
clickable rectangles the page lays over the board for the moves a seat can make.

The rectangles follow the drawing's own boxes (tests/web/test_payload.py checks each one
against a rectangle of the rendered board), so a click lands on the thing it chooses.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

Box = tuple[float, float, float, float]  # x, y, width, height

CITY_W, CITY_H = 190, 178
LOC_X, LOC_TOP, LOC_STEP, LOC_W = 610, 48, 109, 580
PLAYERS = (10, 604, 590, 208)


def city_box(c: int) -> Box:
    return (10 + (c % 3) * (CITY_W + 10), 48 + (c // 3) * (CITY_H + 10), CITY_W, CITY_H)


def box(target: str, players: int, viewer: int) -> Box | None:
    """The board rectangle of a move target (see ``moves``), or None if it has none."""
    kind, *args = target.split(":")
    n = [int(a) for a in args]
    if kind == "tile":
        return (20 + n[0] * 57, 456, 52, 46)
    if kind == "city":
        return city_box(n[0])
    if kind == "row":
        x, y, w, _ = city_box(n[0])
        return (x + 4, y + 49 + n[1] * 16, w - 8, 15)
    if kind == "cand":
        x, y, _, _ = city_box(n[0])
        return (x + (116, 146)[n[1]], y + 28, 20, 20)
    if kind == "loc":
        return (LOC_X, LOC_TOP + n[0] * LOC_STEP, 156, LOC_STEP - 6)
    if kind == "side":
        return (LOC_X + 160 + n[1] * 212, LOC_TOP + n[0] * LOC_STEP + 4, 204, LOC_STEP - 14)
    x, y, w, h = PLAYERS
    row = (h - 26) / players
    if kind == "player":
        return (x + 4, y + 26 + n[0] * row, w - 8, row - 2)
    if kind == "special":
        return (x + 384, y + 26 + viewer * row, w - 388, row - 2)
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

