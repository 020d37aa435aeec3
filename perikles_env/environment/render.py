"""Text board as one player may see it (no hidden information: others' special tiles and
face-down strengths of counters he does not control are shown as '?'), and the public
pictures of the turn ends a step passes through, for ``rgb_array`` videos."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..engine import data as D
from ..engine.game import Game
from ..engine.information import known_cities, revealed_slot
from ..render.narrate import ORDER_WORDS, PHASE_TITLES, influence_tile, special_title
from ..render.svg import readable
from ..render.turns import ends_a_turn, turn_end_states

if TYPE_CHECKING:
    import numpy as np

WIDTH = 100  # widest line of the board, in characters


def _seat(p: int) -> str:
    return f"p{p}" if p >= 0 else "-"


def _wrap(label: str, items: list[str]) -> list[str]:
    """``label`` then the items, wrapped at WIDTH with continuation lines indented."""
    text = label + (" ".join(items) if items else "-")
    return textwrap.wrap(
        text, WIDTH, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False
    )


def turn_end_frames(before: Game, action: int, scale: float = 1.0) -> list[np.ndarray]:
    """Public pictures (``H x W x 3`` uint8) of the board at each end of turn that applying
    ``action`` to ``before`` passes through (battles fought, turn scored), captioned "end of
    turn N": a video made of one frame per decision never shows them. Empty for most steps;
    the last turn's end is the terminal board itself. ``before`` is not changed."""
    after = before.clone()
    after.apply_action(action)
    if not ends_a_turn(after.event_log, len(before.event_log)):
        return []
    from ..render import board_rgb

    return [
        board_rgb(state, None, scale, caption=f"end of turn {state.turn}")
        for state in turn_end_states(before, action)
    ]


def render_text(game: Game, viewer: int) -> str:
    """The whole board as ``viewer`` may see it, every line at most WIDTH characters."""
    game = readable(game)
    sections = (
        header_lines(game, viewer),
        city_lines(game),
        influence_lines(game, viewer),
        hand_lines(game, viewer),
        location_lines(game, viewer),
    )
    return "\n\n".join("\n".join(lines) for lines in sections)


def header_lines(game: Game, viewer: int) -> list[str]:
    game = readable(game)
    g = game
    return [
        f"Perikles  turn {g.turn}  {PHASE_TITLES[g.phase]}  to act: {_seat(g.current)}  "
        f"viewer: p{viewer}",
        *_wrap(
            "scores: ",
            [f"p{p}={s}" for p, s in enumerate(g.scores())]
            + ["  supply:"]
            + [str(g.supply[p]) for p in range(g.n)],
        ),
    ]


_CITY_ROW = "{:8} {} {:9} {:6} {:>7} {:>6}  {}"


def city_lines(game: Game) -> list[str]:
    """One row per city: cubes per player, candidates, leader, defeats, statues."""
    game = readable(game)
    g = game
    n = g.n
    seats = " ".join(f"{'p' + str(p):>3}" for p in range(n))
    lines = [_CITY_ROW.format("city", seats, "cand a,b", "leader", "defeats", "statue", "statues")]
    for c, name in enumerate(D.CITY_NAMES):
        cubes = " ".join(f"{g.cubes[D.city_player_index(c, p)]:3}" for p in range(n))
        cand = f"{_seat(g.cand[c * 2])},{_seat(g.cand[c * 2 + 1])}"
        held = [(p, g.statues[D.city_player_index(c, p)]) for p in range(n)]
        statues = " ".join(f"p{p}x{k}" for p, k in held if k)
        value = D.statue_value(c, g.defeats[c])
        row = _CITY_ROW.format(name, cubes, cand, _seat(g.leader[c]), g.defeats[c], value, statues)
        lines.append(row.rstrip())
    persians = [p for p in range(n) if g.persian >> p & 1]
    lines.append(f"Persian leaders: {', '.join(f'p{p}' for p in persians) or '-'}")
    return lines


