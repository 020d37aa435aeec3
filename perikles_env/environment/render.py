"""Text board as one player may see it (no hidden information: others' special tiles and
face-down strengths of counters he does not control are shown as '?')."""

from __future__ import annotations

from ..engine import data as D
from ..engine.determinize import known_cities, revealed_slot
from ..engine.game import Game


def _seat(p: int) -> str:
    return f"p{p}" if p >= 0 else "-"


def render_text(game: Game, viewer: int) -> str:
    g = game
    n = g.n
    lines = [
        f"Perikles  turn {g.turn}  phase {g.phase.name}  to act: "
        f"{_seat(g.current)}  viewer: p{viewer}",
        "scores: "
        + "  ".join(f"p{p}={s}" for p, s in enumerate(g.scores()))
        + "   supply: "
        + " ".join(str(g.supply[p]) for p in range(n)),
        "",
        f"{'city':8} {'cubes ' + ' '.join(f'p{p}' for p in range(n)):{6 + 3 * n}} "
        "cand(a,b) leader defeats statue statues",
    ]
    for c, name in enumerate(D.CITY_NAMES):
        cubes = " ".join(f"{g.cubes[c * 5 + p]:2}" for p in range(n))
        cand = f"{_seat(g.cand[c * 2])},{_seat(g.cand[c * 2 + 1])}"
        statues = " ".join(f"p{p}x{g.statues[c * 5 + p]}" for p in range(n) if g.statues[c * 5 + p])
        lines.append(
            f"{name:8} {cubes:{6 + 3 * n}} {cand:9} {_seat(g.leader[c]):6} "
            f"{g.defeats[c]:7} {D.statue_value(c, g.defeats[c]):6} {statues}"
        )
    persians = [p for p in range(n) if g.persian >> p & 1]
    lines.append(f"Persian leaders: {', '.join(f'p{p}' for p in persians) or '-'}")
    lines.append("")
    lines.append(
        "influence display: "
        + ", ".join(f"{s + 1}:{D.influence_name(t)}" for s, t in enumerate(g.display) if t >= 0)
    )
    lines.append(
        "tiles held (2-shard/1-shard): "
        + "  ".join(f"p{p}={g.held2[p]}/{g.held1[p]}" for p in range(n))
    )
    own = g.special[viewer]
    lines.append(
        f"your special tile: {D.SPECIAL_NAMES[own] if own >= 0 else 'none'}; "
        "still holding one: " + ", ".join(f"p{p}" for p in range(n) if g.special[p] >= 0)
    )
    played = [f"{D.SPECIAL_NAMES[t]} (p{q})" for t, q in enumerate(g.special_played) if q >= 0]
    lines.append("specials played: " + (", ".join(played) or "-"))
    known = known_cities(g, viewer)
    revealed = revealed_slot(g)
    if any(g.pool):
        hand = [
            f"{D.class_name(k)}x{g.pool[k]}"
            for k in D.EXISTING_CLASSES
            if g.pool[k] and known >> D.CLASS_CITY[k] & 1
        ]
        lines.append("your hand: " + (" ".join(hand) or "-"))
        lines.append("all hands: " + " ".join(_box_labels(g.pool, 0, "", 0, face_up=False)))
    dead = [f"{D.class_name(k)}x{g.dead[k]}" for k in D.EXISTING_CLASSES if g.dead[k]]
    lines.append("dead pool: " + (" ".join(dead) or "-"))
    lines.append("")
    for slot, t in enumerate(g.loc_display):
        if t < 0:
            continue
        tile = D.LOCATION_TILES[t]
        order = ("T>H", "H>T", "H")[tile.order]
        won = [p for p in range(n) if g.loc_claim[t] >> p & 1]
        status = (
            f"won by {','.join(f'p{p}' for p in won)}"
            if won
            else ("unclaimed" if g.loc_done[t] else "open")
        )
        lines.append(
            f"slot {slot + 1}: {tile.name} ({D.CITY_NAMES[tile.city]}, {tile.vp} VP, "
            f"{order}) {status}"
        )
        for side, side_name in ((0, "attack"), (1, "defend")):
            main = g.main[slot * 2 + side]
            parts = []
            for box, box_name in ((0, "main"), (1, "allied")):
                base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
                labels = _box_labels(g.at, base, box_name + ":", known, face_up=slot == revealed)
                parts += labels
            if main >= 0 or parts:
                lines.append(f"    {side_name:6} main={_seat(main)} {' '.join(parts)}")
    return "\n".join(lines)


def _box_labels(counts: list[int], base: int, prefix: str, known: int, face_up: bool) -> list[str]:
    """Counters ``counts[base + class]``: by class where the viewer may see strengths (his own
    cities, or the location being resolved), otherwise a count per city and type (RULES.md
    F: the city and type of every counter are public, not its strength)."""
    out = []
    for city in range(D.NUM_MILITARY_CITIES):
        visible = face_up or known >> city & 1
        for unit_type in (D.HOPLITE, D.TRIREME):
            classes = D.CLASSES_OF[city][unit_type]
            if visible:
                out += [
                    f"{prefix}{D.class_name(k)}x{counts[base + k]}"
                    for k in classes
                    if counts[base + k]
                ]
                continue
            count = sum(counts[base + k] for k in classes)
            if count:
                name = f"{D.MILITARY_CITY_NAMES[city]}-{D.UNIT_TYPE_NAMES[unit_type]}"
                out.append(f"{prefix}{name}?x{count}")
    return out
