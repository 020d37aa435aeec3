"""A deliberately plain observation encoder, kept only as the reference for the fast,
incremental one in ``perikles_env.analysis.observation`` (same layout and values): it
re-encodes every block from the engine state on every call, in the most direct way.
It reuses the layout (``OFFSETS``) and the static tables, nothing else."""

from __future__ import annotations

import numpy as np

from perikles_env.analysis.observation import CLIP, OBS_SIZE, OFFSETS, ORACLE_SIZE
from perikles_env.engine import data as D
from perikles_env.engine.determinize import known_cities, revealed_slot
from perikles_env.engine.game import Game
from perikles_env.engine.phases import Phase

S = D.MAX_PLAYERS
C = D.NUM_CITIES
M = D.NUM_MILITARY_CITIES
L = D.LOCATION_SLOTS
K = D.NUM_CLASSES
_STRENGTH8 = np.array([1, 2, 3, 4, 1, 2, 3, 4], dtype=np.float32)
_BITS7 = np.array([[m >> b & 1 for b in range(7)] for m in range(128)], dtype=np.float32)


def _location_rows() -> np.ndarray:
    rows = np.zeros((D.NUM_LOCATION_TILES, 14), dtype=np.float32)
    for t, tile in enumerate(D.LOCATION_TILES):
        rows[t, tile.city] = 1
        rows[t, 6] = tile.vp / 7
        rows[t, 7 + tile.order] = 1
        rows[t, 10:12] = tile.militia
        rows[t, 12:14] = tile.rebels
    return rows


def _display_rows() -> np.ndarray:
    rows = np.zeros((D.NUM_INFLUENCE_TILES, 12), dtype=np.float32)
    for t, tile in enumerate(D.INFLUENCE_TILES):
        rows[t, 0] = 1
        rows[t, 1 + tile.colour] = 1
        rows[t, 8 + tile.kind] = 1
    return rows


_LOCATION_ROWS = _location_rows()
_DISPLAY_ROWS = _display_rows()


def reference_observation(game: Game, player: int, oracle: bool = False) -> np.ndarray:
    if type(game) is not Game:
        game = game.to_python()  # the reference reads the Python engine's rule helpers
    out = np.zeros(ORACLE_SIZE if oracle else OBS_SIZE, dtype=np.float32)
    enc = _Encoder(game, player, out)
    for method in (
        enc._header,
        enc._politics,
        enc._influence,
        enc._locations,
        enc._military,
        enc._relations,
        enc._specials,
        enc._context,
        enc._scores,
    ):
        method()
    if oracle:
        _encode_oracle(game, player, out)
    return out


