"""Rule queries: pure functions that answer "what do the rules say here?" without changing
anything. The engine's own rules modules call them, and so does every consumer outside the
engine (heuristic, battle features, observation encoder, rewards, evaluator, search), so
each rule has exactly one implementation (docs/rules.md, section 19 "Rule queries").

Inputs are public facts only, passed as plain values or as any object that carries the
named public fields (a ``Game`` or the analysis ``PlayerView``):

* placement (B.7.6, B.7.8, E24): ``placement_targets``, ``placement_status``,
  ``class_placement_status``;
* battle rounds (C.2-C.4): ``fights_rounds``, ``round_kind``, ``dice_strengths``,
  ``doubled_city``, ``location_rounds``, ``odds_inputs``;
* influence effects (B.4-B.6, D.2, E12, E16, E19, E36): ``plague_losses``, ``proposals``,
  ``assassination_targets``, ``seat_candidate``, ``unseat_candidate``, ``election_outcome``;
* battle outcomes (B.11): ``side_claimants``;
* what a player knows of the armies (F): ``military_knowledge``;
* scores and the end of the game (B.10): ``cube_vp``, ``location_vp``, ``statue_vp``,
  ``ranking_keys``, ``winners_of``, ``fractional_ranks``, ``win_shares``, ``win_rewards``,
  with one tie convention (docs/rules.md section 14).

These functions are the reference. ``Game`` exposes the queries about its own state as
methods (``game.placement_targets(p, x)``, ``game.proposals(p)``, ...) that call them; a
``NativeGame`` overrides those methods with the C++ core's twins, so code that asks the game
gets the fast answer on either engine (tests/native/test_native_queries.py proves them
equal). The other queries take plain values (tiles, counts, expected strengths).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

from . import actions as A
from . import data as D
from .information import controlled_cities, revealed_slot, unseen_counters, visible_cities

Strength = TypeVar("Strength", int, float)  # exact (int) or expected (float) strengths
_SLOTS = range(D.LOCATION_SLOTS)
_TILE_CITY = [tile.city for tile in D.LOCATION_TILES]
_HOPLITE_ONLY = [tile.order == D.ORDER_H for tile in D.LOCATION_TILES]
_TILE_VP = tuple(tile.vp for tile in D.LOCATION_TILES)


# ---- what a player knows of the armies (F) --------------------------------------------------

_NC, _CT, _BOXES = D.NUM_CLASSES, D.NUM_MILITARY_CITIES * 2, D.LOCATION_SLOTS * 4


class MilitaryKnowledge(NamedTuple):
    """Every counter as one player knows it; ``(city, type)`` indices are ``city * 2 + type``,
    boxes are ``(slot * 2 + side) * 2 + box``."""

    my_pool: list[int]  # his own pool per class (the cities he controls), else 0
    pool_count: list[int]  # counters in all pools per (city, type): public
    box_count: list[int]  # counters per (box, city, type): public
    box_known: list[int]  # their strength sum where he sees it, else -1
    unknown_mean: list[float]  # mean strength of a hidden counter per (city, type)


def military_knowledge(state: Any, player: int) -> MilitaryKnowledge:
    """What ``player`` knows of every counter (F): how many sit in each pool and box, the
    strengths of those he sees (his own cities', and all at the location face up), and for
    the rest the mean of the public multiset of unseen counters."""
    controlled = controlled_cities(state, player)
    revealed = revealed_slot(state)
    my_pool = [0] * _NC
    pool_count = [0] * _CT
    for k in range(_NC):
        c = state.pool[k]
        if c:
            x, t = D.CLASS_CITY[k], D.CLASS_TYPE[k]
            pool_count[x * 2 + t] += c
            if controlled >> x & 1:
                my_pool[k] = c
    box_count = [0] * (_BOXES * _CT)
    box_known = [0] * (_BOXES * _CT)
    at = state.at
    for box in range(_BOXES):
        base = box * _NC
        if not any(at[base : base + _NC]):
            continue
        seen = visible_cities(controlled, revealed, box // 4)
        for k in D.EXISTING_CLASSES:
            c = at[base + k]
            if c:
                x, t = D.CLASS_CITY[k], D.CLASS_TYPE[k]
                i = box * _CT + x * 2 + t
                box_count[i] += c
                if seen >> x & 1:
                    box_known[i] += c * D.CLASS_STRENGTH[k]
                else:
                    box_known[i] = -1
    unseen = unseen_counters(state)
    unknown_mean = [0.0] * _CT
    for x in range(D.NUM_MILITARY_CITIES):
        for t in (D.HOPLITE, D.TRIREME):
            total = strength = 0
            for k in D.CLASSES_OF[x][t]:
                left = unseen[k]
                total += left
                strength += left * D.CLASS_STRENGTH[k]
            unknown_mean[x * 2 + t] = strength / total if total else 0.0
    return MilitaryKnowledge(my_pool, pool_count, box_count, box_known, unknown_mean)


# ---- placement legality (B.7.6, B.7.8, E24) ------------------------------------------------

ILLEGAL, LEGAL, NEEDS_PERMISSION = 0, 1, 2


def placement_targets(
    state: Any,
    p: int,
    x: int,
    first: bool = False,
    skip_hoplite_only: bool = False,
    slots: Sequence[int] = _SLOTS,
) -> list[tuple[int, int, int]]:
    """``(slot, side, status)`` for every side of every displayed location (or of the given
    ``slots``) that player p may place a counter of military city x on: status ``LEGAL``,
    or ``NEEDS_PERMISSION`` (legal once the owning city's leader grants it, B.7.8).
    ``first`` stops at the first target; ``skip_hoplite_only`` leaves out locations that
    take hoplites only (E24).

    Reads ``leader``, ``persian``, ``war``, ``ally``, ``side_cities``, ``main``, ``perm``,
    ``denied``, ``loc_display``: all public. One pass over the slots (the commit phase's
    hot loop).

    [ENGINE] The main player of a side counts as on that side even after Slave Revolt
    took his last counter there (he keeps the mark, C.1, E35), so he may not join the
    other side: a player's forces never face each other (B.7.6), and one player being
    main attacker and main defender would win the location either way."""
    led = controlled_cities(state, p)
    xbit = 1 << x
    war_x, ally_x = state.war[x], state.ally[x]
    sides, main, leader = state.side_cities, state.main, state.leader
    perm, denied, display = state.perm, state.denied, state.loc_display
    out = []
    for slot in slots:
        tile = display[slot]
        if skip_hoplite_only and _HOPLITE_ONLY[tile]:
            continue
        owner = _TILE_CITY[tile]
        owner_leader = leader[owner]
        attackers = sides[slot * 2]
        defenders = sides[slot * 2 + 1] | (1 << owner)
        # attack: not against your own city, an ally, a city you lead or while at war
        # with an attacker; never while main defender here
        if not (
            main[slot * 2 + 1] == p
            or owner_leader == p
            or defenders & xbit
            or ally_x & defenders
            or led & defenders
            or war_x & attackers
        ):
            out.append((slot, A.ATTACK, LEGAL))
            if first:
                return out
        if (
            main[slot * 2] == p
            or attackers & xbit
            or war_x & defenders
            or ally_x & attackers
            or led & attackers
        ):
            continue
        if owner_leader == p or perm[slot] & xbit:
            out.append((slot, A.DEFEND, LEGAL))
        elif owner_leader >= 0 and not denied[slot] & xbit:
            out.append((slot, A.DEFEND, NEEDS_PERMISSION))
        if first and out:
            return out
    return out


def placement_status(state: Any, p: int, x: int, slot: int, side: int) -> int:
    """``ILLEGAL``, ``LEGAL`` or ``NEEDS_PERMISSION`` for player p placing a counter of
    military city x on ``side`` of the location in ``slot`` (B.7.6, B.7.8)."""
    for _s, d, status in placement_targets(state, p, x, slots=(slot,)):
        if d == side:
            return status
    return ILLEGAL


def class_placement_status(state: Any, p: int, klass: int, slot: int, side: int) -> int:
    """``placement_status`` for a counter class, with the hoplite-only rule (E24). Whether
    the counter is in p's hand and whether p may place now are the commit step's business
    (``Game.legal_actions``)."""
    if D.CLASS_TYPE[klass] == D.TRIREME and _HOPLITE_ONLY[state.loc_display[slot]]:
        return ILLEGAL
    return placement_status(state, p, D.CLASS_CITY[klass], slot, side)


# ---- battle rounds (C.2-C.4) ------------------------------------------------------------------

# Kinds of a combat round (C.3): nobody fights, one side wins without dice, or dice.
ROUND_EMPTY, ROUND_ATTACKER, ROUND_DEFENDER, ROUND_DICE = range(4)
ROUND_KIND_NAMES = ("empty", "attacker", "defender", "dice")


def fights_rounds(tile: D.LocationTile, attacked: bool, defended: bool) -> bool:
    """C.2: a location with a main attacker is fought round by round when it has a main
    defender or militia; otherwise it is settled at once (uncontested attack, E27, or not
    attacked, E29)."""
    return attacked and (defended or tile.militia[0] > 0 or tile.militia[1] > 0)


def round_kind(tile: D.LocationTile, unit_type: int, attackers: int, defenders: int) -> int:
    """Kind of the round of ``unit_type`` given the counters of that type on each side
    (C.3, E25, E26, E28): empty when neither side has any (militia alone do not fight),
    won by the defence when no attacker is present, won by the attack when no defender and
    no militia are present, else dice."""
    if not attackers:
        return ROUND_DEFENDER if defenders else ROUND_EMPTY
    if defenders or tile.militia[unit_type]:
        return ROUND_DICE
    return ROUND_ATTACKER


def dice_strengths(
    tile: D.LocationTile, unit_type: int, attack: Strength, defence: Strength
) -> tuple[Strength, Strength]:
    """Strengths entering the CRT (C.4, C.5): the sides' counters plus the location's rebels
    (attack) and militia (defence) of the round's type."""
    return attack + tile.rebels[unit_type], defence + tile.militia[unit_type]


def doubled_city(unit_type: int) -> int:
    """The city whose counters a double-strength tile doubles in a round of ``unit_type``:
    Brasidas doubles Spartan hoplites (D.5), Phormio Athenian triremes (D.7)."""
    return D.SPARTA if unit_type == D.HOPLITE else D.ATHENS


def location_rounds(
    tile: D.LocationTile, counts: Sequence[Any], strengths: Sequence[Any], first: int = 0
) -> list[tuple[int, int, Any, Any]]:
    """``(unit_type, kind, attack, defence)`` for the location's rounds from round ``first``
    on, given counters and strengths per ``side * 2 + unit_type`` (actual, expected or
    hypothetical). Dice rounds carry ``dice_strengths``; other kinds the plain side
    strengths. Rounds of one type never change the counters of another type, so every
    round's kind is known before the first is fought."""
    out = []
    for t in tile.rounds[first:]:
        a, d = strengths[t], strengths[2 + t]
        kind = round_kind(tile, t, counts[t], counts[2 + t])
        if kind == ROUND_DICE:
            a, d = a + tile.rebels[t], d + tile.militia[t]
        out.append((t, kind, a, d))
    return out


def odds_inputs(rounds: Sequence[tuple[int, int, Any, Any]]) -> tuple[tuple[int, int], ...]:
    """``location_rounds`` as the integer ``(attack, defence)`` pairs that
    ``combat.battle_win_probability`` takes: 0 marks an absent side, a present side counts
    at least 1, expected strengths are rounded."""
    out = []
    for _t, kind, a, d in rounds:
        if kind == ROUND_EMPTY:
            out.append((0, 0))
        elif kind == ROUND_DEFENDER:
            out.append((0, max(1, round(d))))
        elif kind == ROUND_ATTACKER:
            out.append((max(1, round(a)), 0))
        else:
            out.append((max(1, round(a)), max(1, round(d))))
    return tuple(out)


def side_claimants(persian: int, main: int, n: int) -> list[int]:
    """Players who score a side whose main player is ``main``: he alone, or every Persian
    leader when he is one (B.11); nobody for -1."""
    if main < 0:
        return []
    if persian >> main & 1:
        return [p for p in range(n) if persian >> p & 1]
    return [main]


# ---- influence effects (B.4, B.5, D.2) --------------------------------------------------------


def plague_losses(cubes: Sequence[int], cand: Sequence[int], city: int, n: int) -> list[int]:
    """Cubes each player loses from the main area of ``city`` to Plague (D.2, E19): half of
    his cubes there, rounded down, counting his candidate cube, never more than he has in
    the main area."""
    out = []
    for q in range(n):
        in_main = cubes[city * D.MAX_PLAYERS + q]
        total = in_main + (cand[city * 2] == q) + (cand[city * 2 + 1] == q)
        out.append(min(total // 2, in_main))
    return out


def proposals(cubes: Sequence[int], cand: Sequence[int], p: int, n: int) -> list[tuple[int, int]]:
    """Legal ``(city, nominee)`` proposals of player p (B.5, E12): a city with a free
    candidate slot where p has a cube (his candidate cube counts); the nominee has a cube
    in its main area and is not already its alpha candidate. Nominees in seat order from p."""
    out = []
    for c in range(D.NUM_CITIES):
        alpha, beta = cand[c * 2], cand[c * 2 + 1]
        if beta >= 0:
            continue  # both slots full
        base = c * D.MAX_PLAYERS
        if not (cubes[base + p] or alpha == p):
            continue  # proposer needs a cube in C, candidate slot included (E12)
        for off in range(n):
            q = (p + off) % n
            if cubes[base + q] and q != alpha:
                out.append((c, q))
    return out


def assassination_targets(
    cubes: Sequence[int], cand: Sequence[int], n: int, first: int = 0
) -> list[tuple[int, int]]:
    """Legal Assassin targets ``(city, target)`` (B.4 step 3, E16): ``target`` is the seat of
    a player with a main-area cube there (seats in order from ``first``), or
    ``actions.ASSASSIN_ALPHA`` / ``ASSASSIN_BETA`` for an occupied candidate slot."""
    out = []
    for c in range(D.NUM_CITIES):
        base = c * D.MAX_PLAYERS
        for off in range(n):
            q = (first + off) % n
            if cubes[base + q]:
                out.append((c, q))
        if cand[c * 2] >= 0:
            out.append((c, A.ASSASSIN_ALPHA))
        if cand[c * 2 + 1] >= 0:
            out.append((c, A.ASSASSIN_BETA))
    return out


def election_outcome(cubes: Sequence[int], cand: Sequence[int], city: int) -> tuple[int, int]:
    """``(leader, cubes he loses)`` of the election in ``city`` (B.6, E36): no leader (-1)
    without candidates; alpha alone wins for free; otherwise the candidate with more cubes
    in the main area wins (alpha on a tie) and returns as many of his cubes as the loser
    has there."""
    alpha, beta = cand[city * 2], cand[city * 2 + 1]
    if alpha < 0:
        return -1, 0
    if beta < 0:
        return alpha, 0
    base = city * D.MAX_PLAYERS
    a_count, b_count = cubes[base + alpha], cubes[base + beta]
    return (alpha, b_count) if a_count >= b_count else (beta, a_count)


def seat_candidate(cubes: list[int], cand: list[int], city: int, nominee: int) -> int:
    """Move one of the nominee's cubes in ``city`` to its first free candidate slot (B.5);
    returns the slot index into ``cand``. Mutates ``cubes`` and ``cand``."""
    slot = city * 2 + (0 if cand[city * 2] < 0 else 1)
    cand[slot] = nominee
    cubes[city * D.MAX_PLAYERS + nominee] -= 1
    return slot


def unseat_candidate(cand: list[int], supply: list[int], slot: int) -> int:
    """Send the candidate in ``cand[slot]`` back to his supply; a beta candidate left alone
    moves up to alpha (E16). Returns the victim. Mutates ``cand`` and ``supply``."""
    victim = cand[slot]
    supply[victim] += 1
    cand[slot] = -1
    if slot % 2 == 0 and cand[slot + 1] >= 0:
        cand[slot], cand[slot + 1] = cand[slot + 1], -1
    return victim


# ---- end of game (B.10) -------------------------------------------------------------------------


def cube_vp(cubes: Sequence[int], cand: list[int], player: int) -> int:
    """1 VP per cube in a main area or candidate slot (B.10)."""
    return sum(cubes[player :: D.MAX_PLAYERS]) + cand.count(player)


def statue_vp(statues: Sequence[int], defeats: Sequence[int], player: int) -> int:
    """VP of a player's statues, each at its city's current value (A.2, B.10)."""
    return sum(
        statues[c * D.MAX_PLAYERS + player] * D.statue_value(c, defeats[c])
        for c in range(D.NUM_CITIES)
    )


def location_vp(loc_claim: Sequence[int], player: int) -> int:
    """VP of the location tiles ``player`` has won (B.10)."""
    bit = 1 << player
    return sum(_TILE_VP[t] for t, claim in enumerate(loc_claim) if claim & bit)


def ranking_keys(game: Any) -> list[tuple[int, int, int]]:
    """Per seat ``(VP, location-tile VP, statues)``: higher is better, compared in that order
    (B.10 and its tie-breaks)."""
    scores = game.scores()
    return [(s, game.location_vp(p), game.statue_count(p)) for p, s in enumerate(scores)]


def winners_of(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Seats with the best ranking key: after the B.10 tie-breaks they share the win."""
    best = max(keys)
    return [p for p, k in enumerate(keys) if k == best]


def fractional_ranks(keys: Sequence[tuple[int, ...]]) -> list[float]:
    """Rank 1 = best (highest key); tied players share the mean of the places they span."""
    order = sorted(range(len(keys)), key=lambda p: keys[p], reverse=True)
    ranks = [0.0] * len(keys)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        shared = (i + 1 + j + 1) / 2.0
        for m in range(i, j + 1):
            ranks[order[m]] = shared
        i = j + 1
    return ranks


def win_shares(winners: Sequence[int], players: int) -> list[float]:
    """1/k to each of k tied winners (B.10), 0 to everyone else; sums to 1. An all-way tie
    gives everyone 1/n; no winners (a game stopped without result) gives everyone 0."""
    share = 1.0 / len(winners) if winners else 0.0
    return [share if p in winners else 0.0 for p in range(players)]


def win_rewards(winners: Sequence[int], players: int) -> list[float]:
    """Zero-sum win reward: the k winners share +1 (1/k each), the n - k others share -1.
    An all-way tie (k = n) is a draw: everyone gets 0, so it stays zero-sum."""
    k = len(winners)
    if k == players:
        return [0.0] * players
    return [1 / k if p in winners else -1 / (players - k) for p in range(players)]
