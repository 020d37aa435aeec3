"""The board as an SVG picture, drawn from what one observer may know (docs/rules.md F).

``viewer`` is a seat, or ``None`` for a spectator who sees public information only. Face-down
counters are drawn as backs (city and type, no strength) unless the viewer controls their
city or the location is being resolved; other players' unused special tiles are backs.

The picture is a list of independent sections (header, players, influence, each city, each
location): ``board_svg`` joins them, and the replay viewer stores each distinct section once.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ..engine import data as D
from ..engine.game import Game
from ..engine.information import known_cities, revealed_slot, sees_strength
from ..engine.phases import Phase
from .narrate import PHASE_TITLES, special_title

WIDTH, HEIGHT = 1200, 820
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

PLAYER_COLOURS = ("#d62728", "#1f6fb4", "#2a9d3a", "#f08c00", "#8e44ad")
CITY_COLOURS = ("#4a7fb0", "#b0452c", "#6f8f3a", "#c49a1a", "#7a5c99", "#3f8f8a", "#8a6d4b")
ANY_COLOUR = "#9a7b5a"  # brown "Any City" influence tiles
INK, PAPER, PANEL, MUTED = "#222222", "#f4efe3", "#fffaf0", "#8a8378"


_TOKEN_W, _TOKEN_H = 25, 19


# ---- the board layout: where each thing is drawn (web/hotspots.py lays its clickable boxes
# on it) ------------------------------------------------------------------------------------

Box = tuple[float, float, float, float]  # x, y, width, height

CITY_CARD = (190, 178)  # width, height; two rows of three cards from (10, 48)
CUBE_ROWS_TOP, CUBE_ROW_STEP = 50, 16  # a city card's cube rows, one per player
CANDIDATE_X = (118, 148)  # the alpha and beta candidates' chips on a city card
INFLUENCE_BOX = (10, 428, 590, 168)
TILE_STEP = 57  # the influence display's tiles, left to right
LOC_X, LOC_TOP, LOC_STEP, LOC_W = 610, 48, 109, 580  # the location slots, top to bottom
PLAYERS_BOX = (10, 604, 590, 208)
SPECIAL_COLUMN = 388  # a player row's special tiles


def city_box(c: int) -> Box:
    w, h = CITY_CARD
    return (10 + (c % 3) * (w + 10), 48 + (c // 3) * (h + 10), w, h)


def candidate_chip(c: int, s: int) -> Box:
    """The chip of the candidate in slot ``s`` (0 alpha, 1 beta) of city ``c``."""
    x, y, _, _ = city_box(c)
    return (x + CANDIDATE_X[s], y + 30, 16, 16)


def tile_box(i: int) -> Box:
    """The ``i``-th tile of the influence display."""
    x, y, _, _ = INFLUENCE_BOX
    return (x + 10 + i * TILE_STEP, y + 28, 52, 46)


def location_box(slot: int) -> Box:
    return (LOC_X, LOC_TOP + slot * LOC_STEP, LOC_W, LOC_STEP - 6)


def side_box(slot: int, side: int) -> Box:
    """The attack (``side`` 0) or defence box of a location slot."""
    x, y, _, _ = location_box(slot)
    return (x + 160 + side * 212, y + 4, 204, LOC_STEP - 14)


def row_height(players: int) -> float:
    """The height of a player's row of the players' panel, the gap below it included."""
    return (PLAYERS_BOX[3] - 26) / players


def player_row(p: int, players: int) -> Box:
    """Player ``p``'s row of the players' panel (highlighted for the player to act)."""
    x, y, w, _ = PLAYERS_BOX
    row = row_height(players)
    return (x + 4, y + 26 + p * row, w - 8, row - 2)


def player_name(p: int) -> str:
    return f"p{p}"


def board_svg(
    game: Game, viewer: int | None = None, labels: Sequence[str] = (), caption: str = ""
) -> str:
    """The whole board as one SVG document (``labels``: optional agent names per seat;
    ``caption``: a header line in place of the phase and the player to act, e.g. "end of
    turn 2" for a board between decisions)."""
    return svg_document(board_sections(game, viewer, labels, caption))


def svg_document(sections: Sequence[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}" font-size="12" fill="{INK}">'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{PAPER}"/>'
    )
    return head + "".join(sections) + "</svg>"


def board_sections(
    game: Game, viewer: int | None = None, labels: Sequence[str] = (), caption: str = ""
) -> list[str]:
    """The board's independent SVG groups, in drawing order."""
    view = _View(game, viewer)
    sections = [_header(view, caption), _players(view), _influence(view)]
    sections += [_player(view, p, labels) for p in range(game.n)]
    sections += [_city(view, c) for c in range(D.NUM_CITIES)]
    sections += [_location(view, slot) for slot in range(D.LOCATION_SLOTS)]
    return sections


def readable(game: Game) -> Game:
    """A state whose fields are plain lists. The C++ engine (``NativeGame``) returns a fresh
    copy of a field at each read; drawing reads fields thousands of times, so it reads
    them from one Python copy instead (``to_python``, on either engine)."""
    return game.to_python()


class _View:
    """The game plus what the viewer may know about it."""

    def __init__(self, game: Game, viewer: int | None) -> None:
        self.g = game = readable(game)
        self.viewer = viewer
        self.known = 0 if viewer is None else known_cities(game, viewer)
        self.revealed = revealed_slot(game)

    def sees_strength(self, city: int, slot: int = -1) -> bool:
        return sees_strength(self.known, self.revealed, city, slot)


# ---- drawing primitives ---------------------------------------------------------------------


def _text(x: float, y: float, s: str, size: int = 12, weight: str = "normal",
          fill: str = INK, anchor: str = "start") -> str:
    bold = ' font-weight="bold"' if weight == "bold" else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}"{bold} fill="{fill}" '
        f'text-anchor="{anchor}">{escape(s)}</text>'
    )


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "none",
          rx: float = 3, dash: bool = False, width: float = 1) -> str:
    extra = ' stroke-dasharray="3 2"' if dash else ""
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{width:g}"{extra}/>'
    )


