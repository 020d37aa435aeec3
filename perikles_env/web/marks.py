"""Each player's last move marked on the board, and the battle being fought: outlines in
the player's colour over the places the move touched (``hotspots.box``), the newest one and
the battle briefly animated by the page's style sheet (not under prefers-reduced-motion).
Only public facts: the places a move touched and its words as a spectator reads them."""

from __future__ import annotations

from html import escape

from ..engine.game import Game
from ..engine.phases import Phase
from ..render.svg import PLAYER_COLOURS, location_box
from .hotspots import box


def marks_layer(game: Game, last_moves: dict[int, tuple[str, list[str], int]],
                viewer: int | None) -> str:
    """SVG outlines, one per place of each player's last move (``Table.last_moves``)."""
    out = []
    newest = max((step for _, _, step in last_moves.values()), default=-1)
    for p, (words, places, step) in sorted(last_moves.items()):
        klass = "last newest" if step == newest else "last"
        for place in places:
            b = box(place, game.n, viewer if viewer is not None else 0)
            if b is None:
                continue
            x, y, w, h = b
            out.append(f'<rect class="{klass}" data-player="{p}" data-place="{escape(place)}" '
                       f'x="{x - 2:g}" y="{y - 2:g}" width="{w + 4:g}" height="{h + 4:g}" '
                       f'rx="5" stroke="{PLAYER_COLOURS[p]}"><title>last move of '
                       f'{escape(words)}</title></rect>')
    if game.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY) and game.b_slot >= 0:
        x, y, w, h = location_box(game.b_slot)
        out.append(f'<rect class="battle" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                   f'rx="4"/>')
    return '<g id="marks">' + "".join(out) + "</g>"