def influence_lines(game: Game, viewer: int) -> list[str]:
    """The influence display, tiles held and special tiles (only the viewer's own by name)."""
    game = readable(game)
    g = game
    n = g.n
    shown = [
        f"{s + 1}:{influence_tile(D.influence_name(t)).removesuffix(' tile').replace(' ', '-')}"
        for s, t in enumerate(g.display)
        if t >= 0
    ]
    own = g.special[viewer]
    played = [
        f"{special_title(D.SPECIAL_NAMES[t])} (p{q})"
        for t, q in enumerate(g.special_played)
        if q >= 0
    ]
    return [
        *_wrap("influence display: ", shown),
        *_wrap(
            "tiles held (2-shard/1-shard): ",
            [f"p{p}={g.held2[p]}/{g.held1[p]}" for p in range(n)],
        ),
        f"your special tile: {special_title(D.SPECIAL_NAMES[own]) if own >= 0 else 'none'}; "
        "still holding one: "
        + (", ".join(f"p{p}" for p in range(n) if g.special[p] >= 0) or "-"),
        *_wrap("specials played: ", played),
    ]


def hand_lines(game: Game, viewer: int) -> list[str]:
    """The viewer's hand by strength, every hand by city and type, and the dead pool."""
    game = readable(game)
    g = game
    lines = []
    if any(g.pool):
        known = known_cities(g, viewer)
        hand = [
            f"{_short(k)}x{g.pool[k]}"
            for k in D.EXISTING_CLASSES
            if g.pool[k] and known >> D.CLASS_CITY[k] & 1
        ]
        lines += _wrap("your hand: ", hand)
        lines += _wrap("all hands: ", _box_labels(g.pool, 0, "", 0, face_up=False))
    dead = [f"{_short(k)}x{g.dead[k]}" for k in D.EXISTING_CLASSES if g.dead[k]]
    return lines + _wrap("dead pool: ", dead)


def location_lines(game: Game, viewer: int, slots: Iterable[int] | None = None) -> list[str]:
    """The locations (all, or ``slots``) with their forces as the viewer may see them."""
    game = readable(game)
    g = game
    known = known_cities(g, viewer)
    revealed = revealed_slot(g)
    lines: list[str] = []
    for slot in range(D.LOCATION_SLOTS) if slots is None else slots:
        t = g.loc_display[slot]
        if t < 0:
            continue
        tile = D.LOCATION_TILES[t]
        order = ORDER_WORDS[tile.order]
        won = [p for p in range(g.n) if g.loc_claim[t] >> p & 1]
        status = (
            f"won by {','.join(f'p{p}' for p in won)}"
            if won
            else ("unclaimed" if g.loc_done[t] else "open")
        )
        lines.append(
            f"location {slot + 1}: {tile.name.capitalize()} "
            f"({D.CITY_NAMES[tile.city].capitalize()}, {tile.vp} VP, {order}) {status}"
        )
        for side, side_name in ((0, "attack"), (1, "defend")):
            main = g.main[slot * 2 + side]
            parts = []
            for box, box_name in ((0, "main"), (1, "allied")):
                base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
                parts += _box_labels(g.at, base, box_name + ":", known, face_up=slot == revealed)
            if main >= 0 or parts:
                lines += _wrap(f"    {side_name:6} main={_seat(main)} ", parts)
    return lines


def _short(k: int) -> str:
    """A counter class in the board's short form: 'Sparta-H3' (a Spartan hoplite 3)."""
    return f"{D.MILITARY_CITY_NAMES[D.CLASS_CITY[k]].capitalize()}-{D.class_name(k).split('-')[1]}"


def _box_labels(counts: list[int], base: int, prefix: str, known: int, face_up: bool) -> list[str]:
    """Counters ``counts[base + class]``: by class where the viewer may see strengths (his own
    cities, or the location being resolved), otherwise a count per city and type (docs/rules.md
    F: the city and type of every counter are public, not its strength)."""
    out = []
    for city in range(D.NUM_MILITARY_CITIES):
        visible = face_up or known >> city & 1
        for unit_type in (D.HOPLITE, D.TRIREME):
            classes = D.CLASSES_OF[city][unit_type]
            if visible:
                out += [
                    f"{prefix}{_short(k)}x{counts[base + k]}"
                    for k in classes
                    if counts[base + k]
                ]
                continue
            count = sum(counts[base + k] for k in classes)
            if count:
                name = f"{D.MILITARY_CITY_NAMES[city].capitalize()}-{D.UNIT_TYPE_NAMES[unit_type]}"
                out.append(f"{prefix}{name}?x{count}")
    return out