def _chip(x: float, y: float, p: int, size: int = 16) -> str:
    """A player's disc with his seat number."""
    r = size / 2
    return (
        f'<circle cx="{x + r:g}" cy="{y + r:g}" r="{r:g}" fill="{PLAYER_COLOURS[p]}" '
        f'stroke="{INK}" stroke-width="0.8"/>'
        + _text(x + r, y + r + 4, str(p), size=int(size * 0.7), weight="bold",
                fill="white", anchor="middle")
    )


def _token(x: float, y: float, klass: int, face_up: bool, small: bool = False) -> str:
    """One military counter: city colour, type letter and strength; face down, a dark back
    edged in its city's colour with '?' for the strength."""
    city = D.CLASS_CITY[klass]
    label = D.UNIT_TYPE_NAMES[D.CLASS_TYPE[klass]] + (
        str(D.CLASS_STRENGTH[klass]) if face_up else "?"
    )
    fill = CITY_COLOURS[city] if face_up else "#5b5247"
    stroke = INK if face_up else CITY_COLOURS[city]
    h, size = (15, 10) if small else (_TOKEN_H, 11)
    return _rect(x, y, _TOKEN_W, h, fill, stroke, rx=2, width=2) + _text(
        x + _TOKEN_W / 2, y + h - 4, label, size=size, weight="bold", fill="white",
        anchor="middle",
    )


def _group(name: str, body: list[str]) -> str:
    return f'<g class="{name}">' + "".join(body) + "</g>"


# ---- sections -----------------------------------------------------------------------------


