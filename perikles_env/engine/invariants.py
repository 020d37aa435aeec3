"""Invariants of docs/rules.md Appendix 2, checked by the random-play harness after every action.

``check_invariants(g)`` looks at one state; ``check_transition(before, after)`` at two
consecutive ones (facts such as "relationships never flip within a turn" need both);
``check_history(g)`` reads the public event log (dice only with both strengths >= 1).
All raise ``InvariantError`` (never ``assert``, which vanishes under ``python -O``).
The single-state check is written with slices so that it costs tens of microseconds.
"""

from __future__ import annotations

from operator import add
from typing import TYPE_CHECKING, Any

from . import data as D
from .phases import Phase

if TYPE_CHECKING:
    from .game import Game

NC = D.NUM_CLASSES
# Phases after the elections of the current turn (B.6): leaders are set, candidates gone.
_AFTER_ELECTIONS = frozenset(
    (
        Phase.SPARTA_CHOICE,
        Phase.DEAD_POOL,
        Phase.COMMIT,
        Phase.PERMISSION,
        Phase.BATTLE_SPECIAL,
        Phase.CASUALTY,
    )
)
_IN_BATTLE = frozenset((Phase.BATTLE_SPECIAL, Phase.CASUALTY))


class InvariantError(RuntimeError):
    """The engine reached a state the rules forbid: always an engine bug."""


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InvariantError(message)


def check_invariants(g: Game) -> None:
    """Raise InvariantError naming the first broken Appendix-2 invariant of this state."""
    _check_seat(g)
    _check_cubes(g)
    _check_leaders(g)
    boxes = _occupied_boxes(g.at)
    _check_counters(g, boxes)
    _check_relationships(g)
    _check_locations(g, boxes)
    _check_battle(g)
    held = [t for t in g.special if t >= 0]
    played = [t for t, p in enumerate(g.special_played) if p >= 0]
    dealt = sorted(held + played + g.unseen_specials)
    _require(dealt == list(range(D.NUM_SPECIALS)), f"special tiles not conserved: {dealt}")


def _check_seat(g: Game) -> None:
    """Turn and decider in range (that a decision has a legal action is the harness's job:
    it builds the list anyway)."""
    _require(1 <= g.turn <= D.NUM_TURNS, f"turn {g.turn} out of range")
    if g.phase == Phase.GAME_OVER:
        _require(g.current == -1, "terminal state with a decider")
    else:
        _require(0 <= g.current < g.n, f"phase {g.phase.name}: current player {g.current}")


def _check_cubes(g: Game) -> None:
    """B.12 conservation, and at most one candidate per player colour per city (B.5)."""
    for p in range(g.n):
        on_board = sum(g.cubes[p :: D.MAX_PLAYERS])
        candidates = g.cand.count(p)
        _require(g.supply[p] >= 0, f"player {p} supply negative")
        _require(
            on_board + candidates + g.supply[p] == D.CUBES_PER_PLAYER,
            f"player {p} cubes {on_board}+{candidates}+{g.supply[p]} != 30",
        )
    _require(min(g.cubes) >= 0, "negative cube count")
    for c in range(D.NUM_CITIES):
        alpha, beta = g.cand[c * 2], g.cand[c * 2 + 1]
        _require(alpha >= 0 or beta < 0, f"{D.CITY_NAMES[c]}: beta without alpha")
        _require(alpha < 0 or alpha != beta, f"{D.CITY_NAMES[c]}: two candidates of one colour")
    if g.phase in _AFTER_ELECTIONS or g.phase == Phase.GAME_OVER:
        _require(g.cand.count(-1) == len(g.cand), "candidate cubes left after the elections")


def _check_leaders(g: Game) -> None:
    """B.6/B.11: after the elections the Persian leaders are exactly the players who lead
    no city; before them (and after phase 7) nobody leads anything."""
    if g.phase in _AFTER_ELECTIONS:
        no_city = sum(1 << p for p in range(g.n) if p not in g.leader)
        _require(g.persian == no_city, f"Persian leaders {g.persian:b} != {no_city:b}")
        _require(all(-1 <= q < g.n for q in g.leader), f"bad leader {g.leader}")
    else:
        _require(g.persian == 0 and g.leader.count(-1) == len(g.leader), "leaders outside 5-6")
    _require(min(g.held2) >= 0 and min(g.held1) >= 0, "negative held influence tiles")


