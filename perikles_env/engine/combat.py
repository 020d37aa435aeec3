"""Phase 6, resolve battles (B.8, section C) with the battle specials (D.5-D.9), plus the
exact combat-odds helpers agents use (C.5-C.6).

Battle progress is a small resumable state machine (``b_slot``, ``b_round``, ``b_stage``)
because two decisions can interrupt it: battle-special offers before a dice round (D.9) and
the losing main player's casualty choice among tied cities (C.7).

Engine decision beyond the specification (docs/rules.md G8): before a dice round the offer goes,
in clockwise order from the phase-5 first player, to every player who still holds an unused
special tile, whenever a tile eligible for that round is not yet known to be played. Players
whose tile is not eligible can only pass. Asking only the eligible owners would reveal their
secret tile (section F).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from . import actions as A
from . import data as D
from .phases import Phase
from .queries import (
    ROUND_ATTACKER,
    ROUND_DEFENDER,
    ROUND_EMPTY,
    dice_strengths,
    doubled_city,
    fights_rounds,
    location_rounds,
    round_kind,
    side_claimants,
)
from .state import RulesBase

NC = D.NUM_CLASSES
ATT, DEF = 0, 1
# Existing counter classes of each unit type, all cities (hot loops below skip empty boxes).
_TYPE_CLASSES = tuple(
    tuple(k for k in D.EXISTING_CLASSES if D.CLASS_TYPE[k] == t) for t in (D.HOPLITE, D.TRIREME)
)

# ---- exact odds (C.5, C.6) ----------------------------------------------------------------


@cache
def round_win_probability(
    attack: int, defence: int, att_tokens: int = 0, def_tokens: int = 0
) -> float:
    """Exact probability that the attacker wins a dice combat round with these strengths
    (>= 1 each) and starting tokens (head start and token tiles included)."""
    column = D.crt_column(attack, defence)
    pa = D.TWO_D6_AT_LEAST[D.CRT_ATTACKER_NEEDS[column]] / 36
    pd = D.TWO_D6_AT_LEAST[D.CRT_DEFENDER_NEEDS[column]] / 36
    # Roll-off: first roll on which exactly one side hits decides (C.6 step 3).
    only_a, only_d = pa * (1 - pd), pd * (1 - pa)
    rolloff = only_a / (only_a + only_d)

    @cache
    def win(ta: int, td: int) -> float:
        if ta >= 2 and td >= 2:
            return rolloff
        if ta >= 2:
            return 1.0
        if td >= 2:
            return 0.0
        both, neither = pa * pd, (1 - pa) * (1 - pd)
        progress = both * win(ta + 1, td + 1) + only_a * win(ta + 1, td) + only_d * win(ta, td + 1)
        return progress / (1 - neither)

    return win(att_tokens, def_tokens)


def _round_outcome(a: int, d: int, ta: int, td: int) -> float:
    """P(attacker wins one round); -1.0 for an empty round (C.3)."""
    if a <= 0 and d <= 0:
        return -1.0
    if a <= 0:
        return 0.0
    if d <= 0:
        return 1.0
    return round_win_probability(a, d, min(ta, 1), min(td, 1))


def battle_win_probability(
    rounds: list[tuple[int, int]], att_tokens: int = 0, def_tokens: int = 0
) -> float:
    """Probability that the attacking side wins the final round of a battle, given each
    round's (attacker strength, defender strength). Strength 0 on one side means that round
    is automatic (C.3); both 0 makes an empty round (no head start; an empty final round is
    not an attacker win). ``att_tokens``/``def_tokens`` are extra starting tokens in round 1."""
    # Probability mass by who holds the head start entering a round: none, attacker, defender.
    mass = {-1: 1.0, ATT: 0.0, DEF: 0.0}
    for i, (a, d) in enumerate(rounds):
        ea, ed = (att_tokens, def_tokens) if i == 0 else (0, 0)
        outcome = {h: _round_outcome(a, d, ea + (h == ATT), ed + (h == DEF)) for h in mass}
        if i == len(rounds) - 1:
            return sum(mass[h] * max(outcome[h], 0.0) for h in mass)
        nxt = {-1: 0.0, ATT: 0.0, DEF: 0.0}
        for h, w in mass.items():
            p = outcome[h]
            if p < 0:
                nxt[-1] += w
            else:
                nxt[ATT] += w * p
                nxt[DEF] += w * (1 - p)
        mass = nxt
    return 0.0


# ---- the battle state machine -------------------------------------------------------------


class CombatRules(RulesBase):
    __slots__ = ()

    def _begin_battles(self) -> None:
        self._log("phase", self.turn, "battles", self.commit_first)
        self.b_slot = 0
        self.b_round = -1
        self.b_stage = 0
        self._run_battles()

    def _box_base(self, slot: int, side: int, box: int) -> int:
        return ((slot * 2 + side) * 2 + box) * NC

    def _counters(self, slot: int, side: int, unit_type: int) -> int:
        """Number of counters of a type on one side (both boxes)."""
        total = 0
        at = self.at
        for box in (0, 1):
            base = self._box_base(slot, side, box)
            if at[base : base + NC].count(0) != NC:
                total += sum(at[base + k] for k in _TYPE_CLASSES[unit_type])
        return total

    def _run_battles(self) -> None:
        while self.b_slot < D.LOCATION_SLOTS:
            if self.b_round < 0:
                if not self._start_location():
                    self._finish_location()
                    continue
                self.b_round = 0
                self.b_stage = 0
                self.b_head = -1
            if not self._step_round():
                return  # a decision is pending
        self._end_turn()

    def _start_location(self) -> bool:
        """C.2: reveal, then settle the location at once (False) or fight rounds (True)."""
        slot = self.b_slot
        tile = D.LOCATION_TILES[self.loc_display[slot]]
        self._log("battle", slot, tile.name, self._revealed(slot))
        ma, md = self.main[slot * 2], self.main[slot * 2 + 1]
        if fights_rounds(tile, ma >= 0, md >= 0):
            return True
        if ma >= 0:  # uncontested attack (E27)
            if self._counters(slot, ATT, tile.rounds[-1]):
                self._claim(slot, ATT)
            else:
                self._unclaimed(slot, "no final-round attackers")
        elif md >= 0:  # not attacked (C.2, E29)
            self._unclaimed(slot, "not attacked")
            for p in self._side_claimants(slot, DEF):
                self._add_cubes(p, tile.city, 2)
        else:
            self._unclaimed(slot, "no forces")
        return False

    def _revealed(self, slot: int) -> list[list[object]]:
        out: list[list[object]] = []
        for side in (ATT, DEF):
            for box in (0, 1):
                base = self._box_base(slot, side, box)
                for k in D.EXISTING_CLASSES:
                    if self.at[base + k]:
                        out.append(
                            [
                                A.SIDE_NAMES[side],
                                ("main", "allied")[box],
                                D.class_name(k),
                                self.at[base + k],
                            ]
                        )
        return out

    def _step_round(self) -> bool:
        """Advance the current round; False when a decision is pending."""
        slot = self.b_slot
        tile = D.LOCATION_TILES[self.loc_display[slot]]
        unit_type = tile.rounds[self.b_round]
        if self.b_stage == 0:
            a_n = self._counters(slot, ATT, unit_type)
            d_n = self._counters(slot, DEF, unit_type)
            kind = round_kind(tile, unit_type, a_n, d_n)
            if kind == ROUND_EMPTY:  # C.3, E26, E28
                self._log("round", slot, D.UNIT_TYPE_NAMES[unit_type], "empty")
                if self.b_round == len(tile.rounds) - 1:
                    self._unclaimed(slot, "final round empty")
                    self._finish_location()
                else:
                    self.b_head = -1
                    self.b_round += 1
                return True
            if kind == ROUND_DEFENDER:
                self._round_won(DEF, automatic=True)
                return True
            if kind == ROUND_ATTACKER:
                self._round_won(ATT, automatic=True)
                return True
            self.b_tokens = [int(self.b_head == ATT), int(self.b_head == DEF)]
            self.b_double = False
            self.b_offers = self._battle_offer_queue(slot, unit_type)
            self.b_stage = 1
        if self.b_stage == 1:
            if self.b_offers:
                self.current = self.b_offers[0]
                self.phase = Phase.BATTLE_SPECIAL
                return False
            winner = self._roll_round(slot, unit_type)
            self.b_loser = 1 - winner
            tied = self._casualty_cities(slot, self.b_loser, unit_type)
            if len(tied) > 1:
                self.b_cas = tied
                self.b_stage = 2
                self.current = self.main[slot * 2 + self.b_loser]
                self.phase = Phase.CASUALTY
                return False
            if tied:
                self._take_casualty(tied[0])
            self._round_won(winner, automatic=False)
        return True

    # ---- battle specials (D.5-D.9) ---------------------------------------------------------

    def _eligible_battle_specials(self, slot: int, unit_type: int) -> list[int]:
        """Tiles that could be played before this round, from public information."""
        out = []
        double, token = D.BATTLE_SPECIALS_FOR_TYPE[unit_type]
        if (
            self.special_played[double] < 0
            and self._city_in_round(slot, doubled_city(unit_type), unit_type)
            and not self.b_double
        ):
            out.append(double)
        if self.special_played[token] < 0 and min(self.b_tokens) == 0:
            out.append(token)
        return out

    def _city_in_round(self, slot: int, city: int, unit_type: int) -> bool:
        for side in (ATT, DEF):
            for box in (0, 1):
                base = self._box_base(slot, side, box)
                if any(self.at[base + k] for k in D.CLASSES_OF[city][unit_type]):
                    return True
        return False

    def _battle_offer_queue(self, slot: int, unit_type: int) -> list[int]:
        if not self._eligible_battle_specials(slot, unit_type):
            return []
        order = [(self.commit_first + i) % self.n for i in range(self.n)]
        return [p for p in order if self._has_unused_special(p)]

    def _legal_battle_special(self) -> list[int]:
        slot = self.b_slot
        unit_type = D.LOCATION_TILES[self.loc_display[slot]].rounds[self.b_round]
        tile = self.special[self.current]
        out = [A.BATTLE_PASS]
        if tile in self._eligible_battle_specials(slot, unit_type):
            if tile in (D.BRASIDAS, D.PHORMIO):
                out.append(A.BATTLE_DOUBLE)
            else:
                out += [A.BATTLE_TOKEN + side for side in (ATT, DEF) if self.b_tokens[side] == 0]
        return out

    def _apply_battle_special(self, action: int) -> None:
        p = self.b_offers.pop(0)
        if action != A.BATTLE_PASS:
            tile = self.special[p]
            self.special[p] = -1
            self.special_played[tile] = p
            if action == A.BATTLE_DOUBLE:
                self.b_double = True
                self._log("special", p, D.SPECIAL_NAMES[tile], self.b_slot)
            else:
                side = action - A.BATTLE_TOKEN
                self.b_tokens[side] = 1
                self._log("special", p, D.SPECIAL_NAMES[tile], self.b_slot, A.SIDE_NAMES[side])
            # Offers already made stand; later holders see the new situation (D.9).
            unit_type = D.LOCATION_TILES[self.loc_display[self.b_slot]].rounds[self.b_round]
            if not self._eligible_battle_specials(self.b_slot, unit_type):
                self.b_offers = []
        self._run_battles()

    # ---- dice (C.4-C.6) ------------------------------------------------------------------------

    def _round_strengths(self, slot: int, unit_type: int) -> tuple[int, int]:
        """(attack, defence) entering the CRT for a round of ``unit_type`` at ``slot`` with
        the counters there now: counter strengths (doubled by a Brasidas / Phormio played on
        this round), plus rebels and militia (C.4, D.5, D.7). Public once the location is
        revealed (C.2)."""
        return dice_strengths(
            D.LOCATION_TILES[self.loc_display[slot]],
            unit_type,
            self._strength(slot, ATT, unit_type),
            self._strength(slot, DEF, unit_type),
        )

    def _predicted_rounds(self, slot: int) -> list[tuple[int, int, int, int]]:
        """``queries.location_rounds`` of the location at ``slot`` with the counters there
        now: (unit type, kind, attack, defence) per round, strengths as dice would see them
        if no battle special were played."""
        tile = D.LOCATION_TILES[self.loc_display[slot]]
        sides = [(s, t) for s in (ATT, DEF) for t in (D.HOPLITE, D.TRIREME)]
        counts = [self._counters(slot, s, t) for s, t in sides]
        strengths = [self._side_strength(slot, s, t, -1) for s, t in sides]
        return location_rounds(tile, counts, strengths)

    def _strength(self, slot: int, side: int, unit_type: int) -> int:
        return self._side_strength(
            slot, side, unit_type, doubled_city(unit_type) if self.b_double else -1
        )

    def _side_strength(self, slot: int, side: int, unit_type: int, doubled_city: int) -> int:
        """Printed strengths of one side's counters of a type, ``doubled_city``'s doubled."""
        total = 0
        at = self.at
        for base in self._occupied_boxes(slot, side):
            for k in _TYPE_CLASSES[unit_type]:
                if at[base + k]:
                    factor = 2 if D.CLASS_CITY[k] == doubled_city else 1
                    total += at[base + k] * D.CLASS_STRENGTH[k] * factor
        return total

    def _occupied_boxes(self, slot: int, side: int) -> Iterator[int]:
        """The first index in ``at`` of each of the side's two boxes that holds a counter."""
        at = self.at
        for box in (0, 1):
            base = self._box_base(slot, side, box)
            if at[base : base + NC].count(0) != NC:
                yield base

    def _d6(self) -> int:
        if self.forced_dice:
            return self.forced_dice.pop(0)
        return self.rng.randint(1, 6)

    def _roll_round(self, slot: int, unit_type: int) -> int:
        attack, defence = self._round_strengths(slot, unit_type)
        column = D.crt_column(attack, defence)
        need_a, need_d = D.CRT_ATTACKER_NEEDS[column], D.CRT_DEFENDER_NEEDS[column]
        tokens = self.b_tokens
        self._log(
            "dice_round",
            slot,
            D.UNIT_TYPE_NAMES[unit_type],
            attack,
            defence,
            D.CRT_COLUMNS[column],
            tokens[0],
            tokens[1],
        )
        rolloff = False
        while True:
            ra = self._d6() + self._d6()
            rd = self._d6() + self._d6()
            hit_a, hit_d = ra >= need_a, rd >= need_d
            self._log("roll", slot, ra, rd)
            if rolloff:
                if hit_a != hit_d:
                    return ATT if hit_a else DEF
                continue
            if hit_a and tokens[0] < 2:
                tokens[0] += 1
            if hit_d and tokens[1] < 2:
                tokens[1] += 1
            if tokens[0] == 2 and tokens[1] == 2:
                rolloff = True
            elif tokens[0] == 2:
                return ATT
            elif tokens[1] == 2:
                return DEF

    # ---- casualties (C.7, E30, E31) --------------------------------------------------------------

    def _casualty_box(self, slot: int, side: int, unit_type: int) -> int:
        for box in (0, 1):
            base = self._box_base(slot, side, box)
            for c in range(D.NUM_MILITARY_CITIES):
                if any(self.at[base + k] for k in D.CLASSES_OF[c][unit_type]):
                    return base
        return -1

    def _casualty_cities(self, slot: int, side: int, unit_type: int) -> list[int]:
        """Classes (one per city) holding the losing side's lowest printed strength."""
        base = self._casualty_box(slot, side, unit_type)
        if base < 0:
            return []
        for s in range(D.MAX_STRENGTH):
            tied = [
                D.CLASSES_OF[c][unit_type][s]
                for c in range(D.NUM_MILITARY_CITIES)
                if self.at[base + D.CLASSES_OF[c][unit_type][s]]
            ]
            if tied:
                return tied
        return []

    def _take_casualty(self, klass: int) -> None:
        slot = self.b_slot
        unit_type = D.CLASS_TYPE[klass]
        base = self._casualty_box(slot, self.b_loser, unit_type)
        self.at[base + klass] -= 1
        if D.CLASS_CITY[klass] == D.PERSIA:
            self.stack[klass] += 1  # back to the shield (B.11, E31)
        else:
            self.dead[klass] += 1
        self._log("casualty", slot, A.SIDE_NAMES[self.b_loser], D.class_name(klass))

    def _legal_casualty(self) -> list[int]:
        return sorted(A.CASUALTY + D.CLASS_CITY[k] for k in self.b_cas)

    def _apply_casualty(self, action: int) -> None:
        city = action - A.CASUALTY
        klass = next(k for k in self.b_cas if D.CLASS_CITY[k] == city)
        self.b_cas = []
        self._take_casualty(klass)
        self._round_won(1 - self.b_loser, automatic=False)
        self._run_battles()

    # ---- round and location outcomes (C.3, C.8) ----------------------------------------------

    def _round_won(self, winner: int, automatic: bool) -> None:
        slot = self.b_slot
        tile = D.LOCATION_TILES[self.loc_display[slot]]
        unit_type = tile.rounds[self.b_round]
        self._log(
            "round",
            slot,
            D.UNIT_TYPE_NAMES[unit_type],
            A.SIDE_NAMES[winner],
            "automatic" if automatic else "dice",
        )
        self._return_type_home(slot, unit_type)
        self.b_double = False
        self.b_stage = 0
        if self.b_round == len(tile.rounds) - 1:
            if winner == ATT:
                self._claim(slot, ATT)
            elif self.main[slot * 2 + DEF] >= 0:
                self._claim(slot, DEF)
            else:
                self._unclaimed(slot, "militia held")
            self._finish_location()
        else:
            self.b_head = winner
            self.b_round += 1

    def _return_type_home(self, slot: int, unit_type: int) -> None:
        at, stack = self.at, self.stack
        for side in (ATT, DEF):
            for base in self._occupied_boxes(slot, side):
                for k in _TYPE_CLASSES[unit_type]:
                    if at[base + k]:
                        stack[k] += at[base + k]
                        at[base + k] = 0

    def _side_claimants(self, slot: int, side: int) -> list[int]:
        """The main player, or every Persian leader when he is a Persian leader (B.11)."""
        return side_claimants(self.persian, self.main[slot * 2 + side], self.n)

    def _claim(self, slot: int, side: int) -> None:
        tile_id = self.loc_display[slot]
        winners = self._side_claimants(slot, side)
        for p in winners:
            self.loc_claim[tile_id] |= 1 << p
        self.loc_done[tile_id] = 1
        tile = D.LOCATION_TILES[tile_id]
        if side == ATT:
            self.defeats[tile.city] += 1
        self._log("claim", slot, tile.name, winners, side == ATT)

    def _unclaimed(self, slot: int, why: str) -> None:
        tile_id = self.loc_display[slot]
        self.loc_done[tile_id] = 1
        self._log("unclaimed", slot, D.LOCATION_TILES[tile_id].name, why)

    def _finish_location(self) -> None:
        slot = self.b_slot
        for t in (D.HOPLITE, D.TRIREME):
            self._return_type_home(slot, t)
        self.b_slot += 1
        self.b_round = -1
        self.b_stage = 0