def _header(v: _View, caption: str = "") -> str:
    g = v.g
    out = [_rect(0, 0, WIDTH, 38, "#2e2a24", rx=0)]
    out.append(_text(14, 26, "PERIKLES", size=18, weight="bold", fill="#f2d492"))
    turn = f"turn {g.turn} of {D.NUM_TURNS}"
    title = caption or PHASE_TITLES[g.phase]
    weight = "bold" if caption else "normal"
    out.append(_text(120, 25, f"{turn}  ·  {title}", size=14, weight=weight, fill="white"))
    if caption:
        status = ""
    elif g.is_terminal:
        winners = ", ".join(player_name(p) for p in g.winners())
        status = f"winner: {winners}"
    else:
        status = f"to act: {player_name(g.current)}"
    out.append(_text(520, 25, status, size=14, weight="bold", fill="white"))
    who = "public view" if v.viewer is None else f"view of {player_name(v.viewer)}"
    out.append(_text(WIDTH - 12, 25, who, size=12, fill="#d8d0c0", anchor="end"))
    return _group("header", out)


def _players(v: _View) -> str:
    x0, y0, w, h = PLAYERS_BOX
    out = [_rect(x0, y0, w, h, PANEL, "#c9bfa8")]
    out.append(_text(x0 + 10, y0 + 18, "Players", size=13, weight="bold"))
    columns = ((170, "VP"), (212, "cubes"), (258, "tiles"), (296, "led"),
               (SPECIAL_COLUMN, "special"))
    for col, title in columns:
        out.append(_text(x0 + col, y0 + 18, title, size=10, fill=MUTED))
    return _group("players", out)


def _player(v: _View, p: int, labels: Sequence[str]) -> str:
    """One player's row: seat, score, supply, tiles held, cities led, special tiles."""
    g = v.g
    x0 = PLAYERS_BOX[0]
    row_h = row_height(g.n)
    row_x, y, row_w, _ = player_row(p, g.n)
    mid = y + row_h / 2 + 4
    out = []
    if p == g.current:
        out.append(_rect(row_x, y, row_w, row_h - 2, "#f7e3a8", rx=3))
    out.append(_chip(x0 + 10, y + row_h / 2 - 9, p, 18))
    name = player_name(p) + (f" {labels[p]}" if p < len(labels) else "")
    if v.viewer == p:
        name += " (you)"
    out.append(_text(x0 + 34, mid, _clip(name, 18), size=11, weight="bold"))
    out.append(_text(x0 + 170, mid, str(g.scores()[p]), size=14, weight="bold"))
    out.append(_text(x0 + 212, mid, str(g.supply[p]), size=12))
    out.append(_text(x0 + 258, mid, str(g.held2[p] + g.held1[p]), size=12))
    cities = [c for c in range(D.NUM_CITIES) if g.leader[c] == p]
    short = 3 if len(cities) <= 3 else 2  # "Ath Spa Arg", or "At Sp Ar Co": fits its column
    led = [D.CITY_NAMES[c][:short].capitalize() for c in cities]
    if g.persian >> p & 1:
        led.append("Persia")
    out.append(_text(x0 + 296, mid, " ".join(led) or "-", size=11 if short == 3 else 10))
    out.append(_text(x0 + SPECIAL_COLUMN, mid, _special_text(v, p), size=11))
    return _group(f"player p{p}", out)


def _special_text(v: _View, p: int) -> str:
    g = v.g
    played = [special_title(D.SPECIAL_NAMES[t]) for t, q in enumerate(g.special_played) if q == p]
    held = g.special[p]
    if held < 0:
        unused = ""
    elif v.viewer == p:
        unused = f"{special_title(D.SPECIAL_NAMES[held])} (unused)"
    else:
        unused = "1 face down"
    parts = [unused] if unused else []
    parts += [f"{name} (played)" for name in played]
    return _clip(", ".join(parts) or "-", 32)