def _occupied_boxes(at: list[int]) -> list[tuple[int, list[int]]]:
    """(start index, contents) of each location box holding counters (``list.count(0)`` is
    the fast all-zero test: most boxes are empty most of the time)."""
    out = []
    for start in range(0, len(at), NC):
        row = at[start : start + NC]
        if row.count(0) != NC:
            out.append((start, row))
    return out


def _check_counters(g: Game, boxes: list[tuple[int, list[int]]]) -> None:
    """Each counter in exactly one place; Persian counters never in the dead pool."""
    totals = [s + p + d for s, p, d in zip(g.stack, g.pool, g.dead, strict=True)]
    for _, row in boxes:
        _require(min(row) >= 0, "negative counter count at a location")
        totals = list(map(add, totals, row))
    if totals != list(D.INITIAL_COUNTERS):
        k = next(k for k in range(NC) if totals[k] != D.INITIAL_COUNTERS[k])
        raise InvariantError(f"{D.class_name(k)}: {totals[k]} counters")
    _require(min(g.stack) >= 0 and min(g.pool) >= 0 and min(g.dead) >= 0, "negative counters")
    _require(not any(g.dead[D.PERSIA * 8 : D.PERSIA * 8 + 8]), "Persian counter in dead pool")


def _check_relationships(g: Game) -> None:
    """Symmetric, never both war and alliance, never with oneself (B.7.7)."""
    if not any(g.war) and not any(g.ally):
        return
    for table, name in ((g.war, "war"), (g.ally, "alliance")):
        transposed = [
            sum((table[b] >> a & 1) << b for b in range(D.NUM_MILITARY_CITIES))
            for a in range(D.NUM_MILITARY_CITIES)
        ]
        _require(transposed == table, f"{name} not symmetric: {table}")
    for a in range(D.NUM_MILITARY_CITIES):
        _require(not g.war[a] & g.ally[a], f"{D.MILITARY_CITY_NAMES[a]}: war and alliance")
        _require(not (g.war[a] | g.ally[a]) >> a & 1, "self relationship")


def _city_mask(row: list[int]) -> int:
    """Military cities with counters in one box (8 classes per city)."""
    return sum(1 << c for c in range(D.NUM_MILITARY_CITIES) if row[c * 8 : c * 8 + 8].count(0) != 8)


