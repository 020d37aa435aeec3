"""Tooltips for the board: the page lays transparent rectangles, each with an SVG
``<title>``, over the pieces and numbers of the drawing (``render.svg``'s layout), so a
pointer resting on ``stack``, ``hand H?x6``, ``militia``, ``cand. α β`` or a city card says
what it means. The words depend on the layout only, never on the game, so they tell no seat
anything; the board picture itself stays as ``render.svg`` draws it.
"""

from __future__ import annotations

from html import escape

from ..engine import data as D
from ..render import svg as L
from ..render.svg import Box

CITY = ("{name}: its statue track (top right: the value each statue here scores at the "
        "end, the current one framed, crossed-out values lost to defeats), its leader, its "
        "two candidates and each player's cubes (influence) in it.")
CANDIDATES = ("cand. α β: the two candidates for leader of {name}; the one with more cubes "
              "here wins the election (rules section 10).")
CUBES = ("Cubes: one row per player, his influence in {name}; each cube is 1 VP at the end, "
         "and 'statue xN' counts the statues he has here.")
FORCES = ("defeats: lost defences of {name}, each covering one statue value. stack H? T?: "
          "{name}'s hoplites (H) and triremes (T) not yet taken by a leader (public). "
          "hand H?x6: the counters its leader holds to commit, by strength (?) and count "
          "(x6); the strengths of others' counters are hidden.")
LOCATION = ("A location on display: its city, its VP for the winner, the order its battle "
            "is fought in; militia H T: the counters that defend it for its city without a "
            "leader; rebels: those that fight any attacker.")
SIDE = ("The {side} box of this location: the counters committed to {verb} it, face down "
        "until the battle (strengths shown only to their owner).")
PLAYER = ("A player's row: his name, score, cubes left, the counters he controls and his "
          "special tile (face down to the others until played).")
TILES = ("The influence display: tiles to take this turn (cubes for a city, a candidate "
         "nomination, an assassin, or any city).")


def explain_layer(players: int) -> str:
    """SVG rectangles with tooltips over every part of the board that carries a number or
    a piece; drawn under the clickable layer (``hotspots``) so clicks still reach it."""
    out = []
    for c in range(D.NUM_CITIES):
        name = D.CITY_NAMES[c].capitalize()
        x, y, w, h = L.city_box(c)
        out.append(_rect("city", (x, y, w, h), CITY.format(name=name)))
        cx = L.candidate_chip(c, 0)[0]
        out.append(_rect("cand", (x + 74, y + 28, cx - x - 74 + 50, 20),
                         CANDIDATES.format(name=name)))
        rows = y + L.CUBE_ROWS_TOP
        out.append(_rect("cubes", (x + 4, rows, w - 8, players * L.CUBE_ROW_STEP),
                         CUBES.format(name=name)))
        top = rows + players * L.CUBE_ROW_STEP
        out.append(_rect("forces", (x + 4, top, w - 8, y + h - top), FORCES.format(name=name)))
    out.append(_rect("tiles", L.INFLUENCE_BOX, TILES))
    for slot in range(D.LOCATION_SLOTS):
        x, y, _, h = L.location_box(slot)
        out.append(_rect("location", (x, y, L.side_box(slot, 0)[0] - 4 - x, h), LOCATION))
        for side, verb in ((0, "attack"), (1, "defend")):
            out.append(_rect("side", L.side_box(slot, side),
                             SIDE.format(side=("attack", "defence")[side], verb=verb)))
    for p in range(players):
        out.append(_rect("player", L.player_row(p, players), PLAYER))
    return '<g id="explain">' + "".join(out) + "</g>"


def _rect(kind: str, box: Box, words: str) -> str:
    x, y, w, h = box
    return (f'<rect class="explain" data-explains="{kind}" x="{x:g}" y="{y:g}" '
            f'width="{w:g}" height="{h:g}"><title>{escape(words)}</title></rect>')