def _influence(v: _View) -> str:
    g = v.g
    x0, y0, w, h = INFLUENCE_BOX
    out = [_rect(x0, y0, w, h, PANEL, "#c9bfa8")]
    out.append(_text(x0 + 10, y0 + 18, "Influence display", size=13, weight="bold"))
    for i, t in enumerate(g.display):
        x, y, tw, th = tile_box(i)
        if t < 0:
            out.append(_rect(x, y, tw, th, "none", MUTED, dash=True))
            continue
        tile = D.INFLUENCE_TILES[t]
        fill = ANY_COLOUR if tile.colour == D.BROWN else CITY_COLOURS[tile.colour]
        out.append(_rect(x, y, tw, th, fill, INK))
        out.append(_text(x + 26, y + 17, D.COLOUR_NAMES[tile.colour].capitalize()[:7],
                         size=10, weight="bold", fill="white", anchor="middle"))
        kind = ("2 cubes", "cand.", "assassin", "any city")[tile.kind]
        out.append(_text(x + 26, y + 35, kind, size=9, fill="white", anchor="middle"))
        out.append(_text(x + 4, y + 44 + 12, str(i + 1), size=9, fill=MUTED))
    y = y0 + 104
    out.append(_text(x0 + 10, y, "Persia", size=12, weight="bold", fill=CITY_COLOURS[D.PERSIA]))
    persians = [player_name(p) for p in range(g.n) if g.persian >> p & 1]
    out.append(_text(x0 + 62, y, "leaders: " + (", ".join(persians) or "none"), size=11))
    out.append(_text(x0 + 210, y, "  ".join(_forces_text(v, D.PERSIA)), size=11))
    dead = sum(g.dead)
    played = [special_title(D.SPECIAL_NAMES[t]) for t, q in enumerate(g.special_played) if q >= 0]
    out.append(_text(x0 + 10, y + 22, f"dead pool: {dead} counters", size=11))
    out.append(_text(x0 + 160, y + 22, "specials played: " + (", ".join(played) or "none"),
                     size=11))
    out.append(_text(x0 + 10, y + 44, _pending_text(v), size=11, weight="bold"))
    return _group("influence", out)


def _pending_text(v: _View) -> str:
    g = v.g
    if not g.pending:
        return ""
    klass, slot, side = g.pending
    city = D.CLASS_CITY[klass]
    unit = "hoplite" if D.CLASS_TYPE[klass] == D.HOPLITE else "trireme"
    name = D.LOCATION_TILES[g.loc_display[slot]].name.capitalize()
    return (
        f"{player_name(g.step_player)} asks {player_name(g.current)} to let a "
        f"{D.MILITARY_CITY_NAMES[city].capitalize()} {unit} "
        f"{('attack', 'defend')[side]} at {name}"
    )


def _forces_text(v: _View, city: int) -> tuple[str, str]:
    """Counters of ``city`` in its stack (public) and in its leader's hand."""
    g = v.g
    stack = [sum(g.stack[k] for k in D.CLASSES_OF[city][t]) for t in (D.HOPLITE, D.TRIREME)]
    text = f"stack H{stack[0]} T{stack[1]}"
    hand_text = ""
    hand = [k for t in (D.HOPLITE, D.TRIREME) for k in D.CLASSES_OF[city][t] if g.pool[k]]
    if hand:
        if v.sees_strength(city):
            items = [f"{D.UNIT_TYPE_NAMES[D.CLASS_TYPE[k]]}{D.CLASS_STRENGTH[k]}x{g.pool[k]}"
                     for k in hand]
        else:
            counts = [sum(g.pool[k] for k in D.CLASSES_OF[city][t]) for t in (0, 1)]
            items = [f"{D.UNIT_TYPE_NAMES[t]}?x{c}" for t, c in enumerate(counts) if c]
        hand_text = "hand " + " ".join(items)
    return text, hand_text