def _check_locations(g: Game, boxes: list[tuple[int, list[int]]]) -> None:
    """No city or player on both sides, no leader attacking his own city's location (B.7.6),
    and location tiles resolved exactly once per turn (Appendix 2, C.8)."""
    if boxes:
        sides = [0] * (D.LOCATION_SLOTS * 2)  # city masks per (slot, side)
        for start, row in boxes:
            sides[start // (2 * NC)] |= _city_mask(row)
        led = [sum(1 << c for c in range(D.NUM_CITIES) if g.leader[c] == p) for p in range(g.n)]
        for p in range(g.n):
            if g.persian >> p & 1:
                led[p] |= 1 << D.PERSIA
        for slot in range(D.LOCATION_SLOTS):
            attack, defend = sides[slot * 2], sides[slot * 2 + 1]
            if not attack | defend:
                continue
            _require(not attack & defend, f"slot {slot}: a city on both sides")
            _require(
                not attack & ~g.side_cities[slot * 2] and not defend & ~g.side_cities[slot * 2 + 1],
                f"slot {slot}: counters of a city missing from side_cities",
            )
            both = [p for p in range(g.n) if led[p] & attack and led[p] & defend]
            _require(not both, f"slot {slot}: players {both} have counters on both sides")
            owner_leader = g.leader[D.LOCATION_TILES[g.loc_display[slot]].city]
            _require(
                owner_leader < 0 or not led[owner_leader] & attack,
                f"slot {slot}: player {owner_leader} attacks a location of a city he leads",
            )
            ma, md = g.main[slot * 2], g.main[slot * 2 + 1]
            _require(ma < 0 or ma != md, f"slot {slot}: one player is main on both sides")
    # Location tiles: deck, this turn's display and earlier turns' resolved tiles.
    shown = set(g.loc_display)
    earlier = [t for t in range(D.NUM_LOCATION_TILES) if g.loc_done[t] and t not in shown]
    tiles = sorted(g.loc_deck + g.loc_display + earlier)
    _require(tiles == list(range(D.NUM_LOCATION_TILES)), f"location tiles not conserved {tiles}")
    _require(
        all(g.loc_done[t] for t in range(D.NUM_LOCATION_TILES) if g.loc_claim[t]),
        "a claimed location tile is not marked resolved",
    )
    _require(max(g.loc_claim) < 1 << g.n, "location claimed by a player not in the game")
    if g.phase == Phase.GAME_OVER:
        done_now = D.LOCATION_SLOTS  # after phase 6 every displayed tile is resolved
    elif g.phase in _IN_BATTLE:
        done_now = g.b_slot
    else:
        done_now = 0
    resolved = sum(g.loc_done)
    expected = D.LOCATION_SLOTS * (g.turn - 1) + done_now
    _require(resolved == expected, f"{resolved} location outcomes, expected {expected}")
    shown_done = sum(g.loc_done[t] for t in g.loc_display)
    _require(shown_done == done_now, f"{shown_done} displayed tiles resolved, not {done_now}")


def _check_battle(g: Game) -> None:
    """Each side holds at most 2 tokens (C.6); the battle cursor is on a real slot."""
    _require(0 <= g.b_tokens[0] <= 2 and 0 <= g.b_tokens[1] <= 2, "tokens out of range")
    if g.phase in _IN_BATTLE:
        _require(0 <= g.b_slot < D.LOCATION_SLOTS, f"battle at slot {g.b_slot}")
        rounds = D.LOCATION_TILES[g.loc_display[g.b_slot]].rounds
        _require(0 <= g.b_round < len(rounds), f"battle round {g.b_round}")


def relationship_snapshot(g: Game) -> tuple[Any, ...]:
    """What ``check_transition`` compares: cheap to take after every action."""
    return (
        g.turn,
        g.war[:],
        g.ally[:],
        g.defeats[:],
        g.statues[:],
        g.loc_claim[:],
        g.loc_done[:],
        g.phase == Phase.GAME_OVER,
    )


def check_transition(before: tuple[Any, ...], g: Game) -> None:
    """Facts about one action's effect: within a turn relationships only grow, so they never
    go from allied to war or back (Appendix 2, B.7.7); defeats, statues and resolved
    locations never decrease; the turn advances by at most one; nothing follows game over."""
    turn, war, ally, defeats, statues, claim, done, over = before
    _require(not over, "an action was applied after game over")
    _require(g.turn in (turn, turn + 1), f"turn went from {turn} to {g.turn}")
    if g.turn == turn and g.phase != Phase.GAME_OVER:  # phase 7 clears them (B.9 step 4)
        for a in range(D.NUM_MILITARY_CITIES):
            _require(g.war[a] & war[a] == war[a], f"{D.MILITARY_CITY_NAMES[a]}: a war ended")
            _require(g.ally[a] & ally[a] == ally[a], f"{D.MILITARY_CITY_NAMES[a]}: ally ended")
    _require(all(x >= y for x, y in zip(g.defeats, defeats, strict=True)), "defeats decreased")
    _require(all(x >= y for x, y in zip(g.statues, statues, strict=True)), "statues decreased")
    _require(
        all(x & y == y for x, y in zip(g.loc_claim, claim, strict=True)),
        "a location claim vanished",
    )
    _require(
        all(x >= y for x, y in zip(g.loc_done, done, strict=True)), "a resolved location reopened"
    )


def check_history(g: Game) -> None:
    """Event-log facts (needs ``record_events``): dice are rolled only when both strengths
    are >= 1 (Appendix 2, C.3), each round's tokens start within 0..1 (C.6), and each
    location is resolved once (one claim/unclaimed event per displayed tile)."""
    outcomes = 0
    for event in g.events:
        kind = event[0]
        if kind == "dice_round":
            _, slot, _, attack, defence, _, ta, td = event
            _require(attack >= 1 and defence >= 1, f"dice at slot {slot}: {attack} v {defence}")
            _require(0 <= ta <= 1 and 0 <= td <= 1, f"round started with tokens {ta}, {td}")
        elif kind in ("claim", "unclaimed"):
            outcomes += 1
    _require(outcomes == sum(g.loc_done), f"{outcomes} outcome events, {sum(g.loc_done)} tiles")
