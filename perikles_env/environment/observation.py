"""Observation encoder: what one player may know (RULES.md F) as a flat float32 vector.

The layout is fixed for 3, 4 and 5 players: five seat slots ordered **relative to the
observer** (slot 0 = the observer, 1 = the player to his left, ...; slots >= num_players
stay zero), so one policy can play every seat and player count. ``LAYOUT`` lists every block
(name, size, meaning, scale); ``docs/observation.md`` is generated from it.

Hidden information never enters the vector: other players' special tiles, the strengths of
face-down counters the observer does not control, deck orders and the RNG. The ``oracle``
variant appends a clearly separate block with all of that (debugging, privileged critics).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..engine import data as D
from ..engine.determinize import known_cities, revealed_slot
from ..engine.game import Game
from ..engine.phases import Phase

S = D.MAX_PLAYERS
C = D.NUM_CITIES
M = D.NUM_MILITARY_CITIES
L = D.LOCATION_SLOTS
K = D.NUM_CLASSES
NUM_PHASES = len(Phase)


class Block(NamedTuple):
    name: str
    size: int
    meaning: str
    scale: str


LAYOUT: tuple[Block, ...] = (
    Block("phase", NUM_PHASES, "one-hot decision phase (engine Phase enum order)", "0/1"),
    Block("turn", 3, "one-hot game turn 1..3", "0/1"),
    Block("num_players", 3, "one-hot player count 3, 4, 5", "0/1"),
    Block("seat_present", S, "1 for relative seats that exist in this game", "0/1"),
    Block("acting_seat", S, "relative seat of the player to decide", "0/1"),
    Block("cubes", C * S, "main-area cubes [city][relative seat]", "/10"),
    Block("candidates", C * 2 * S, "candidate [city][alpha, beta][relative seat]", "0/1"),
    Block("supply", S, "cubes in supply per relative seat", "/30"),
    Block("leaders", C * S, "leader [city][relative seat] this turn", "0/1"),
    Block("persian_leaders", S, "Persian leaders this turn", "0/1"),
    Block("statues", C * S, "statues [city][relative seat]", "/3"),
    Block("defeats", C, "defeats per city", "/4"),
    Block("statue_values", C, "current statue value per city", "/9"),
    Block(
        "display",
        D.INFLUENCE_DISPLAY_SIZE * 12,
        "influence display [slot][present, colour x7, kind x4]",
        "0/1",
    ),
    Block("deck_size", 2, "tiles left in the influence deck, location deck", "/36, /21"),
    Block("tiles_held", S * 2, "2-shard and 1-shard tiles held [relative seat]", "/5"),
    Block("colours_taken", S * 7, "colours taken this turn [relative seat][colour]", "0/1"),
    Block("first_players", 2 * S, "phase-2 first player, phase-5 first player (relative)", "0/1"),
    Block(
        "locations",
        L * 15,
        "location slot [owner city x6, vp, order x3, militia H/T, rebels H/T, resolved]",
        "0/1, vp /7",
    ),
    Block("mains", L * 2 * S, "main attacker/defender [slot][side][relative seat]", "0/1"),
    Block(
        "box_counts",
        L * 2 * 2 * M * 2,
        "counters at [slot][attack, defend][main, allied][military city][H, T]",
        "/4",
    ),
    Block(
        "box_known_strength",
        L * 2 * 2,
        "sum of strengths the observer can see at [slot][side][H, T]",
        "/12",
    ),
    Block(
        "box_unknown_count",
        L * 2 * 2,
        "counters whose strength the observer cannot see at [slot][side][H, T]",
        "/4",
    ),
    Block("stacks", K, "counters in city stacks / Persian shield per class", "/4"),
    Block("dead_pool", K, "counters in the dead pool per class", "/4"),
    Block("pool_counts", M * 2, "counters in leaders' hands per [military city][H, T]", "/10"),
    Block("own_pool", K, "counters in the observer's own hand per class (strengths)", "/4"),
    Block(
        "unseen_strengths",
        K,
        "per class: counters whose whereabouts the observer cannot tell apart "
        "(others' hands and face-down boxes), a public multiset",
        "/4",
    ),
    Block("war", M * M, "war between military cities [a][b]", "0/1"),
    Block("alliance", M * M, "alliance between military cities [a][b]", "0/1"),
    Block("permissions", L * M, "permission granted to city X to defend slot L", "0/1"),
    Block("denied", L * M, "permission denied this commit step [slot][city]", "0/1"),
    Block("own_special", D.NUM_SPECIALS + 1, "observer's unused special tile (last = none)", "0/1"),
    Block("specials_held", S, "relative seats still holding an unused special tile", "0/1"),
    Block(
        "specials_played",
        D.NUM_SPECIALS * S,
        "special tile [tile][relative seat who played]",
        "0/1",
    ),
    Block(
        "commit_step",
        S + 4 + C + 1,
        "commit step: player (relative), normal/2, extra/2, closed, spent, cube city x6, "
        "pick special used",
        "0/1",
    ),
    Block(
        "permission_request",
        M + 2 + L + 2,
        "pending request: city, type, slot, side (strength hidden)",
        "0/1",
    ),
    Block("alkibiades", 2 * (C + S), "Alkibiades cubes chosen: [first, second][city, seat]", "0/1"),
    Block("dead_pool_city", C, "city whose dead-pool type is being chosen", "0/1"),
    Block(
        "battle",
        L + 2 + 2 + 2 + 1 + 2 + 6 + M,
        "battle: slot, round, tokens att/def, head start, doubled, strengths att/def, "
        "CRT column, tied casualty cities",
        "0/1, tokens /2, strengths /20",
    ),
    Block("scores", S * 2, "VP so far, location VP [relative seat]", "/50, /30"),
)

OFFSETS: dict[str, tuple[int, int]] = {}
_pos = 0
for _b in LAYOUT:
    OFFSETS[_b.name] = (_pos, _pos + _b.size)
    _pos += _b.size
OBS_SIZE = _pos

ORACLE_LAYOUT: tuple[Block, ...] = (
    Block(
        "oracle_specials", D.NUM_SPECIALS * S, "every unused special [tile][relative seat]", "0/1"
    ),
    Block("oracle_pool", K, "all leaders' hands per class", "/4"),
    Block("oracle_boxes", L * 4 * K, "counters per [slot][side, box][class]", "/4"),
)
ORACLE_SIZE = OBS_SIZE + sum(b.size for b in ORACLE_LAYOUT)

_STRENGTH8 = np.array([1, 2, 3, 4, 1, 2, 3, 4], dtype=np.float32)
# _BITS7[mask] = the 7 low bits of mask as floats (city bitmasks to one-hot rows).
_BITS7 = np.array([[m >> b & 1 for b in range(7)] for m in range(128)], dtype=np.float32)


def observation_size(oracle: bool = False) -> int:
    return ORACLE_SIZE if oracle else OBS_SIZE


def observation_space(oracle: bool = False):  # type: ignore[no-untyped-def]
    import gymnasium as gym

    return gym.spaces.Box(-1.0, 4.0, shape=(observation_size(oracle),), dtype=np.float32)


def _location_table() -> np.ndarray:
    rows = np.zeros((D.NUM_LOCATION_TILES, 14), dtype=np.float32)
    for t, tile in enumerate(D.LOCATION_TILES):
        rows[t, tile.city] = 1
        rows[t, 6] = tile.vp / 7
        rows[t, 7 + tile.order] = 1
        rows[t, 10:12] = tile.militia
        rows[t, 12:14] = tile.rebels
    return rows


def _display_table() -> np.ndarray:
    rows = np.zeros((D.NUM_INFLUENCE_TILES, 12), dtype=np.float32)
    for t, tile in enumerate(D.INFLUENCE_TILES):
        rows[t, 0] = 1
        rows[t, 1 + tile.colour] = 1
        rows[t, 8 + tile.kind] = 1
    return rows


_LOCATION_ROWS = _location_table()
_DISPLAY_ROWS = _display_table()


def encode_observation(
    game: Game, player: int, out: np.ndarray | None = None, oracle: bool = False
) -> np.ndarray:
    """Encode ``game`` as seen by seat ``player`` into ``out`` (allocated if None).
    Stateless; ``ObservationEncoder`` gives the same result faster when called repeatedly."""
    size = observation_size(oracle)
    if out is None:
        out = np.zeros(size, dtype=np.float32)
    else:
        out[:] = 0.0
    enc = _Encoder(game, player, out)
    for group in GROUPS:
        getattr(enc, group.method)()
    if oracle:
        _encode_oracle(game, player, out)
    return out


class Group(NamedTuple):
    """Consecutive blocks re-encoded together when ``key`` (a snapshot of the state they
    are computed from) changes."""

    first: str
    last: str
    method: str
    key: Callable[[Game, int], Any] | None  # None: re-encode every time (cheap)


def _politics_key(g: Game, p: int) -> Any:
    return (
        g.n,
        g.cubes[:],
        g.cand[:],
        g.supply[:],
        g.leader[:],
        g.persian,
        g.statues[:],
        g.defeats[:],
    )


def _influence_key(g: Game, p: int) -> Any:
    return (
        g.n,
        g.display[:],
        len(g.influence_deck),
        len(g.loc_deck),
        g.held2[:],
        g.held1[:],
        g.colours_taken[:],
        g.first_player,
        g.commit_first,
    )


def _locations_key(g: Game, p: int) -> Any:
    return (g.n, g.loc_display[:], [g.loc_done[t] for t in g.loc_display], g.main[:])


def _military_key(g: Game, p: int) -> Any:
    return (g.at[:], g.pool[:], g.stack[:], g.dead[:], known_cities(g, p), revealed_slot(g))


def _relations_key(g: Game, p: int) -> Any:
    return (g.war[:], g.ally[:], g.perm[:], g.denied[:])


def _specials_key(g: Game, p: int) -> Any:
    return (g.n, g.special[p], [t >= 0 for t in g.special], g.special_played[:])


def _scores_key(g: Game, p: int) -> Any:
    return (g.n, g.cubes[:], g.cand[:], g.statues[:], g.defeats[:], g.loc_claim[:])


GROUPS: tuple[Group, ...] = (
    Group("phase", "acting_seat", "_header", None),
    Group("cubes", "statue_values", "_politics", _politics_key),
    Group("display", "first_players", "_influence", _influence_key),
    Group("locations", "mains", "_locations", _locations_key),
    Group("box_counts", "unseen_strengths", "_military", _military_key),
    Group("war", "denied", "_relations", _relations_key),
    Group("own_special", "specials_played", "_specials", _specials_key),
    Group("commit_step", "battle", "_context", None),
    Group("scores", "scores", "_scores", _scores_key),
)


class ObservationEncoder:
    """Encodes observations into one buffer per observer, re-encoding only the groups of
    blocks whose inputs changed since that observer's last call (the returned array is that
    buffer: copy it if you keep it)."""

    def __init__(self, oracle: bool = False) -> None:
        self.oracle = oracle
        self.size = observation_size(oracle)
        self._buffers: dict[int, np.ndarray] = {}
        self._keys: dict[int, list[Any]] = {}

    def reset(self) -> None:
        self._buffers.clear()
        self._keys.clear()

    def encode(self, game: Game, player: int) -> np.ndarray:
        out = self._buffers.get(player)
        if out is None:
            out = self._buffers[player] = np.zeros(self.size, dtype=np.float32)
            self._keys[player] = [object()] * len(GROUPS)
        keys = self._keys[player]
        enc = _Encoder(game, player, out)
        for i, group in enumerate(GROUPS):
            if group.key is not None:
                key = group.key(game, player)
                if key == keys[i]:
                    continue
                keys[i] = key
            a, b = _GROUP_SLICES[i]
            out[a:b] = 0.0
            getattr(enc, group.method)()
        if self.oracle:
            out[OBS_SIZE:] = 0.0
            _encode_oracle(game, player, out)
        return out


_GROUP_SLICES = tuple((OFFSETS[g.first][0], OFFSETS[g.last][1]) for g in GROUPS)


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
        sc[0, :n] = [scores[q] / 50 for q in seats]
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
        self.block("box_known_strength")[:] = by_type.ravel() / 12
        unknown = hidden.reshape(L, 2, 2, M, 2, 4).sum(axis=(2, 3, 5))
        self.block("box_unknown_count")[:] = unknown.ravel() / 4
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
        b[L + 7 : L + 9] = (attack / 20, defence / 20)
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