def _city(v: _View, c: int) -> str:
    g = v.g
    x0, y0, w, h = city_box(c)
    out = [_rect(x0, y0, w, h, PANEL, "#c9bfa8")]
    out.append(_rect(x0, y0, w, 24, CITY_COLOURS[c], rx=3))
    out.append(_text(x0 + 8, y0 + 17, D.CITY_NAMES[c].upper(), size=13, weight="bold",
                     fill="white"))
    # statue track: one box per value, covered ones crossed out
    track = D.STATUE_TRACKS[c]
    for i, value in enumerate(track):
        bx = x0 + w - 6 - (len(track) - i) * 18
        covered = i < g.defeats[c]
        current = i == g.defeats[c]
        out.append(_rect(bx, y0 + 4, 16, 16, "#ffffff" if current else "#e6dccb",
                         INK if current else MUTED, rx=2))
        out.append(_text(bx + 8, y0 + 16, str(value), size=10,
                         weight="bold" if current else "normal",
                         fill=MUTED if covered else INK, anchor="middle"))
        if covered:
            out.append(f'<line x1="{bx + 2}" y1="{y0 + 18}" x2="{bx + 14}" y2="{y0 + 6}" '
                       f'stroke="{INK}" stroke-width="1.5"/>')
    y = y0 + 42
    out.append(_text(x0 + 8, y, "leader", size=10, fill=MUTED))
    if g.leader[c] >= 0:
        out.append(_chip(x0 + 44, y - 12, g.leader[c], 16))
    else:
        out.append(_text(x0 + 48, y, "-", size=11))
    out.append(_text(x0 + 78, y, "cand. α", size=10, fill=MUTED))
    out.append(_text(x0 + 138, y, "β", size=10, fill=MUTED))
    for s in (0, 1):
        p = g.cand[c * 2 + s]
        cx, cy, size, _ = candidate_chip(c, s)
        out.append(_chip(cx, cy, p, int(size)) if p >= 0 else _text(cx + 4, y, "-"))
    # cubes: one row per player, a bar of squares
    for p in range(g.n):
        cy = y0 + CUBE_ROWS_TOP + p * CUBE_ROW_STEP
        count = g.cubes[D.city_player_index(c, p)]
        out.append(_chip(x0 + 8, cy, p, 13))
        for i in range(min(count, 12)):
            out.append(_rect(x0 + 26 + i * 10, cy + 2, 8, 9, PLAYER_COLOURS[p], INK, rx=1,
                             width=0.5))
        out.append(_text(x0 + 26 + min(count, 12) * 10 + 3, cy + 11, str(count), size=10))
        statues = g.statues[D.city_player_index(c, p)]
        if statues:
            out.append(_text(x0 + w - 8, cy + 11, f"statue x{statues}", size=10,
                             weight="bold", anchor="end"))
    yb = y0 + h - 8
    stack, hand = _forces_text(v, c)
    lines = _hand_lines(hand)
    out.append(_text(x0 + 8, yb - 14 * len(lines), f"defeats {g.defeats[c]} · {stack}", size=10))
    for i, line in enumerate(lines):
        indent = 30 if i else 0  # a second line starts under the first one's counters
        out.append(_text(x0 + 8 + indent, yb - 14 * (len(lines) - 1 - i), line, size=10))
    return _group(f"city {D.CITY_NAMES[c]}", out)


def _hand_lines(hand: str, width: int = 34) -> list[str]:
    """A leader's hand on one line of the city card, or on two (hoplites, then triremes)
    when it is too long for one: never cut off."""
    if len(hand) <= width:
        return [hand]
    items = hand.split()[1:]
    hoplites = [i for i in items if i.startswith("H")]
    triremes = [i for i in items if not i.startswith("H")]
    return ["hand " + " ".join(hoplites), " ".join(triremes)]


