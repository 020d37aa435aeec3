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
    lines.append("")
    known = known_cities(g, viewer)
    revealed = revealed_slot(g)
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
                for k in D.EXISTING_CLASSES:
                    count = g.at[base + k]
                    if not count:
                        continue
                    city = D.CLASS_CITY[k]
                    visible = known >> city & 1 or slot == revealed
                    label = (
                        D.class_name(k)
                        if visible
                        else (
                            f"{D.MILITARY_CITY_NAMES[city]}-{D.UNIT_TYPE_NAMES[D.CLASS_TYPE[k]]}?"
                        )
                    )
                    parts.append(f"{box_name}:{label}x{count}")
            if main >= 0 or parts:
                lines.append(f"    {side_name:6} main={_seat(main)} {' '.join(parts)}")
    return "\n".join(lines)
