"""Battle arithmetic for the heuristic (phase 5 and 6): expected strengths at every location,
exact odds from ``perikles_env.agents.odds`` (C.5, C.6), and the value of each location's
outcome to every player.

A location's value to a player: ``P(attack wins) * VP`` to the main attacker (all Persian
co-leaders if Persian, B.11), ``P(defence holds) * VP`` to the main defender, minus the statue
value each player loses from a defeat of the owning city (his statues there, plus the one he
will get this turn as its leader; B.9, A.2). An unattacked location with a main defender is
worth the 2 bonus cubes to its claimants (C.2). To avoid over-committing into a location the
owner will still reinforce, the side facing the player is credited with ``caution`` times
what its likely reinforcer still holds (his pool, limited by his remaining commit steps).
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine import actions as A
from ..engine import data as D
from ..engine.information import controlled_cities
from ..engine.queries import fights_rounds, location_rounds, odds_inputs, side_claimants
from .odds import battle_win_probability
from .params import HeuristicParams
from .politics import expected_further_defeats, track_value
from .view import PlayerView

ATT, DEF = A.ATTACK, A.DEFEND
SLOTS = range(D.LOCATION_SLOTS)
TYPES = (D.HOPLITE, D.TRIREME)


def claimants(view: PlayerView, main: int) -> list[int]:
    """Players who score a side won by ``main`` (the engine's ``side_claimants``, B.11)."""
    return side_claimants(view.persian, main, view.n)


class Battlefield:
    """Expected strengths and counts per (slot, side, type), mutable for trial placements."""

    __slots__ = ("view", "params", "n", "me", "strength", "count", "main", "statue_drop")

    def __init__(self, view: PlayerView, params: HeuristicParams) -> None:
        self.view = view
        self.params = params
        self.n = view.n
        self.me = view.me
        self.strength, self.count = view.side_totals()  # index (slot * 2 + side) * 2 + type
        self.main = list(view.main)
        # Statue VP each player loses when a city takes one more defeat (A.2).
        further = expected_further_defeats(view)
        self.statue_drop = []
        for c in range(D.NUM_CITIES):
            now = track_value(c, view.defeats[c] + further[c])
            after = track_value(c, view.defeats[c] + 1 + further[c])
            self.statue_drop.append(max(0.0, now - after))

    def copy(self) -> Battlefield:
        bf = object.__new__(Battlefield)
        bf.view, bf.params, bf.n, bf.me = self.view, self.params, self.n, self.me
        bf.strength = self.strength[:]
        bf.count = self.count[:]
        bf.main = self.main[:]
        bf.statue_drop = self.statue_drop
        return bf

    def place(self, player: int, klass: int, slot: int, side: int) -> None:
        self.add(player, slot, side, D.CLASS_TYPE[klass], D.CLASS_STRENGTH[klass], 1)

    def add(self, player: int, slot: int, side: int, t: int, strength: float, n: int) -> None:
        """``n`` counters of type ``t`` and total ``strength`` join a side; the player
        becomes its main player if it has none (B.7.5)."""
        i = (slot * 2 + side) * 2 + t
        self.strength[i] += strength
        self.count[i] += n
        if self.main[slot * 2 + side] < 0:
            self.main[slot * 2 + side] = player

    # ---- outcome values --------------------------------------------------------------------

    def attack_probability(self, slot: int, reinforce: Reinforcement | None = None) -> float:
        """P(the attacking side wins the final round), C.2-C.8, with expected strengths plus
        any expected reinforcement."""
        tile = self.view.location(slot)
        i = slot * 4  # (slot * 2 + side) * 2 + type
        present = [n > 0 for n in self.count[i : i + 4]]
        strength = self.strength[i : i + 4]
        if reinforce:
            for j, extra in enumerate((*reinforce.attack, *reinforce.defence)):
                present[j] = present[j] or extra > 0
                strength[j] += extra
        defended = self.main[slot * 2 + DEF] >= 0 or present[2] or present[3]
        if not fights_rounds(tile, True, defended):
            return 1.0 if present[tile.rounds[-1]] else 0.0  # uncontested attack (E27)
        return battle_odds(odds_inputs(location_rounds(tile, present, strength)))

    def values(
        self, slot: int, reinforce: Reinforcement | None = None, p_attack: float | None = None
    ) -> list[float]:
        """Expected VP of this location's outcome for every player."""
        view = self.view
        out = [0.0] * self.n
        tile = view.location(slot)
        ma, md = self.main[slot * 2], self.main[slot * 2 + 1]
        if reinforce is not None:
            ma = ma if ma >= 0 else reinforce.attacker
            md = md if md >= 0 else reinforce.defender
        if ma < 0:
            for q in claimants(view, md):
                out[q] += 2.0  # unattacked defence bonus (C.2, E29)
            return out
        if p_attack is None:
            p_attack = self.attack_probability(slot, reinforce)
        for q in claimants(view, ma):
            out[q] += p_attack * tile.vp
        for q in claimants(view, md):
            out[q] += (1.0 - p_attack) * tile.vp
        drop = self.statue_drop[tile.city] * p_attack
        if drop:
            owner = tile.city
            for q in range(self.n):
                held = view.statues[D.city_player_index(owner, q)] + (view.leader[owner] == q)
                out[q] -= held * drop
        return out

    def relative(self, values: list[float]) -> float:
        others = [values[q] for q in range(self.n) if q != self.me]
        return values[self.me] - self.params.spite * sum(others) / len(others)

    # ---- reinforcement expected from the other side -------------------------------------------

    def reinforcement(self, slot: int, my_side: int) -> Reinforcement:
        """What the side facing ``my_side`` may still add, scaled by ``caution``: the owning
        city's leader against an attack; the main attacker against a defence (only once the
        location is attacked; an unattacked defence just counts the bonus cubes)."""
        view = self.view
        tile = view.location(slot)
        caution = self.params.caution
        if my_side == ATT:
            q = view.leader[tile.city]
            if q < 0 or q == self.me:
                return Reinforcement()
            pot = self._potential(q, 1 << tile.city, tile)
            if not any(pot):
                return Reinforcement()
            return Reinforcement(defence=(caution * pot[0], caution * pot[1]), defender=q)
        q = self.main[slot * 2 + ATT]
        if q < 0 or q == self.me:
            return Reinforcement()
        pot = self._potential(q, controlled_cities(view, q), tile)
        return Reinforcement(attack=(caution * pot[0], caution * pot[1]), attacker=q)

    def _potential(self, player: int, cities: int, tile: D.LocationTile) -> list[float]:
        """Strength by type a player could still send: his pool, limited by his steps."""
        view = self.view
        steps = view.steps_left(player)
        if not steps:
            return [0.0, 0.0]
        out = [0.0, 0.0]
        for x in range(D.NUM_MILITARY_CITIES):
            if cities >> x & 1:
                for t in TYPES:
                    n = view.pool_count[x * 2 + t]
                    if n:
                        usable = min(n, 2 * min(steps, 2))
                        out[t] += usable * view.pool_strength(x, t) / n
        if tile.order == D.ORDER_H:
            out[D.TRIREME] = 0.0
        return out


_ODDS: dict[tuple[tuple[int, int], ...], float] = {}


def battle_odds(rounds: tuple[tuple[int, int], ...]) -> float:
    """``battle_win_probability`` memoised on integer round strengths (no starting tokens)."""
    p = _ODDS.get(rounds)
    if p is None:
        if len(_ODDS) > 200_000:
            _ODDS.clear()
        p = _ODDS[rounds] = battle_win_probability(list(rounds))
    return p


class Reinforcement(NamedTuple):
    """Expected extra strength by type on each side, and who would become main there."""

    attack: tuple[float, float] = (0.0, 0.0)
    defence: tuple[float, float] = (0.0, 0.0)
    attacker: int = -1
    defender: int = -1
