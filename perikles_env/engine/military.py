"""Phase 5, commit military forces (B.7): taking control of forces, the Spartan choice, dead
pool recovery, the 2-shard-then-1-shard commit order, commit steps as micro-actions,
placement legality with city relationships, permission interrupts and Slave Revolt (D.4).

Engine decisions made here beyond the specification (docs/rules.md G6, G7):
* A commit step in which the only legal action is ``END_STEP`` ends automatically when the
  player holds no unused special tile (whether one is held is public, so no leak).
* Slave Revolt played after at least one placement closes the step's placements (it is
  then "after step 4"); played first, placements continue (D.4, B.7.5 step 2).
"""

from __future__ import annotations

from . import actions as A
from . import data as D
from .phases import Phase
from .queries import placement_status, placement_targets
from .state import RulesBase

_SLOTS = range(D.LOCATION_SLOTS)
_SPARTAN_HOPLITES = D.CLASSES_OF[D.SPARTA][D.HOPLITE]
_PLACE_K = A.place(1, 0, 0) - A.place(0, 0, 0)  # id stride of one counter class
_HOPLITE_ONLY = [tile.order == D.ORDER_H for tile in D.LOCATION_TILES]


class MilitaryRules(RulesBase):
    __slots__ = ()

    # ---- B.7.1-B.7.3 ---------------------------------------------------------------------

    def _take_forces(self) -> None:
        """B.7.1: leaders (and Persian leaders) take their cities' stacks into the pool."""
        for c in range(D.NUM_MILITARY_CITIES):
            controlled = self.leader[c] >= 0 if c < D.NUM_CITIES else self.persian != 0
            if controlled:
                for k in D.CLASSES_OF_CITY[c]:
                    self.pool[k] += self.stack[k]
                    self.stack[k] = 0

    def _begin_military_phase(self) -> None:
        self._take_forces()
        if self.leader[D.SPARTA] >= 0:
            self.current = self.leader[D.SPARTA]
            self.phase = Phase.SPARTA_CHOICE
        else:
            self.commit_first = self.first_player  # E11
            self._begin_dead_pool()

    def _legal_sparta(self) -> list[int]:
        return [A.SPARTA_FIRST + off for off in range(self.n)]

    def _apply_sparta(self, action: int) -> None:
        self.commit_first = self._seat(action - A.SPARTA_FIRST)
        self._log("sparta_first", self.current, self.commit_first)
        self._begin_dead_pool()

    def _begin_dead_pool(self) -> None:
        queue = []
        for i in range(self.n):
            p = (self.commit_first + i) % self.n
            for c in range(D.NUM_CITIES):
                if self.leader[c] == p:
                    queue += [p, c]
        self.dp_queue = queue
        self.dp_index = 0
        self._next_dead_pool()

    def _dead_types(self, city: int) -> list[int]:
        return [
            t for t in (D.HOPLITE, D.TRIREME) if any(self.dead[k] for k in D.CLASSES_OF[city][t])
        ]

    def _next_dead_pool(self) -> None:
        while self.dp_index < len(self.dp_queue):
            p, city = self.dp_queue[self.dp_index], self.dp_queue[self.dp_index + 1]
            types = self._dead_types(city)
            if len(types) == 2:
                self.current = p
                self.phase = Phase.DEAD_POOL
                return
            if types:
                self._recover(p, city, types[0])
            self.dp_index += 2
        self._begin_commit()

    def _recover(self, player: int, city: int, unit_type: int) -> None:
        for k in D.CLASSES_OF[city][unit_type]:  # lowest strength first (E6, E7)
            if self.dead[k]:
                self.dead[k] -= 1
                self.pool[k] += 1
                self._log("recover", player, D.class_name(k))
                return

    def _legal_dead_pool(self) -> list[int]:
        return [A.DEAD_POOL, A.DEAD_POOL + 1]

    def _apply_dead_pool(self, action: int) -> None:
        self._recover(self.current, self.dp_queue[self.dp_index + 1], action - A.DEAD_POOL)
        self.dp_index += 2
        self._next_dead_pool()

    # ---- B.7.4 commit order ---------------------------------------------------------------

    def _begin_commit(self) -> None:
        self._log("phase", self.turn, "commit", self.commit_first)
        self.commit_cursor = self.commit_first
        self._next_commit_step()

    def _next_commit_step(self) -> None:
        while True:
            if not any(self.held2) and not any(self.held1):
                self._begin_battles()
                return
            p = self.commit_cursor
            self.commit_cursor = (p + 1) % self.n
            if any(self.held2):
                if not self.held2[p]:
                    continue
                self.held2[p] -= 1
            elif self.held1[p]:
                self.held1[p] -= 1
            else:
                continue
            self.step_player = p
            self.step_normal = self.step_extra = 0
            self.step_spend = -1
            self.step_closed = False
            self.denied = [0] * D.LOCATION_SLOTS
            self.current = p
            self.phase = Phase.COMMIT
            if self._step_is_idle():
                self._log("commit_nothing", p)
                continue
            return

    def _step_is_idle(self) -> bool:
        """Only END_STEP is legal and no unused special tile is held (see module doc)."""
        if self._has_unused_special(self.current):
            return False  # so no Slave Revolt either: only placements and spends remain
        p = self.step_player
        mask = self._placeable_cities()
        for x in range(D.NUM_MILITARY_CITIES):
            if mask >> x & 1 and self._placements(p, x, first_only=True):
                return False
        can_spend = self.step_spend < 0 and self.step_normal >= 1 and not self.step_closed
        return not (can_spend and self._spend_actions(p))

    def _end_step_if_idle(self) -> None:
        if self._step_is_idle():
            self._next_commit_step()

    # ---- B.7.6 placement legality ----------------------------------------------------------

    # The rule itself is ``queries.placement_targets``: one implementation for the engine
    # and every consumer (heuristic, battle features).
    _target_status = placement_status
    _open_targets = placement_targets

    def _placeable_cities(self) -> int:
        """Bitmask of military cities the step player may place from right now."""
        if self.step_closed:
            return 0
        if self.step_spend < 0:
            return self._led_mask(self.step_player) if self.step_normal < 2 else 0
        if self.step_extra >= 2:
            return 0
        return 1 << (D.PERSIA if self.persian >> self.step_player & 1 else self.step_spend)

    def _placements(self, p: int, x: int, first_only: bool = False) -> list[int]:
        """PLACE actions for the pool counters of city x (statuses 1 and 2)."""
        pool = self.pool
        classes = [k for k in D.CLASSES_OF_CITY[x] if pool[k]]
        if not classes:
            return []
        hoplites = [k for k in classes if D.CLASS_TYPE[k] == D.HOPLITE]
        display = self.loc_display
        out: list[int] = []
        for slot, side, _status in self._open_targets(p, x, first_only, not hoplites):
            usable = hoplites if _HOPLITE_ONLY[display[slot]] else classes  # E24
            if first_only:
                return [A.place(usable[0], slot, side)]
            base = A.place(0, slot, side)  # A.place(k, ...) == base + k * _PLACE_K
            out += [base + k * _PLACE_K for k in usable]
        return out

    def _legal_commit(self) -> list[int]:
        p = self.step_player
        out: list[int] = []
        mask = self._placeable_cities()
        for x in range(D.NUM_MILITARY_CITIES):
            if mask >> x & 1:
                out += self._placements(p, x)
        if self.step_spend < 0 and self.step_normal >= 1 and not self.step_closed:
            out += self._spend_actions(p)
        out += self._slave_revolt_actions(p)
        out.append(A.END_STEP)
        out.sort()
        return out

    def _spend_actions(self, p: int) -> list[int]:
        """B.7.5 step 4 and its [ENGINE] precondition: a placeable counter must remain."""
        out = []
        if self.persian >> p & 1:
            if self._placements(p, D.PERSIA, first_only=True):
                out = [A.SPEND_CUBE + c for c in range(D.NUM_CITIES) if self.cubes[c * 5 + p]]
            return out
        for c in range(D.NUM_CITIES):
            if self.leader[c] == p and self.cubes[c * 5 + p] and self._placements(p, c, True):
                out.append(A.SPEND_CUBE + c)
        return out

    def _slave_revolt_actions(self, p: int) -> list[int]:
        if self.special[p] != D.SLAVE_REVOLT or self.step_closed or self.leader[D.SPARTA] < 0:
            return []
        out = []
        if any(self.pool[k] for k in _SPARTAN_HOPLITES):
            out.append(A.SLAVE_REVOLT)
        for slot in _SLOTS:
            if self._spartan_hoplites_at(slot):
                out.append(A.SLAVE_REVOLT + 1 + slot)
        return out

    def _spartan_hoplites_at(self, slot: int) -> list[int]:
        """(box offset + class) indices into ``at`` holding Spartan hoplites at a slot."""
        out = []
        for box in range(slot * 4, slot * 4 + 4):
            base = box * D.NUM_CLASSES
            out += [base + k for k in _SPARTAN_HOPLITES if self.at[base + k]]
        return out

    # ---- commit actions ----------------------------------------------------------------------

    def _apply_commit(self, action: int) -> None:
        if action == A.END_STEP:
            self._log("end_step", self.current)
            self._next_commit_step()
            return
        if action >= A.SLAVE_REVOLT:
            self._slave_revolt(action - A.SLAVE_REVOLT)
        elif action >= A.SPEND_CUBE:
            city = action - A.SPEND_CUBE
            self._remove_cubes(self.current, city, 1)
            self.step_spend = city
            self._log("spend_cube", self.current, D.CITY_NAMES[city])
        else:
            rest, side = divmod(action - A.PLACE, 2)
            klass, slot = divmod(rest, D.LOCATION_SLOTS)
            x = D.CLASS_CITY[klass]
            if self._target_status(self.current, x, slot, side) == 2:
                self.pending = [klass, slot, side]
                owner = D.LOCATION_TILES[self.loc_display[slot]].city
                self.current = self.leader[owner]
                self.phase = Phase.PERMISSION
                self._log("ask_permission", self.step_player, D.MILITARY_CITY_NAMES[x], slot)
                return
            self._place(klass, slot, side)
        self._end_step_if_idle()

    def _place(self, klass: int, slot: int, side: int) -> None:
        """Lay one counter face down and apply the relationship effects (B.7.5, B.7.6)."""
        p = self.step_player
        x = D.CLASS_CITY[klass]
        ms = slot * 2 + side
        main = self.main[ms]
        if main < 0:
            self.main[ms] = p
            box = 0
        elif main == p or (x == D.PERSIA and self.persian >> main & 1):
            box = 0  # B.11: Persian co-leaders share the main box
        else:
            box = 1
        self.pool[klass] -= 1
        self.at[(ms * 2 + box) * D.NUM_CLASSES + klass] += 1
        owner = D.LOCATION_TILES[self.loc_display[slot]].city
        attackers = self.side_cities[slot * 2]
        defenders = self.side_cities[slot * 2 + 1] | (1 << owner)
        if side == A.ATTACK:
            self._relate(x, defenders, self.war)
            self._relate(x, attackers, self.ally)
        else:
            self._relate(x, attackers, self.war)
            self._relate(x, defenders, self.ally)
        self.side_cities[ms] |= 1 << x
        if self.step_spend < 0:
            self.step_normal += 1
        else:
            self.step_extra += 1
        self._log(
            "place",
            p,
            D.MILITARY_CITY_NAMES[x],
            D.UNIT_TYPE_NAMES[D.CLASS_TYPE[klass]],
            slot,
            A.SIDE_NAMES[side],
            ("main", "allied")[box],
        )

    def _relate(self, x: int, mask: int, table: list[int]) -> None:
        mask &= ~(1 << x)
        table[x] |= mask
        for c in range(D.NUM_MILITARY_CITIES):
            if mask >> c & 1:
                table[c] |= 1 << x

    # ---- B.7.8 permission ---------------------------------------------------------------------

    def _legal_permission(self) -> list[int]:
        return [A.GRANT, A.DENY]

    def _apply_permission(self, action: int) -> None:
        klass, slot, side = self.pending
        x = D.CLASS_CITY[klass]
        self.pending = []
        granted = action == A.GRANT
        self._log("permission", self.current, D.MILITARY_CITY_NAMES[x], slot, granted)
        self.current = self.step_player
        self.phase = Phase.COMMIT
        if granted:
            self.perm[slot] |= 1 << x
            self._place(klass, slot, side)
        else:
            self.denied[slot] |= 1 << x
        self._end_step_if_idle()

    # ---- D.4 Slave Revolt -----------------------------------------------------------------------

    def _slave_revolt(self, source: int) -> None:
        p = self.current
        self.special[p] = -1
        self.special_played[D.SLAVE_REVOLT] = p
        if source == 0:
            weights = [self.pool[k] for k in _SPARTAN_HOPLITES]
            k = _SPARTAN_HOPLITES[self._draw(weights)]
            self.pool[k] -= 1
            where = "pool"
        else:
            cells = self._spartan_hoplites_at(source - 1)
            cell = cells[self._draw([self.at[i] for i in cells])]
            self.at[cell] -= 1
            k = cell % D.NUM_CLASSES
            self._refresh_side_cities(source - 1)
            where = f"slot {source}"
        self.stack[k] += 1
        if self.step_normal or self.step_extra:
            self.step_closed = True
        self._log("special", p, "slaverevolt")
        self._log("slave_revolt", p, where, D.class_name(k))

    def _draw(self, weights: list[int]) -> int:
        """Index drawn with probability proportional to its weight (one counter each)."""
        r = self.rng.randrange(sum(weights))
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise RuntimeError("unreachable")

    def _refresh_side_cities(self, slot: int) -> None:
        for side in (0, 1):
            mask = 0
            for box in (0, 1):
                base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
                for k in D.EXISTING_CLASSES:
                    if self.at[base + k]:
                        mask |= 1 << D.CLASS_CITY[k]
            self.side_cities[slot * 2 + side] = mask
