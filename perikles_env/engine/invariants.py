"""Invariants of RULES.md Appendix 2, checked by the random-play harness after every action.

Raises ``InvariantError`` (never ``assert``, which vanishes under ``python -O``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import data as D

if TYPE_CHECKING:
    from .game import Game


class InvariantError(RuntimeError):
    """The engine reached a state the rules forbid: always an engine bug."""


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InvariantError(message)


def check_invariants(g: Game) -> None:
    n = g.n
    for p in range(n):  # B.12 cube conservation
        on_board = sum(g.cubes[c * 5 + p] for c in range(D.NUM_CITIES))
        candidates = sum(1 for q in g.cand if q == p)
        _require(g.supply[p] >= 0, f"player {p} supply negative")
        _require(
            on_board + candidates + g.supply[p] == D.CUBES_PER_PLAYER,
            f"player {p} cubes {on_board}+{candidates}+{g.supply[p]} != 30",
        )
    _require(all(v >= 0 for v in g.cubes), "negative cube count")
    for c in range(D.NUM_CITIES):
        alpha, beta = g.cand[c * 2], g.cand[c * 2 + 1]
        _require(alpha >= 0 or beta < 0, f"{D.CITY_NAMES[c]}: beta without alpha")
        _require(alpha < 0 or alpha != beta, f"{D.CITY_NAMES[c]}: two candidates of one colour")
    for k in range(D.NUM_CLASSES):  # counter conservation
        at = sum(g.at[b * D.NUM_CLASSES + k] for b in range(D.LOCATION_SLOTS * 4))
        total = g.stack[k] + g.pool[k] + g.dead[k] + at
        _require(total == D.INITIAL_COUNTERS[k], f"{D.class_name(k)}: {total} counters")
        _require(min(g.stack[k], g.pool[k], g.dead[k]) >= 0, f"{D.class_name(k)}: negative")
        if D.CLASS_CITY[k] == D.PERSIA:
            _require(g.dead[k] == 0, "Persian counter in the dead pool")
    _require(all(v >= 0 for v in g.at), "negative counter count at a location")
    for a in range(D.NUM_MILITARY_CITIES):  # symmetric, and never both war and alliance
        _require(not g.war[a] & g.ally[a], f"{D.MILITARY_CITY_NAMES[a]}: war and alliance")
        _require(not g.war[a] >> a & 1 and not g.ally[a] >> a & 1, "self relationship")
        for b in range(D.NUM_MILITARY_CITIES):
            _require((g.war[a] >> b & 1) == (g.war[b] >> a & 1), "war not symmetric")
            _require((g.ally[a] >> b & 1) == (g.ally[b] >> a & 1), "alliance not symmetric")
    for slot in range(D.LOCATION_SLOTS):
        if g.loc_display[slot] < 0:
            continue
        owner = D.LOCATION_TILES[g.loc_display[slot]].city
        placers = []
        for side in (0, 1):
            cities = 0
            for box in (0, 1):
                base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
                for k in D.EXISTING_CLASSES:
                    if g.at[base + k]:
                        cities |= 1 << D.CLASS_CITY[k]
            placers.append(cities)
        _require(not placers[0] & placers[1], f"slot {slot}: a city on both sides")
        if g.leader[owner] >= 0:
            for c in range(D.NUM_CITIES):
                _require(
                    not (placers[0] >> c & 1 and g.leader[c] == g.leader[owner]),
                    f"slot {slot}: a leader attacks a location of a city he leads",
                )
        ma, md = g.main[slot * 2], g.main[slot * 2 + 1]
        _require(ma < 0 or ma != md, f"slot {slot}: one player is main on both sides")
    _require(0 <= g.b_tokens[0] <= 2 and 0 <= g.b_tokens[1] <= 2, "tokens out of range")
    held = [t for t in g.special if t >= 0]
    played = [t for t, p in enumerate(g.special_played) if p >= 0]
    dealt = sorted(held + played + g.unseen_specials)
    _require(dealt == list(range(D.NUM_SPECIALS)), f"special tiles not conserved: {dealt}")
