"""Observation encoder: what one player may know (docs/rules.md F) as a flat float32 vector.

The layout is fixed for 3, 4 and 5 players: five seat slots ordered **relative to the
observer** (slot 0 = the observer, 1 = the player to his left, ...; slots >= num_players
stay zero), so one policy can play every seat and player count. ``LAYOUT`` lists every block
(name, size, meaning, scale); ``docs/observation.md`` is generated from it.

Hidden information never enters the vector: other players' special tiles, the strengths of
face-down counters the observer does not control, deck orders and the RNG. The ``oracle``
variant appends a clearly separate block with all of that (debugging, privileged critics).

How it is fast (the AEC env calls it at every decision): the public part of the vector is
kept once per game state in **absolute** seat order and re-encoded group by group only when
the engine lists a group reads have changed; a player's vector is then one numpy gather
through a precomputed seat permutation, plus the few private blocks (his special tile and
the counter strengths he can see), cached per player.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..engine import data as D
from ..engine.game import Game
from ..engine.information import known_cities, revealed_slot
from ..engine.phases import Phase
from ..engine.queries import cube_vp, location_vp, statue_vp

S = D.MAX_PLAYERS
C = D.NUM_CITIES
M = D.NUM_MILITARY_CITIES
L = D.LOCATION_SLOTS
K = D.NUM_CLASSES
NUM_PHASES = len(Phase)
CLIP = 4.0  # upper bound of the observation space; only extreme stacks could exceed it


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
        "/12, clipped at 4",
    ),
    Block(
        "box_unknown_count",
        L * 2 * 2,
        "counters whose strength the observer cannot see at [slot][side][H, T]",
        "/4, clipped at 4",
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
        "0/1, tokens /2, strengths /20 clipped at 4",
    ),
    Block("scores", S * 2, "VP so far, location VP [relative seat]", "/50 clipped at 4, /30"),
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


def observation_size(oracle: bool = False) -> int:
    return ORACLE_SIZE if oracle else OBS_SIZE


def observation_space(oracle: bool = False) -> Any:
    import gymnasium as gym

    return gym.spaces.Box(-1.0, CLIP, shape=(observation_size(oracle),), dtype=np.float32)


# ---- seat-indexed positions: (block, offset inside the block, stride between seats) --------


def _rows(block: str, rows: int, row_len: int = S, first: int = 0) -> list[tuple[str, int, int]]:
    """``rows`` groups of S consecutive seat entries every ``row_len`` floats."""
    return [(block, first + i * row_len, 1) for i in range(rows)]


SEAT_GROUPS: tuple[tuple[str, int, int], ...] = tuple(
    _rows("seat_present", 1)
    + _rows("acting_seat", 1)
    + _rows("cubes", C)
    + _rows("candidates", C * 2)
    + _rows("supply", 1)
    + _rows("leaders", C)
    + _rows("persian_leaders", 1)
    + _rows("statues", C)
    + [("tiles_held", j, 2) for j in range(2)]
    + [("colours_taken", j, 7) for j in range(7)]
    + _rows("first_players", 2)
    + _rows("mains", L * 2)
    + _rows("specials_held", 1)
    + _rows("specials_played", D.NUM_SPECIALS)
    + _rows("commit_step", 1)
    + _rows("alkibiades", 2, C + S, first=C)
    + _rows("scores", 2)
)
# Blocks that depend on the observer beyond the seat order; filled after the gather.
PRIVATE_BLOCKS = (
    "own_special",
    "own_pool",
    "unseen_strengths",
    "box_known_strength",
    "box_unknown_count",
)
_ZERO = OBS_SIZE  # index of a constant 0 appended to the absolute vector (absent seats)
_PERMS: dict[tuple[int, int], np.ndarray] = {}


def seat_permutation(n: int, player: int) -> np.ndarray:
    """Index array: relative vector of ``player`` = absolute vector (plus a trailing 0)
    taken at these indices. Built once per (player count, seat)."""
    perm = _PERMS.get((n, player))
    if perm is None:
        idx = list(range(OBS_SIZE))
        for name, first, stride in SEAT_GROUPS:
            base = OFFSETS[name][0] + first
            for r in range(S):
                idx[base + r * stride] = base + (player + r) % n * stride if r < n else _ZERO
        for name in PRIVATE_BLOCKS:
            a, b = OFFSETS[name]
            idx[a:b] = [_ZERO] * (b - a)
        perm = _PERMS[(n, player)] = np.array(idx, dtype=np.intp)
    return perm


# ---- static tables --------------------------------------------------------------------------

_BOXES = L * 4  # (slot * 2 + side) * 2 + (0 main | 1 allied), as in the engine
# _BITS7[mask] = the 7 low bits of mask as floats (city bitmasks to one-hot rows).
_BITS7 = np.array([[m >> b & 1 for b in range(7)] for m in range(128)], dtype=np.float32)
# _SEE[mask][class] = 1 if the class's city is in the bitmask (the observer sees it).
_SEE = np.repeat(_BITS7, 8, axis=1)
_UNSEE = 1 - _SEE
# class counts of one box -> [its box_counts row [city][type], scaled /4 (exact in float32) |
# [count][type][city] (14..27) | [strength sum][type][city] (28..41)]
_BOX_MATRIX = np.zeros((K, 3 * 2 * M), dtype=np.float32)
for _k in range(K):
    _city, _type, _strength = D.CLASS_CITY[_k], D.CLASS_TYPE[_k], D.CLASS_STRENGTH[_k]
    _BOX_MATRIX[_k, _city * 2 + _type] = 0.25
    _BOX_MATRIX[_k, 2 * M + _type * M + _city] = 1
    _BOX_MATRIX[_k, 4 * M + _type * M + _city] = _strength
_ONES = np.ones(L * 4, dtype=np.float32)
_CLASS_CITY_TYPE = tuple(D.CLASS_CITY[k] * 2 + D.CLASS_TYPE[k] for k in range(K))
_CLASS_COLUMN = tuple(D.CLASS_TYPE[k] * M + D.CLASS_CITY[k] for k in range(K))
_CLASS_STRENGTH = D.CLASS_STRENGTH
_MAX_PATCHES = 6  # more changed counts than this: re-encode the whole block


def _changed_bytes(new: bytearray, old: bytearray) -> list[int] | None:
    """Indices where two equally long byte strings differ (highest first), or None when
    there are more than ``_MAX_PATCHES``. XOR of the strings read as big ints runs in C."""
    diff = int.from_bytes(new, "little") ^ int.from_bytes(old, "little")
    out: list[int] = []
    while diff:
        if len(out) == _MAX_PATCHES:
            return None
        top = (diff.bit_length() - 1) >> 3
        out.append(top)
        diff &= (1 << (top << 3)) - 1  # clear byte ``top`` and everything above it
    return out


_PRIVATE_BOX_WEIGHTS: dict[int, np.ndarray] = {}


def _private_box_weights(known: int) -> np.ndarray:
    """Side sums (``_BOX_MATRIX`` columns 14..41 for each of the 14 sides, flattened) ->
    [box_known_strength | box_unknown_count] for an observer who sees the cities in bitmask
    ``known``; built on first use."""
    w = _PRIVATE_BOX_WEIGHTS.get(known)
    if w is None:
        w = np.zeros((L * 2 * 28, L * 2 * 2 * 2), dtype=np.float32)
        for s in range(L * 2):
            for t in range(2):
                for c in range(M):
                    if known >> c & 1:
                        w[s * 28 + 14 + t * M + c, s * 2 + t] = 1
                    else:
                        w[s * 28 + t * M + c, L * 4 + s * 2 + t] = 1
        _PRIVATE_BOX_WEIGHTS[known] = w
    return w


_PRIVATE_BOX_DIVISORS = np.array([12.0] * (L * 4) + [4.0] * (L * 4), dtype=np.float32)
# [own_pool | unseen_strengths] = [pool | pool + face-down boxes] * _POOL_WEIGHTS[known]
_POOL_WEIGHTS = np.concatenate((_SEE, _UNSEE), axis=1) / 4
_STATUE_VALUES = tuple(
    tuple(D.statue_value(c, d) for d in range(D.NUM_LOCATION_TILES + 1)) for c in range(C)
)


def _statue_value(city: int, defeats: int) -> int:
    return _STATUE_VALUES[city][min(defeats, D.NUM_LOCATION_TILES)]


def _location_table() -> np.ndarray:
    """Static features of each location tile (the 'resolved' column is set per game)."""
    rows = np.zeros((D.NUM_LOCATION_TILES, 15), dtype=np.float32)
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


def _slice(name: str) -> slice:
    return slice(*OFFSETS[name])


def _span(first: str, last: str) -> slice:
    return slice(OFFSETS[first][0], OFFSETS[last][1])


# Offsets used in the hot paths, looked up once.
_O = {b.name: OFFSETS[b.name][0] for b in LAYOUT}
_HEADER = _span("phase", "acting_seat")
_POLITICS = _span("cubes", "statue_values")
_INFLUENCE = _span("display", "first_players")
_LOCATIONS = _span("locations", "mains")
_RESERVES = _span("stacks", "dead_pool")
_POOL_COUNTS = _slice("pool_counts")
_BOX_COUNTS = _slice("box_counts")
_RELATIONS = _span("war", "denied")
_SPECIALS = _span("specials_held", "specials_played")
_SCORES = _slice("scores")
# Phases whose sub-step context blocks are non-zero (besides a pending request, Alkibiades).
_CONTEXT_PHASES = frozenset(
    (
        Phase.COMMIT,
        Phase.PERMISSION,
        Phase.INFLUENCE_PICK,
        Phase.DEAD_POOL,
        Phase.BATTLE_SPECIAL,
        Phase.CASUALTY,
    )
)
_PRIVATE_BOX = _span("box_known_strength", "box_unknown_count")
_PRIVATE_POOL = _span("own_pool", "unseen_strengths")


# ---- public API ---------------------------------------------------------------------------


def encode_observation(
    game: Game, player: int, out: np.ndarray | None = None, oracle: bool = False
) -> np.ndarray:
    """Encode ``game`` as seen by seat ``player`` (into ``out`` if given). Stateless: a fresh
    ``ObservationEncoder`` each call; keep one encoder when encoding repeatedly."""
    obs = ObservationEncoder(oracle).encode(game, player)
    if out is None:
        return obs
    out[:] = obs
    return out


class ObservationEncoder:
    """Encodes observations of one game after another. ``encode`` returns a new array each
    call (safe to keep). The public blocks are kept in absolute seat order and updated in
    place from the engine values that changed since the previous call (any observer, any
    game: every cache compares values, never identities)."""

    def __init__(self, oracle: bool = False) -> None:
        self.oracle = oracle
        self.size = observation_size(oracle)
        self.reset()

    def reset(self) -> None:
        """Forget every cached input (optional: every cache is keyed by engine values)."""
        self._abs = np.zeros(OBS_SIZE + 1, dtype=np.float32)  # + the constant-0 slot
        self._keys: dict[str, Any] = {}
        self._private: dict[int, tuple[Any, np.ndarray, np.ndarray]] = {}
        self._context: dict[int, float] = {}  # non-zero entries of the context blocks
        self._location_vp = [0] * S
        self._statue_vp = [0] * S
        # Military counters, kept incrementally (a placement changes one box of 28):
        self._military_version = 0
        self._at = np.zeros((_BOXES, K), dtype=np.float32)  # [box][class]
        self._class_total = np.zeros(K, dtype=np.float32)  # summed over all boxes
        # [slot * 2 + side][count | strength sum][type][city], both boxes of a side together
        self._side = np.zeros((L * 2, 2 * 2 * M), dtype=np.float32)
        self._at_list = [0] * (_BOXES * K)  # the engine's ``at`` as encoded
        self._stack_list = [0] * K  # stacks and dead pool as last seen (to locate box changes)
        self._dead_list = [0] * K
        self._pool_list = [0] * K
        self._pool_bytes = bytearray(K)
        self._pool = np.zeros(K, dtype=np.float32)
        self._pools = np.zeros(2 * K, dtype=np.float32)

    def encode(self, game: Game, player: int) -> np.ndarray:
        self._update_public(game)
        perm = _PERMS.get((game.n, player))
        out = self._abs.take(seat_permutation(game.n, player) if perm is None else perm)
        self._fill_private(game, player, out)
        if self.oracle:
            full = np.zeros(ORACLE_SIZE, dtype=np.float32)
            full[:OBS_SIZE] = out
            _encode_oracle(game, player, full)
            return full
        return out

    # ---- public part, absolute seats ------------------------------------------------------

    def _previous(self, name: str, key: tuple[Any, ...]) -> Any:
        """The copy of ``key`` (live engine lists and scalars) stored last time, ``None``
        if nothing was stored, or ``False`` if nothing changed; stores a copy of ``key``."""
        old = self._keys.get(name)
        if old == key:
            return False
        self._keys[name] = tuple([v[:] if type(v) is list else v for v in key])
        return old

    def _update_public(self, g: Game) -> None:
        a = self._abs
        header = (g.n, g.turn, int(g.phase), g.current)
        old_header = self._keys.get("header")
        if old_header != header:
            self._keys["header"] = header
            _encode_header(a, header, old_header)
        old = self._previous(
            "politics", (g.n, g.cubes, g.cand, g.supply, g.leader, g.persian, g.statues, g.defeats)
        )
        politics_changed = old is not False
        if politics_changed:
            _encode_politics(g, a, old)
        old = self._previous(
            "influence",
            (
                g.n,
                g.display,
                len(g.influence_deck),
                len(g.loc_deck),
                g.held2,
                g.held1,
                g.colours_taken,
                g.first_player,
                g.commit_first,
            ),
        )
        if old is not False:
            _encode_influence(g, a, old)
        version = self._military_version
        moved: list[int] = []  # classes whose hands, stacks or dead pool changed
        if g.pool != self._pool_list:
            moved = self._update_pool(g.pool)
        if g.stack != self._stack_list or g.dead != self._dead_list:
            stack, dead = g.stack, g.dead
            old_stack, old_dead = self._stack_list, self._dead_list
            moved += [k for k in range(K) if stack[k] != old_stack[k] or dead[k] != old_dead[k]]
            self._stack_list, self._dead_list = stack[:], dead[:]
        if g.at != self._at_list:  # a list compare: C speed, no copy
            self._update_boxes(g.at, moved)
        if version != self._military_version:
            # [hands | hands + face-down boxes] per class, for the private blocks
            self._pools = np.concatenate((self._pool, self._pool + self._class_total))
        # Groups that change a few times per turn: one comparison when none changed.
        rare: tuple[Any, ...] = (g.n, g.loc_display, g.loc_done, g.main, g.loc_claim, g.stack)
        rare += (g.dead, g.war, g.ally, g.perm, g.denied, g.special, g.special_played)
        old = self._previous("rare", rare)
        claims_changed = False
        if old is not False:
            if old is None or old[0] != g.n:
                old = (g.n,) + (None,) * (len(rare) - 1)
            _, display, done, main, claims, stack, dead, war = old[:8]
            ally, perm, denied, special, played = old[8:]
            if g.loc_display != display or g.loc_done != done or g.main != main:
                _encode_locations(g, a, None if display is None else (display, done, main))
            claims_changed = g.loc_claim != claims
            if g.stack != stack or g.dead != dead:
                a[_RESERVES] = g.stack + g.dead
                a[_RESERVES] /= 4
            if g.war != war or g.ally != ally or g.perm != perm or g.denied != denied:
                a[_RELATIONS] = _BITS7[g.war + g.ally + g.perm + g.denied].ravel()
            if g.special != special or g.special_played != played:
                _encode_specials(g, a)
        context = _context_entries(g) if g.phase in _CONTEXT_PHASES or g.pending or g.alki else {}
        old_context = self._context
        if context != old_context:
            for i in old_context:
                if i not in context:
                    a[i] = 0
            for i, v in context.items():
                if old_context.get(i) != v:
                    a[i] = v
            self._context = context
        if politics_changed or claims_changed:
            self._update_scores(g, claims_changed)

    def _update_scores(self, g: Game, claims_changed: bool) -> None:
        """VP so far as in ``Game.scores`` (B.10): cubes, location tiles and statues, with the
        location and statue parts cached (they change a few times per game)."""
        n = g.n
        if claims_changed:
            self._location_vp = [location_vp(g.loc_claim, q) for q in range(n)] + [0] * (S - n)
        if self._previous("statue_vp", (n, g.statues, g.defeats)) is not False:
            self._statue_vp = [statue_vp(g.statues, g.defeats, q) for q in range(n)] + [0] * (S - n)
        cubes, cand, loc_vp, statue = g.cubes, g.cand, self._location_vp, self._statue_vp
        scores = [0.0] * (2 * S)
        for q in range(n):
            total = cube_vp(cubes, cand, q) + loc_vp[q] + statue[q]
            scores[q] = min(total / 50, CLIP)
            scores[S + q] = loc_vp[q] / 30
        self._abs[_SCORES] = scores

    def _update_boxes(self, at: list[int], moved: list[int]) -> None:
        """Update the box blocks from the engine's ``at`` (1568 counts). Counters reach or
        leave a box only from or to a hand, a stack or the dead pool, so the classes in
        ``moved`` point at the changed counts (a placement: one); they are patched in place,
        and a final list compare proves nothing else changed. Otherwise (a hand-made state,
        or many changes) everything is re-encoded."""
        self._military_version += 1
        stored = self._at_list
        changed = []
        if len(moved) <= _MAX_PATCHES:
            for k in moved:
                for i in range(k, _BOXES * K, K):
                    if at[i] != stored[i]:
                        changed.append(i)
                        stored[i] = at[i]
        if len(changed) > _MAX_PATCHES or at != stored:
            self._at_list = at[:]
            counts = np.frombuffer(bytearray(at), dtype=np.uint8)
            self._at = counts.reshape(_BOXES, K).astype(np.float32)
            self._class_total = _ONES @ self._at
            per_box = self._at @ _BOX_MATRIX
            self._abs[_BOX_COUNTS] = per_box[:, : M * 2].ravel()
            self._side = per_box[0::2, M * 2 :] + per_box[1::2, M * 2 :]  # main + allied box
            return
        at_flat, side, total, a = self._at.ravel(), self._side.ravel(), self._class_total, self._abs
        o = _O["box_counts"]
        for i in changed:
            box, k = divmod(i, K)
            count = at[i]
            delta = count - at_flat[i]
            at_flat[i] = count
            total[k] += delta
            column = _CLASS_COLUMN[k]  # type * M + city
            a[o + box * M * 2 + _CLASS_CITY_TYPE[k]] += delta / 4
            side[(box >> 1) * 28 + column] += delta
            side[(box >> 1) * 28 + 2 * M + column] += delta * _CLASS_STRENGTH[k]

    def _update_pool(self, pool_list: list[int]) -> list[int]:
        """Hands (the leaders' pools): the changed classes are patched in place (found by
        XOR of the counts as bytes) or, when many changed, everything is re-encoded.
        Returns the changed classes."""
        self._military_version += 1
        pool = bytearray(pool_list)
        changed = _changed_bytes(pool, self._pool_bytes)
        self._pool_bytes = pool
        self._pool_list = pool_list[:]
        if changed is None:
            self._pool = np.frombuffer(pool, dtype=np.uint8).astype(np.float32)
            self._abs[_POOL_COUNTS] = self._pool.reshape(M * 2, 4).sum(axis=1) / 10
            return list(range(K))
        o = _O["pool_counts"]
        for k in changed:
            self._pool[k] = pool[k]
            j = _CLASS_CITY_TYPE[k]  # city * 2 + type: four classes by strength each
            self._abs[o + j] = sum(pool[j * 4 : j * 4 + 4]) / 10
        return changed

    # ---- private part, per observer --------------------------------------------------------

    def _fill_private(self, g: Game, player: int, out: np.ndarray) -> None:
        own = g.special[player]
        out[_O["own_special"] + (own if own >= 0 else D.NUM_SPECIALS)] = 1
        known = known_cities(g, player)
        revealed = revealed_slot(g)
        key = (self._military_version, known, revealed)
        cached = self._private.get(player)
        if cached is None or cached[0] != key:
            cached = self._private[player] = (key, *self._strength_blocks(known, revealed))
        out[_PRIVATE_BOX] = cached[1]
        out[_PRIVATE_POOL] = cached[2]

    def _strength_blocks(self, known: int, revealed: int) -> tuple[np.ndarray, np.ndarray]:
        """What strengths the observer sees: his own cities' counters (hand and boxes), the
        counters of the location being resolved, and the public multiset of the rest.
        Returns (box_known_strength + box_unknown_count, own_pool + unseen_strengths)."""
        boxes = self._side.ravel() @ _private_box_weights(known)
        pools = self._pools * _POOL_WEIGHTS[known]
        if revealed >= 0:  # everything at the slot being resolved is face up
            for r in (revealed * 2, revealed * 2 + 1):
                for t in range(2):
                    boxes[r * 2 + t] = self._side[r, 14 + t * M : 14 + t * M + M].sum()
                    boxes[L * 4 + r * 2 + t] = 0
            hidden = self._class_total - self._at[revealed * 4 : revealed * 4 + 4].sum(axis=0)
            pools[K:] = (self._pool + hidden) * _POOL_WEIGHTS[known][K:]
        boxes /= _PRIVATE_BOX_DIVISORS
        return np.minimum(boxes, CLIP, out=boxes), pools


# ---- group encoders (absolute seats; the seat permutation makes them relative) -------------
# ``old`` is the tuple of engine values encoded last time (None: nothing encoded yet); only
# the entries that differ are rewritten.


def _write_scaled(a: np.ndarray, o: int, new: list[int], old: list[int] | None, d: float) -> None:
    """a[o + i] = new[i] / d for every i where new differs from old."""
    if old is None:
        a[o : o + len(new)] = new
        a[o : o + len(new)] /= d
        return
    for i, v in enumerate(new):
        if v != old[i]:
            a[o + i] = v / d


def _write_onehot(
    a: np.ndarray, o: int, new: list[int], old: list[int] | None, width: int = S
) -> None:
    """Row i of width ``width`` is one-hot at new[i] (all zero for -1)."""
    for i, v in enumerate(new):
        was = -1 if old is None else old[i]
        if v != was:
            if was >= 0:
                a[o + i * width + was] = 0
            if v >= 0:
                a[o + i * width + v] = 1


def _encode_header(a: np.ndarray, header: tuple[int, ...], old: Any) -> None:
    """phase, turn, num_players, seat_present, acting_seat from (n, turn, phase, current)."""
    n, turn, phase, current = header
    if old is None or old[:2] != header[:2]:
        a[_HEADER] = 0.0
        a[_O["turn"] + min(turn, 3) - 1] = 1
        a[_O["num_players"] + n - 3] = 1
        o = _O["seat_present"]
        a[o : o + n] = 1
        old = (n, turn, -1, -1)
    if phase != old[2]:
        if old[2] >= 0:
            a[_O["phase"] + old[2]] = 0
        a[_O["phase"] + phase] = 1
    if current != old[3]:
        if old[3] >= 0:
            a[_O["acting_seat"] + old[3]] = 0
        if current >= 0:
            a[_O["acting_seat"] + current] = 1


def _encode_politics(g: Game, a: np.ndarray, old: Any) -> None:
    """cubes, candidates, supply, leaders, Persian leaders, statues, defeats, statue values."""
    if old is None or old[0] != g.n:
        a[_POLITICS] = 0.0
        old = (g.n, None, None, None, None, 0, None, None)
    _, cubes, cand, supply, leader, persian, statues, defeats = old
    _write_scaled(a, _O["cubes"], g.cubes, cubes, 10)
    _write_onehot(a, _O["candidates"], g.cand, cand)
    _write_scaled(a, _O["supply"], g.supply, supply, 30)
    _write_onehot(a, _O["leaders"], g.leader, leader)
    if g.persian != persian or cubes is None:
        o = _O["persian_leaders"]
        a[o : o + S] = _BITS7[g.persian][:S]
    if g.statues != statues:
        _write_scaled(a, _O["statues"], g.statues, statues, 3)
    if g.defeats != defeats:
        _write_scaled(a, _O["defeats"], g.defeats, defeats, 4)
        o = _O["statue_values"]
        a[o : o + C] = [_statue_value(c, d) / 9 for c, d in enumerate(g.defeats)]


def _encode_influence(g: Game, a: np.ndarray, old: Any) -> None:
    if old is None or old[0] != g.n:
        a[_INFLUENCE] = 0.0
        old = (g.n, [-1] * D.INFLUENCE_DISPLAY_SIZE, -1, -1, None, None, [0] * S, -1, -1)
    _, display, _, _, held2, held1, colours, first, commit_first = old
    o = _O["display"]
    for s, t in enumerate(g.display):
        if t != display[s]:
            a[o + s * 12 : o + s * 12 + 12] = _DISPLAY_ROWS[t] if t >= 0 else 0.0
    o = _O["deck_size"]
    a[o] = len(g.influence_deck) / 36
    a[o + 1] = len(g.loc_deck) / 21
    o = _O["tiles_held"]
    if g.held2 != held2:
        a[o : o + 2 * S : 2] = [h / 5 for h in g.held2]
    if g.held1 != held1:
        a[o + 1 : o + 2 * S : 2] = [h / 5 for h in g.held1]
    o = _O["colours_taken"]
    for q, bits in enumerate(g.colours_taken):
        if bits != colours[q]:
            a[o + q * 7 : o + q * 7 + 7] = _BITS7[bits]
    _write_onehot(a, _O["first_players"], [g.first_player, g.commit_first], [first, commit_first])


def _encode_locations(g: Game, a: np.ndarray, old: Any) -> None:
    if old is None:
        a[_LOCATIONS] = 0.0
        old = ([-1] * L, None, None)
    display, done, main = old
    if g.loc_display != display or g.loc_done != done:
        o = _O["locations"]
        for s, t in enumerate(g.loc_display):
            if t != display[s]:
                a[o + s * 15 : o + s * 15 + 15] = _LOCATION_ROWS[t] if t >= 0 else 0.0
            if t >= 0:
                a[o + s * 15 + 14] = g.loc_done[t]
    _write_onehot(a, _O["mains"], g.main, main)


def _encode_specials(g: Game, a: np.ndarray) -> None:
    a[_SPECIALS] = 0.0
    o = _O["specials_held"]
    for q in range(g.n):
        if g.special[q] >= 0:
            a[o + q] = 1
    o = _O["specials_played"]
    for t, q in enumerate(g.special_played):
        if q >= 0:
            a[o + t * S + q] = 1


def _context_entries(g: Game) -> dict[int, float]:
    """Sub-step context (commit step, permission request, Alkibiades, dead pool, battle) as
    its non-zero entries {index: value}: a handful, so updates touch only what changed."""
    e: dict[int, float] = {}
    phase = g.phase
    o = _O["commit_step"]
    if phase == Phase.COMMIT or phase == Phase.PERMISSION:
        e[o + g.step_player] = 1
        e[o + S] = g.step_normal / 2
        e[o + S + 1] = g.step_extra / 2
        e[o + S + 2] = float(g.step_closed)
        if g.step_spend >= 0:
            e[o + S + 3] = 1
            e[o + S + 4 + g.step_spend] = 1
    elif phase == Phase.INFLUENCE_PICK:
        e[o + S + 4 + C] = float(g.pick_special_done)
    if g.pending:
        o = _O["permission_request"]
        klass, slot, side = g.pending
        e[o + D.CLASS_CITY[klass]] = 1
        e[o + M + D.CLASS_TYPE[klass]] = 1
        e[o + M + 2 + slot] = 1
        e[o + M + 2 + L + side] = 1
    if g.alki:
        o = _O["alkibiades"]
        e[o + g.alki[0]] = 1
        e[o + C + g.alki[1]] = 1
        if len(g.alki) == 5:
            e[o + C + S + g.alki[3]] = 1
            e[o + C + S + C + g.alki[4]] = 1
    if phase == Phase.DEAD_POOL:
        e[_O["dead_pool_city"] + g.dp_queue[g.dp_index + 1]] = 1
    if phase == Phase.BATTLE_SPECIAL or phase == Phase.CASUALTY:
        _battle_entries(g, e)
    return e


def _battle_entries(g: Game, e: dict[int, float]) -> None:
    o = _O["battle"]
    slot = g.b_slot
    tile = D.LOCATION_TILES[g.loc_display[slot]]
    unit = tile.rounds[g.b_round]
    e[o + slot] = 1
    e[o + L + g.b_round] = 1
    e[o + L + 2] = g.b_tokens[0] / 2
    e[o + L + 3] = g.b_tokens[1] / 2
    if g.b_head >= 0:
        e[o + L + 4 + g.b_head] = 1
    e[o + L + 6] = float(g.b_double)
    attack, defence = g.round_strengths(slot, unit)
    e[o + L + 7] = min(attack / 20, CLIP)
    e[o + L + 8] = min(defence / 20, CLIP)
    if attack >= 1 and defence >= 1:
        e[o + L + 9 + D.crt_column(attack, defence)] = 1
    if g.phase == Phase.CASUALTY:
        for k in g.b_cas:
            e[o + L + 15 + D.CLASS_CITY[k]] = 1


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