class _Encoder:
    __slots__ = ("g", "p", "n", "out", "seats")

    def __init__(self, game: Game, player: int, out: np.ndarray) -> None:
        self.g, self.p, self.n, self.out = game, player, game.n, out
        # seats[r] = absolute seat at relative slot r
        self.seats = [(player + r) % game.n for r in range(game.n)]

    def rel(self, seat: int) -> int:
        return (seat - self.p) % self.n

    def block(self, name: str) -> np.ndarray:
        a, b = OFFSETS[name]
        return self.out[a:b]

    def per_city_seat(self, name: str, values: list[int], scale: float) -> None:
        grid = np.asarray(values, dtype=np.float32).reshape(C, S)[:, : self.n]
        self.block(name).reshape(C, S)[:, : self.n] = grid[:, self.seats] / scale

    def _header(self) -> None:
        g, n = self.g, self.n
        self.block("phase")[int(g.phase)] = 1
        self.block("turn")[min(g.turn, 3) - 1] = 1
        self.block("num_players")[n - 3] = 1
        self.block("seat_present")[:n] = 1
        if g.current >= 0:
            self.block("acting_seat")[self.rel(g.current)] = 1

    def _politics(self) -> None:
        g, n, seats = self.g, self.n, self.seats
        self.per_city_seat("cubes", g.cubes, 10.0)
        cand = self.block("candidates").reshape(C * 2, S)
        for i, q in enumerate(g.cand):
            if q >= 0:
                cand[i, self.rel(q)] = 1
        self.block("supply")[:n] = [g.supply[q] / 30 for q in seats]
        leaders = self.block("leaders").reshape(C, S)
        for c, q in enumerate(g.leader):
            if q >= 0:
                leaders[c, self.rel(q)] = 1
        self.block("persian_leaders")[:n] = [g.persian >> q & 1 for q in seats]
        self.per_city_seat("statues", g.statues, 3.0)
        self.block("defeats")[:] = [d / 4 for d in g.defeats]
        self.block("statue_values")[:] = [D.statue_value(c, g.defeats[c]) / 9 for c in range(C)]

    def _influence(self) -> None:
        g, seats = self.g, self.seats
        display = self.block("display").reshape(D.INFLUENCE_DISPLAY_SIZE, 12)
        for s, t in enumerate(g.display):
            if t >= 0:
                display[s] = _DISPLAY_ROWS[t]
        self.block("deck_size")[:] = (len(g.influence_deck) / 36, len(g.loc_deck) / 21)
        held = self.block("tiles_held").reshape(S, 2)
        colours = self.block("colours_taken").reshape(S, 7)
        for r, q in enumerate(seats):
            held[r] = (g.held2[q] / 5, g.held1[q] / 5)
            colours[r] = _BITS7[g.colours_taken[q]]
        first = self.block("first_players").reshape(2, S)
        first[0, self.rel(g.first_player)] = 1
        first[1, self.rel(g.commit_first)] = 1

    def _scores(self) -> None:
        g, n, seats = self.g, self.n, self.seats
        scores = g.scores()
        sc = self.block("scores").reshape(2, S)
        sc[0, :n] = [min(scores[q] / 50, CLIP) for q in seats]
        sc[1, :n] = [g.location_vp(q) / 30 for q in seats]

    def _locations(self) -> None:
        g = self.g
        locs = self.block("locations").reshape(L, 15)
        for s, t in enumerate(g.loc_display):
            if t >= 0:
                locs[s, :14] = _LOCATION_ROWS[t]
                locs[s, 14] = g.loc_done[t]
        mains = self.block("mains").reshape(L * 2, S)
        for i, q in enumerate(g.main):
            if q >= 0:
                mains[i, self.rel(q)] = 1

    def _military(self) -> None:
        g = self.g
        at = np.array(g.at, dtype=np.float32).reshape(L, 4, M, 8)  # 4 = side * 2 + box
        self.block("box_counts")[:] = at.reshape(L, 4, M, 2, 4).sum(axis=4).ravel() / 4
        known = _BITS7[known_cities(g, self.p)]
        seen = at * known[None, None, :, None]
        revealed = revealed_slot(g)
        if revealed >= 0:
            seen[revealed] = at[revealed]
        hidden = at - seen
        by_type = (seen * _STRENGTH8).reshape(L, 2, 2, M, 2, 4).sum(axis=(2, 3, 5))
        self.block("box_known_strength")[:] = np.minimum(by_type.ravel() / 12, CLIP)
        unknown = hidden.reshape(L, 2, 2, M, 2, 4).sum(axis=(2, 3, 5))
        self.block("box_unknown_count")[:] = np.minimum(unknown.ravel() / 4, CLIP)
        self.block("stacks")[:] = g.stack
        self.block("dead_pool")[:] = g.dead
        pool = np.array(g.pool, dtype=np.float32).reshape(M, 8)
        self.block("pool_counts")[:] = pool.reshape(M, 2, 4).sum(axis=2).ravel() / 10
        self.block("own_pool")[:] = (pool * known[:, None]).ravel() / 4
        unseen = (pool + hidden.sum(axis=(0, 1))) * (1 - known)[:, None]
        self.block("unseen_strengths")[:] = unseen.ravel() / 4
        a, b = OFFSETS["stacks"][0], OFFSETS["dead_pool"][1]
        self.out[a:b] /= 4

    def _relations(self) -> None:
        g = self.g
        self.block("war")[:] = _BITS7[g.war].ravel()
        self.block("alliance")[:] = _BITS7[g.ally].ravel()
        self.block("permissions")[:] = _BITS7[g.perm].ravel()
        self.block("denied")[:] = _BITS7[g.denied].ravel()

    def _specials(self) -> None:
        g, p = self.g, self.p
        own = self.block("own_special")
        own[g.special[p] if g.special[p] >= 0 else D.NUM_SPECIALS] = 1
        self.block("specials_held")[: self.n] = [g.special[q] >= 0 for q in self.seats]
        played = self.block("specials_played").reshape(D.NUM_SPECIALS, S)
        for t, q in enumerate(g.special_played):
            if q >= 0:
                played[t, self.rel(q)] = 1

    def _context(self) -> None:
        g = self.g
        phase = g.phase
        step = self.block("commit_step")
        if phase in (Phase.COMMIT, Phase.PERMISSION):
            step[self.rel(g.step_player)] = 1
            step[S : S + 4] = (
                g.step_normal / 2,
                g.step_extra / 2,
                g.step_closed,
                g.step_spend >= 0,
            )
            if g.step_spend >= 0:
                step[S + 4 + g.step_spend] = 1
        step[S + 4 + C] = g.pick_special_done if phase == Phase.INFLUENCE_PICK else 0
        if g.pending:
            req = self.block("permission_request")
            klass, slot, side = g.pending
            req[D.CLASS_CITY[klass]] = 1
            req[M + D.CLASS_TYPE[klass]] = 1
            req[M + 2 + slot] = 1
            req[M + 2 + L + side] = 1
        if g.alki:
            alki = self.block("alkibiades").reshape(2, C + S)
            alki[0, g.alki[0]] = 1
            alki[0, C + self.rel(g.alki[1])] = 1
            if len(g.alki) == 5:
                alki[1, g.alki[3]] = 1
                alki[1, C + self.rel(g.alki[4])] = 1
        if phase == Phase.DEAD_POOL:
            self.block("dead_pool_city")[g.dp_queue[g.dp_index + 1]] = 1
        if phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY):
            self._battle()

    def _battle(self) -> None:
        g = self.g
        b = self.block("battle")
        slot = g.b_slot
        tile = D.LOCATION_TILES[g.loc_display[slot]]
        unit = tile.rounds[g.b_round]
        b[slot] = 1
        b[L + g.b_round] = 1
        b[L + 2 : L + 4] = (g.b_tokens[0] / 2, g.b_tokens[1] / 2)
        if g.b_head >= 0:
            b[L + 4 + g.b_head] = 1
        b[L + 6] = g.b_double
        attack = g._strength(slot, 0, unit) + tile.rebels[unit]
        defence = g._strength(slot, 1, unit) + tile.militia[unit]
        b[L + 7 : L + 9] = (min(attack / 20, CLIP), min(defence / 20, CLIP))
        if attack >= 1 and defence >= 1:
            b[L + 9 + D.crt_column(attack, defence)] = 1
        for k in g.b_cas if g.phase == Phase.CASUALTY else ():
            b[L + 15 + D.CLASS_CITY[k]] = 1


def _encode_oracle(game: Game, player: int, out: np.ndarray) -> None:
    pos = OBS_SIZE
    specials = out[pos : pos + D.NUM_SPECIALS * S].reshape(D.NUM_SPECIALS, S)
    for q in range(game.n):
        if game.special[q] >= 0:
            specials[game.special[q], (q - player) % game.n] = 1
    pos += D.NUM_SPECIALS * S
    out[pos : pos + K] = np.asarray(game.pool, dtype=np.float32) / 4
    pos += K
    out[pos : pos + L * 4 * K] = np.asarray(game.at, dtype=np.float32) / 4