def _location(v: _View, slot: int) -> str:
    g = v.g
    x0, y0, w, h = location_box(slot)
    t = g.loc_display[slot]
    if t < 0:
        return _group(f"location {slot}", [_rect(x0, y0, w, h, "none", MUTED, dash=True)])
    tile = D.LOCATION_TILES[t]
    battle = slot == g.b_slot and g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY)
    out = [_rect(x0, y0, w, h, "#fff3cf" if battle else PANEL,
                 "#c0392b" if battle else "#c9bfa8", width=3 if battle else 1)]
    out.append(_rect(x0, y0, 6, h, CITY_COLOURS[tile.city], rx=2))
    out.append(_text(x0 + 14, y0 + 18, f"{slot + 1}. {tile.name.capitalize()}", size=13,
                     weight="bold"))
    order = ("triremes, then hoplites", "hoplites, then triremes", "hoplites only")[tile.order]
    out.append(_text(x0 + 14, y0 + 34, f"{D.CITY_NAMES[tile.city].capitalize()} · {tile.vp} VP",
                     size=11))
    out.append(_text(x0 + 14, y0 + 49, order, size=10, fill=MUTED))
    extras = [f"militia H{tile.militia[0]} T{tile.militia[1]}" if any(tile.militia) else "",
              f"rebels H{tile.rebels[0]} T{tile.rebels[1]}" if any(tile.rebels) else ""]
    out.append(_text(x0 + 14, y0 + 63, " ".join(e for e in extras if e), size=10))
    out.append(_text(x0 + 14, y0 + 80, _location_status(g, t), size=11, weight="bold",
                     fill="#1d6b2f" if g.loc_claim[t] else INK))
    if battle:
        out.append(_text(x0 + 14, y0 + 96, _battle_text(g), size=10, weight="bold",
                         fill="#c0392b"))
    for side, title in ((0, "attack"), (1, "defend")):
        out += _side(v, slot, side, title)
    return _group(f"location {slot}", out)


def _location_status(g: Game, t: int) -> str:
    won = [player_name(p) for p in range(g.n) if g.loc_claim[t] >> p & 1]
    if won:
        return "won by " + ", ".join(won)
    return "unclaimed" if g.loc_done[t] else "open"


def _battle_text(g: Game) -> str:
    tile = D.LOCATION_TILES[g.loc_display[g.b_slot]]
    rounds = tile.rounds
    unit = ""
    if 0 <= g.b_round < len(rounds):
        unit = ("hoplites", "triremes")[rounds[g.b_round]] + " · "
    double = " · x2" if g.b_double else ""
    return f"{unit}tokens {g.b_tokens[0]}:{g.b_tokens[1]}{double}"


def _side(v: _View, slot: int, side: int, title: str) -> list[str]:
    g = v.g
    x, y, w, h = side_box(slot, side)
    out = [_rect(x, y, w, h, "#f3ead8", "#d8ccb4")]
    out.append(_text(x + 6, y + 15, title, size=11, weight="bold",
                     fill="#9b2d20" if side == 0 else "#1d4f7a"))
    main = g.main[slot * 2 + side]
    if main >= 0:
        out.append(_text(x + 58, y + 15, "main", size=10, fill=MUTED))
        out.append(_chip(x + 86, y + 3, main, 15))
    for box, box_name in ((0, "main"), (1, "ally")):
        base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
        row_y = y + 24 + box * 34
        out.append(_text(x + 6, row_y + 14, box_name, size=9, fill=MUTED))
        out += _box_tokens(v, base, slot, x + 38, row_y)
    return out


def _box_tokens(v: _View, base: int, slot: int, x: float, y: float) -> list[str]:
    """Counters of one box, strongest first; face down ones grouped by city and type."""
    g = v.g
    tokens: list[tuple[int, bool]] = []
    for city in range(D.NUM_MILITARY_CITIES):
        face_up = v.sees_strength(city, slot)
        for unit_type in (D.HOPLITE, D.TRIREME):
            for k in reversed(D.CLASSES_OF[city][unit_type]):
                tokens += [(k, face_up)] * g.at[base + k]
    per_row = 5
    if len(tokens) <= per_row:
        return [_token(x + i * (_TOKEN_W + 3), y, k, up) for i, (k, up) in enumerate(tokens)]
    # crowded: two rows of smaller counters, and a count of any that still do not fit
    out = [
        _token(x + (i % per_row) * (_TOKEN_W + 3), y - 1 + (i // per_row) * 17, k, up, True)
        for i, (k, up) in enumerate(tokens[: 2 * per_row])
    ]
    if len(tokens) > 2 * per_row:
        out.append(_text(x + per_row * (_TOKEN_W + 3), y + 22,
                         f"+{len(tokens) - 2 * per_row}", size=11, weight="bold"))
    return out


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"
