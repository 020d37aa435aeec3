"""What one player may know about a game (docs/rules.md section F), as a read-only view.

Engine-level agents (the heuristic) read the game only through a ``PlayerView``: it exposes
the public state and the viewer's own secrets, and nothing else. Hidden facts are either
left out (the deck orders, the RNG, other players' special tiles, the never-dealt specials)
or replaced by what the viewer can derive from public information:

* for military counters the viewer does not control, only their *counts* per
  (location box, city, type) and per pool are public; their strengths are summarised by the
  mean strength of that city's unrevealed counters of that type, derived from the initial
  counter mix minus the public stacks, dead pool and revealed counters (F, "Opponents know
  only the multiset of that city's non-dead, non-revealed counters");
* the viewer's own committed counters and pool (every military city he controls, Persia
  shared by Persian co-leaders), and every counter at a location whose battle has begun
  (C.2 reveal), are known exactly.

Public lists are shared with the game, not copied (the view is built for every decision);
callers must treat them as read-only. ``snapshot()`` materialises everything the view
exposes, so tests can check that changing a hidden component changes nothing here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import data as D
from ..engine import schema
from ..engine.information import controlled_cities
from .generated_view import SharedFields

if TYPE_CHECKING:
    from ..engine.game import Game

NC = D.NUM_CLASSES
NMC = D.NUM_MILITARY_CITIES
# Index of a (city, type) pair in per-pair arrays.
CT = NMC * 2

# The public fields (``engine/schema.py``) a view shares with the game, by reference; the
# view sets ``current`` and ``pending`` itself and needs no bookkeeping of cursors or logs.
_NOT_SHARED = frozenset((
    "record", "current", "setup_done", "pick_slot", "propose_cursor", "commit_cursor",
    "pending", "b_stage", "b_offers", "b_loser", "events", "decisions",
))
PUBLIC_FIELDS = tuple(f for f in schema.visible("public") if f not in _NOT_SHARED)


class PlayerView(SharedFields):
    """Public state plus ``me``'s secrets; see the module docstring."""

    __slots__ = PUBLIC_FIELDS + (
        "me",
        "current",
        "my_special",
        "has_special",
        "deck_left",
        "loc_deck_left",
        "controlled",
        "my_pool",
        "pool_count",
        "unknown_mean",
        "box_count",
        "box_known",
        "pending",
    )

    # The public fields shared with the game are typed in SharedFields (generated).

    # Derived and private fields.
    me: int
    current: int
    my_special: int
    has_special: list[bool]
    deck_left: int
    loc_deck_left: int
    controlled: int
    my_pool: list[int]
    pool_count: list[int]
    unknown_mean: list[float]
    box_count: list[int]
    box_known: list[int]
    pending: tuple[int, ...]

    def __init__(self, game: Game, player: int) -> None:
        g = game
        for name in PUBLIC_FIELDS:
            object.__setattr__(self, name, getattr(g, name))
        self.me = player
        self.current = g.current
        self.my_special = g.special[player]
        self.has_special = [t >= 0 for t in g.special]
        self.deck_left = len(g.influence_deck)
        self.loc_deck_left = len(g.loc_deck)
        self.controlled = controlled_cities(g, player)
        # A permission request shows the counter's city and type, not its strength (F).
        self.pending = (
            (D.CLASS_CITY[g.pending[0]], D.CLASS_TYPE[g.pending[0]], g.pending[1], g.pending[2])
            if g.pending
            else ()
        )
        self._military(g)

    # ---- military knowledge --------------------------------------------------------------

    def _military(self, g: Game) -> None:
        """Counts per (box, city, type) for every counter; strengths only where known (F:
        the engine's ``military_knowledge``, answered in C++ on the core)."""
        known = g.military_knowledge(self.me)
        self.my_pool = known.my_pool
        self.pool_count = known.pool_count
        self.unknown_mean = known.unknown_mean
        self.box_count = known.box_count
        self.box_known = known.box_known

    def box_strength(self, slot: int, side: int, box: int, unit_type: int) -> float:
        """Strength of one box for one round type: exact where known, else expected."""
        total = 0.0
        b = (slot * 2 + side) * 2 + box
        for x in range(NMC):
            i = b * CT + x * 2 + unit_type
            n = self.box_count[i]
            if n:
                known = self.box_known[i]
                total += known if known >= 0 else n * self.unknown_mean[x * 2 + unit_type]
        return total

    def side_strength(self, slot: int, side: int, unit_type: int) -> float:
        return self.box_strength(slot, side, 0, unit_type) + self.box_strength(
            slot, side, 1, unit_type
        )

    def side_count(self, slot: int, side: int, unit_type: int) -> int:
        """Number of counters of a type on one side (public)."""
        n = 0
        for box in (0, 1):
            b = ((slot * 2 + side) * 2 + box) * CT
            for x in range(NMC):
                n += self.box_count[b + x * 2 + unit_type]
        return n

    def side_totals(self) -> tuple[list[float], list[int]]:
        """``side_strength`` and ``side_count`` for every (slot, side, type), indexed
        ``(slot * 2 + side) * 2 + type``, in one pass over the boxes (the same additions in
        the same order, so the same floats)."""
        strength = [0.0] * (D.LOCATION_SLOTS * 4)
        count = [0] * (D.LOCATION_SLOTS * 4)
        box_count, box_known, mean = self.box_count, self.box_known, self.unknown_mean
        for side_index in range(D.LOCATION_SLOTS * 2):  # slot * 2 + side
            totals = [[0.0, 0.0], [0.0, 0.0]]  # [box][type]
            seen = False
            for box in (0, 1):
                base = (side_index * 2 + box) * CT
                for xt in range(CT):  # city * 2 + type
                    n = box_count[base + xt]
                    if n:
                        seen = True
                        known = box_known[base + xt]
                        totals[box][xt & 1] += known if known >= 0 else n * mean[xt]
                        count[side_index * 2 + (xt & 1)] += n
            if seen:
                for t in (D.HOPLITE, D.TRIREME):
                    strength[side_index * 2 + t] = totals[0][t] + totals[1][t]
        return strength, count

    def city_count(self, slot: int, side: int, city: int, unit_type: int) -> int:
        n = 0
        for box in (0, 1):
            n += self.box_count[((slot * 2 + side) * 2 + box) * CT + city * 2 + unit_type]
        return n

    def known_city_strength(self, slot: int, side: int, city: int, unit_type: int) -> float:
        """Strength of one city's counters of a type on one side (expected if unknown)."""
        total = 0.0
        for box in (0, 1):
            i = ((slot * 2 + side) * 2 + box) * CT + city * 2 + unit_type
            n = self.box_count[i]
            if n:
                known = self.box_known[i]
                total += known if known >= 0 else n * self.unknown_mean[city * 2 + unit_type]
        return total

    def pool_strength(self, city: int, unit_type: int) -> float:
        """Strength left in a city's pool: exact for the viewer's cities, else expected."""
        if self.controlled >> city & 1:
            return float(
                sum(self.my_pool[k] * D.CLASS_STRENGTH[k] for k in D.CLASSES_OF[city][unit_type])
            )
        return self.pool_count[city * 2 + unit_type] * self.unknown_mean[city * 2 + unit_type]

    # ---- public helpers -------------------------------------------------------------------

    def steps_left(self, player: int) -> int:
        """Commit steps the player still has this turn (his held tiles, public)."""
        return self.held2[player] + self.held1[player]

    def location(self, slot: int) -> D.LocationTile:
        return D.LOCATION_TILES[self.loc_display[slot]]

    def snapshot(self) -> dict[str, Any]:
        """Everything the view exposes, as plain data (for leak tests)."""
        out: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, list) else value
        return out
