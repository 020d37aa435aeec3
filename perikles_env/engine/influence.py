"""Setup placement (B.1), phase 2 influence picks (B.4) with the influence-window specials
Perikles, Plague and Alkibiades (D.1-D.3, E18-E20), phase 3 proposals (B.5, E12-E14) and
phase 4 elections (B.6).

Engine decisions made here beyond the specification (docs/rules.md G2, G4):
* A player with no legal proposal in phase 3 passes automatically (no decision is asked).
* The after-tile special window (B.4 step 5) is offered to a picker who holds *any* unused
  special tile while Perikles, Plague or Alkibiades may still be unplayed, so that being
  asked reveals nothing about which tile he holds (section F).
"""

from __future__ import annotations

from . import actions as A
from . import data as D
from .phases import Phase
from .queries import (
    assassination_targets,
    election_outcome,
    plague_losses,
    proposals,
    seat_candidate,
    unseat_candidate,
)
from .state import RulesBase

_CITIES = range(D.NUM_CITIES)


class InfluenceRules(RulesBase):
    __slots__ = ()

    # ---- setup (B.1 step 9) --------------------------------------------------------

    def _begin_setup(self) -> None:
        self.setup_done = 0
        self.phase = Phase.SETUP_PLACE
        self.current = self.first_player

    def _legal_setup(self) -> list[int]:
        return [A.SETUP_CUBE + c for c in _CITIES] if self.supply[self.current] else []

    def _apply_setup(self, action: int) -> None:
        self._add_cubes(self.current, action - A.SETUP_CUBE, 1)
        self.setup_done += 1
        if self.setup_done < 2 * self.n:
            self.current = (self.current + 1) % self.n
        else:
            self._begin_influence_phase()

    # ---- phase 2 (B.4) -------------------------------------------------------------

    def _begin_influence_phase(self) -> None:
        self.picks_done = 0
        self._log("phase", self.turn, "influence", self.first_player)
        self._begin_pick()

    def _begin_pick(self) -> None:
        total = D.TILES_PER_PLAYER[self.n] * self.n
        while self.picks_done < total:
            player = (self.first_player + self.picks_done) % self.n
            if any(t >= 0 for t in self.display):
                self.current = player
                self.phase = Phase.INFLUENCE_PICK
                self.pick_special_done = False
                self.pick_slot = -1
                return
            self._log("pick_skipped", player)  # E17: cannot happen with standard counts
            self.picks_done += 1
        self._begin_proposals()

    def _takeable_slots(self, player: int) -> list[int]:
        """Display slots the same-colour rule allows (B.4 step 2, with its exception)."""
        taken = self.colours_taken[player]
        filled = [s for s, t in enumerate(self.display) if t >= 0]
        fresh = [s for s in filled if not taken >> D.INFLUENCE_TILES[self.display[s]].colour & 1]
        return fresh or filled

    def _influence_special_actions(self, player: int) -> list[int]:
        """Perikles / Plague / Alkibiades plays open to the player now (E20)."""
        tile = self.special[player]
        if tile == D.PERIKLES:
            return [A.PLAY_PERIKLES]
        if tile == D.PLAGUE:
            return [A.PLAY_PLAGUE + c for c in _CITIES]
        if tile == D.ALKIBIADES and sum(self.cubes) >= 2:
            return self._alkibiades_cube_actions(-1, -1)
        return []

    def _legal_pick(self) -> list[int]:
        p = self.current
        out = [A.TAKE_TILE + s for s in self._takeable_slots(p)]
        if not self.pick_special_done:
            out += self._influence_special_actions(p)
        out.sort()
        return out

    def _apply_pick(self, action: int) -> None:
        if action >= A.TAKE_TILE + D.INFLUENCE_DISPLAY_SIZE or action < A.TAKE_TILE:
            self._play_influence_special(action, after_tile=False)
            return
        p = self.current
        slot = action - A.TAKE_TILE
        tile_id = self.display[slot]
        tile = D.INFLUENCE_TILES[tile_id]
        self.display[slot] = -1
        self.pick_slot = slot
        self.colours_taken[p] |= 1 << tile.colour
        if tile.shards == 2:
            self.held2[p] += 1
        else:
            self.held1[p] += 1
        self._log("take_tile", p, D.influence_name(tile_id))
        if tile.kind == D.PLAIN:
            self._add_cubes(p, tile.colour, 2)
        elif tile.kind == D.ANY_CITY:
            self.phase = Phase.ANY_CITY
            return
        else:
            self._add_cubes(p, tile.colour, 1)  # E15: cube first, then the action
            if tile.kind == D.CANDIDATE and self._proposals(p):
                self.phase = Phase.CANDIDATE_TILE
                return
            if tile.kind == D.ASSASSIN and sum(self.cubes) + sum(c >= 0 for c in self.cand):
                self.phase = Phase.ASSASSIN_TILE
                return
            self._log("action_skipped", p, D.INFLUENCE_KIND_NAMES[tile.kind])  # E14
        self._after_tile()

    def _after_tile(self) -> None:
        """B.4 step 5: offer the influence special window, else finish the pick."""
        p = self.current
        influence_unplayed = any(self.special_played[t] < 0 for t in D.INFLUENCE_SPECIALS)
        if not self.pick_special_done and self._has_unused_special(p) and influence_unplayed:
            self.phase = Phase.POST_PICK_SPECIAL
            return
        self._finish_pick()

    def _finish_pick(self) -> None:
        if self.pick_slot >= 0 and self.influence_deck:  # B.4 step 6 refill
            self.display[self.pick_slot] = self.influence_deck.pop()
        self.picks_done += 1
        self._begin_pick()

    def _legal_any_city(self) -> list[int]:
        return [A.ANY_CITY + c for c in _CITIES]

    def _apply_any_city(self, action: int) -> None:
        self._add_cubes(self.current, action - A.ANY_CITY, 1)
        self._after_tile()

    def _legal_post_pick(self) -> list[int]:
        out = [A.END_PICK] + self._influence_special_actions(self.current)
        out.sort()
        return out

    def _apply_post_pick(self, action: int) -> None:
        if action == A.END_PICK:
            self._finish_pick()
        else:
            self._play_influence_special(action, after_tile=True)

    # ---- influence specials (D.1-D.3) ----------------------------------------------

    def _mark_special_played(self, player: int, tile: int) -> None:
        self.special[player] = -1
        self.special_played[tile] = player
        self.pick_special_done = True
        self._log("special", player, D.SPECIAL_NAMES[tile])

    def _play_influence_special(self, action: int, after_tile: bool) -> None:
        p = self.current
        if action == A.PLAY_PERIKLES:
            self._mark_special_played(p, D.PERIKLES)
            self._add_cubes(p, D.ATHENS, 2)
        elif A.PLAY_PLAGUE <= action < A.PLAY_PLAGUE + D.NUM_CITIES:
            self._mark_special_played(p, D.PLAGUE)
            self._plague(action - A.PLAY_PLAGUE)
        else:  # first Alkibiades cube
            self._mark_special_played(p, D.ALKIBIADES)
            city, offset = divmod(action - A.ALKIBIADES_CUBE, D.MAX_PLAYERS)
            self.alki = [city, self._seat(offset), int(after_tile)]
            self.phase = Phase.ALKIBIADES_CUBE
            return
        self._resume_after_special(after_tile)

    def _resume_after_special(self, after_tile: bool) -> None:
        if after_tile:
            self._finish_pick()
        else:
            self.phase = Phase.INFLUENCE_PICK

    def _plague(self, city: int) -> None:
        """D.2 / E19: everyone loses floor(n/2), n counting his own candidate cube."""
        for q, loss in enumerate(plague_losses(self.cubes, self.cand, city, self.n)):
            if loss:
                self._remove_cubes(q, city, loss)
            self._log("plague_loss", q, D.CITY_NAMES[city], loss)

    def _alkibiades_cube_actions(self, city: int, owner: int) -> list[int]:
        out = []
        for c in _CITIES:
            for off in range(self.n):
                q = (self.current + off) % self.n
                have = self.cubes[c * 5 + q] - (c == city and q == owner)
                if have > 0:
                    out.append(A.city_player(A.ALKIBIADES_CUBE, c, off))
        return out

    def _legal_alki_cube(self) -> list[int]:
        return self._alkibiades_cube_actions(self.alki[0], self.alki[1])

    def _apply_alki_cube(self, action: int) -> None:
        city, offset = divmod(action - A.ALKIBIADES_CUBE, D.MAX_PLAYERS)
        self.alki[3:] = [city, self._seat(offset)]
        self.phase = Phase.ALKIBIADES_DEST

    def _legal_alki_dest(self) -> list[int]:
        c1, c2 = self.alki[0], self.alki[3]
        return [A.ALKIBIADES_DEST + c for c in _CITIES if c != c1 and c != c2]

    def _apply_alki_dest(self, action: int) -> None:
        dest = action - A.ALKIBIADES_DEST
        c1, q1, after, c2, q2 = self.alki
        for c, q in ((c1, q1), (c2, q2)):
            self.cubes[c * 5 + q] -= 1
            self.cubes[dest * 5 + q] += 1
            self._log("alkibiades_move", q, D.CITY_NAMES[c], D.CITY_NAMES[dest])
        self.alki = []
        self._resume_after_special(bool(after))

    # ---- candidate proposals (B.5, E12) ----------------------------------------------

    def _proposals(self, p: int) -> list[int]:
        """Legal (city, nominee offset) proposals of player p, as action ids (B.5, E12)."""
        n = self.n
        return [
            A.city_player(A.PROPOSE, c, (q - p) % n)
            for c, q in proposals(self.cubes, self.cand, p, n)
        ]

    def _propose(self, action: int) -> None:
        city, offset = divmod(action - A.PROPOSE, D.MAX_PLAYERS)
        q = self._seat(offset)
        slot = seat_candidate(self.cubes, self.cand, city, q)
        self._log("propose", self.current, D.CITY_NAMES[city], q, "ab"[slot & 1])

    def _legal_candidate(self) -> list[int]:
        return self._proposals(self.current)

    def _apply_candidate_tile(self, action: int) -> None:
        self._propose(action)
        self._after_tile()

    # ---- assassin (B.4 step 3, E16) ----------------------------------------------------

    def _legal_assassin(self) -> list[int]:
        n, me = self.n, self.current
        return [
            A.assassinate(c, (t - me) % n if t < D.MAX_PLAYERS else t)
            for c, t in assassination_targets(self.cubes, self.cand, n, me)
        ]

    def _apply_assassin(self, action: int) -> None:
        city, target = divmod(action - A.ASSASSINATE, A.ASSASSIN_TARGETS)
        if target < D.MAX_PLAYERS:
            victim = self._seat(target)
            self._remove_cubes(victim, city, 1)
            where = "main"
        else:
            victim = unseat_candidate(self.cand, self.supply, city * 2 + target - A.ASSASSIN_ALPHA)
            where = "alpha" if target == A.ASSASSIN_ALPHA else "beta"
        self._log("assassinate", self.current, D.CITY_NAMES[city], victim, where)
        self._after_tile()

    # ---- phase 3 (B.5, E13) ---------------------------------------------------------------

    def _begin_proposals(self) -> None:
        self._log("phase", self.turn, "proposals", self.first_player)
        self.propose_cursor = self.first_player
        self._next_proposal()

    def _next_proposal(self) -> None:
        for _ in range(self.n):
            if all(c >= 0 for c in self.cand):
                break
            p = self.propose_cursor
            if self._proposals(p):
                self.current = p
                self.phase = Phase.PROPOSE
                return
            self._log("propose_pass", p)
            self.propose_cursor = (p + 1) % self.n
        self._elections()

    def _apply_propose(self, action: int) -> None:
        self._propose(action)
        self.propose_cursor = (self.current + 1) % self.n
        self._next_proposal()

    # ---- phase 4 (B.6) --------------------------------------------------------------------

    def _elections(self) -> None:
        for c in _CITIES:
            winner, loss = election_outcome(self.cubes, self.cand, c)
            alpha, beta = self.cand[c * 2], self.cand[c * 2 + 1]
            self.cand[c * 2] = self.cand[c * 2 + 1] = -1
            if alpha < 0:
                self._log("election", D.CITY_NAMES[c], -1, 0)
                continue
            self.supply[alpha] += 1
            if beta >= 0:
                self.supply[beta] += 1
                self._remove_cubes(winner, c, loss)  # E36: the loser's main-area cubes
            self.leader[c] = winner
            self._log("election", D.CITY_NAMES[c], winner, loss)
        self.persian = 0
        for p in range(self.n):
            if p not in self.leader:
                self.persian |= 1 << p
        self._log("persian_leaders", [p for p in range(self.n) if self.persian >> p & 1])
        self._begin_military_phase()
