"""Validation of saved states (``Game.from_dict``): a state that loads plays on cleanly.

A state dict comes from outside (a file, another process, the native engine), so
``from_dict`` checks it in two stages and raises ``InvalidStateError`` naming the field:

* ``check_fields(d, fields)``: the dict alone. Every key present and none unknown;
  types (``int`` is never ``bool`` or ``float``), list lengths and value ranges; seats
  beyond the player count empty (the commit cursor would otherwise circle forever). Nothing
  is built until this passes, so the next stage may index freely.
* ``check_state(g)``: the built game. The rule invariants of ``invariants.py`` (docs/rules.md
  Appendix 2), family by family so that the error names the fields; conservation of
  influence and special tiles; the fields each phase depends on (who decides, the pick in
  progress, the dead-pool queue, the pending permission, the battle cursor and its tokens,
  offers and casualty choice); and at least one legal action before the end.

Other backends (the native engine) load through ``Game.from_dict`` first. Events are a
record, not state: the engine only appends to them, so they are checked for shape (lists
that start with a kind name) and not replayed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from operator import le
from typing import TYPE_CHECKING, Any

from ..errors import InvalidStateError
from . import actions as A
from . import data as D
from . import invariants as I
from . import schema as S
from .phases import BEFORE_ELECTIONS, INFLUENCE_PHASES, Phase

if TYPE_CHECKING:
    from .game import Game

STATE_FORMAT = "perikles-state-1"
_NC = D.NUM_CLASSES

_INFLUENCE = INFLUENCE_PHASES
_AFTER_TILE = frozenset(
    (Phase.ANY_CITY, Phase.CANDIDATE_TILE, Phase.ASSASSIN_TILE, Phase.POST_PICK_SPECIAL)
)
_ALKIBIADES = frozenset((Phase.ALKIBIADES_CUBE, Phase.ALKIBIADES_DEST))
_MILITARY = frozenset((Phase.SPARTA_CHOICE, Phase.DEAD_POOL, Phase.COMMIT, Phase.PERMISSION))
_BATTLE = frozenset((Phase.BATTLE_SPECIAL, Phase.CASUALTY))
_BEFORE_BATTLES = BEFORE_ELECTIONS | _MILITARY
_QUEUE_BUILT = frozenset((Phase.DEAD_POOL, Phase.COMMIT, Phase.PERMISSION)) | _BATTLE

Check = Callable[[str, Any], None]


def _fail(field: str, reason: str) -> InvalidStateError:
    return InvalidStateError(field, reason)


# ---- stage 1: the dict alone --------------------------------------------------------------


def _is_int(x: Any) -> bool:
    return type(x) is int  # bool and float are rejected, as are int subclasses


def _int(lo: int, hi: int) -> Check:
    def check(name: str, value: Any) -> None:
        if not _is_int(value):
            raise _fail(name, f"expected an int, got {type(value).__name__} {value!r}")
        if not lo <= value <= hi:
            raise _fail(name, f"{value} outside {lo}..{hi}")

    return check


def _bool(name: str, value: Any) -> None:
    if type(value) is not bool:
        raise _fail(name, f"expected a bool, got {type(value).__name__} {value!r}")


def _ints(
    lo: int | tuple[int, ...],
    hi: int | tuple[int, ...],
    length: int | None = None,
    max_length: int | None = None,
) -> Check:
    """A list of ints; ``lo``/``hi`` are one bound for all items or one per item."""

    def check(name: str, value: Any) -> None:
        if type(value) is not list:
            raise _fail(name, f"expected a list, got {type(value).__name__}")
        if length is not None and len(value) != length:
            raise _fail(name, f"expected {length} items, got {len(value)}")
        if max_length is not None and len(value) > max_length:
            raise _fail(name, f"at most {max_length} items, got {len(value)}")
        if _all_in(value, lo, hi):
            return
        for i, x in enumerate(value):  # slow path: name the first bad item
            low = lo if isinstance(lo, int) else lo[i]
            high = hi if isinstance(hi, int) else hi[i]
            if not _is_int(x) or not low <= x <= high:
                what = x if _is_int(x) else f"{type(x).__name__} {x!r}"
                raise _fail(f"{name}[{i}]", f"{what} is not an int in {low}..{high}")

    return check


def _all_in(value: list[Any], lo: int | tuple[int, ...], hi: int | tuple[int, ...]) -> bool:
    """Fast path of ``_ints`` (C-level loops: the 1,568 counter boxes are checked on every
    load)."""
    if not value:
        return True
    if set(map(type, value)) != {int}:
        return False
    low = min(value) >= lo if isinstance(lo, int) else all(map(le, lo, value))
    high = max(value) <= hi if isinstance(hi, int) else all(map(le, value, hi))
    return low and high


def _distinct(inner: Check) -> Check:
    def check(name: str, value: Any) -> None:
        inner(name, value)
        if len(set(value)) != len(value):
            raise _fail(name, f"repeated items {value}")

    return check


def _phase(name: str, value: Any) -> None:
    if type(value) is not str or value not in Phase.__members__:
        raise _fail(name, f"unknown phase {value!r}")


def _events(name: str, value: Any) -> None:
    if type(value) is not list:
        raise _fail(name, f"expected a list, got {type(value).__name__}")
    for i, event in enumerate(value):
        if type(event) is not list or not event or type(event[0]) is not str:
            raise _fail(f"{name}[{i}]", "an event is a list that starts with its kind name")


def _pairs(n: int) -> Check:
    """dp_queue: flattened (player, city) pairs, each city at most once."""
    flat = _ints(0, D.NUM_CITIES - 1, max_length=2 * D.NUM_CITIES)

    def check(name: str, value: Any) -> None:
        flat(name, value)
        if len(value) % 2:
            raise _fail(name, "expected (player, city) pairs")
        for i in range(0, len(value), 2):
            if value[i] >= n:
                raise _fail(f"{name}[{i}]", f"player {value[i]} not in the game")
        if len(set(value[1::2])) != len(value) // 2:
            raise _fail(name, f"a city is queued twice: {value}")

    return check


def _alki(n: int) -> Check:
    """[] or [city, owner, after-tile flag] (+ [city, owner] of the second cube)."""
    bounds = ((D.NUM_CITIES - 1, n - 1, 1, D.NUM_CITIES - 1, n - 1),)

    def check(name: str, value: Any) -> None:
        if type(value) is not list or len(value) not in (0, 3, 5):
            raise _fail(name, "expected [], [city, owner, after] or [.., city2, owner2]")
        _ints(0, bounds[0][: len(value)])(name, value)

    return check


def _pending(name: str, value: Any) -> None:
    if type(value) is not list or len(value) not in (0, 3):
        raise _fail(name, "expected [] or [class, slot, side]")
    _ints(0, (_NC - 1, D.LOCATION_SLOTS - 1, 1)[: len(value)])(name, value)


_STRUCTURE: dict[str, Callable[[int], Check]] = {
    "alki": _alki,
    "pairs": _pairs,
    "pending": lambda n: _pending,
}


@cache
def field_rules(n: int) -> dict[str, Check]:
    """The check of every state field for ``n`` players (``n`` itself is checked first),
    built from the one declaration of the state (``schema.FIELDS``)."""
    rules: dict[str, Check] = {}
    for f in (*S.FIELDS, S.RNG):
        lo, hi = f.lo(n), f.hi(n)
        if f.check in _STRUCTURE:
            rule = _STRUCTURE[f.check](n)
        elif f.kind in ("int", "u64"):
            rule = _int(lo, hi)  # type: ignore[arg-type]  # scalars have int bounds
        elif f.kind == "bool":
            rule = _bool
        elif f.kind == "phase":
            rule = _phase
        elif f.kind == "events":
            rule = _events
        elif f.kind == "ints":
            rule = _ints(lo, hi, length=f.size(n))
        else:  # "list" and "dice": a capacity
            rule = _ints(lo, hi, max_length=f.size(n))
        rules[f.name] = _distinct(rule) if f.check == "distinct" else rule
    return rules


def check_fields(d: Any, fields: tuple[str, ...]) -> None:
    """Stage 1 (see module doc). ``fields``: the state's field names (``STATE_FIELDS``);
    each one needs a rule in ``field_rules`` (a test checks it)."""
    if type(d) is not dict:
        raise _fail("state", f"expected a dict, got {type(d).__name__}")
    if d.get("format") != STATE_FORMAT:
        raise _fail("format", f"unknown state format {d.get('format')!r}")
    names = (*fields, "rng")
    missing = [f for f in names if f not in d]
    if missing:
        raise _fail(missing[0], "missing")
    unknown = sorted(str(k) for k in d if k not in names and k != "format")
    if unknown:
        raise _fail(unknown[0], "unknown field")
    _int(D.MIN_PLAYERS, D.MAX_PLAYERS)("n", d["n"])
    rules = field_rules(d["n"])
    for name in names:
        rules[name](name, d[name])
    _check_absent_seats(d, d["n"])


def _check_absent_seats(d: dict[str, Any], n: int) -> None:
    """Seats n..4 own nothing: loops over "any player still holding tiles" would spin."""
    for name, empty in (
        ("supply", 0),
        ("held2", 0),
        ("held1", 0),
        ("colours_taken", 0),
        ("special", -1),
    ):
        for p in range(n, D.MAX_PLAYERS):
            if d[name][p] != empty:
                raise _fail(f"{name}[{p}]", f"seat {p} is not in a {n}-player game")
    for name in ("cubes", "statues"):
        for i, value in enumerate(d[name]):
            if i % D.MAX_PLAYERS >= n and value:
                raise _fail(f"{name}[{i}]", f"seat {i % D.MAX_PLAYERS} is not in the game")


# ---- stage 2: the built game ----------------------------------------------------------------

# Invariant families of invariants.py and the fields each one reads.
_INVARIANT_FAMILIES: tuple[tuple[str, Callable[..., None]], ...] = (
    ("turn/current", I._check_seat),
    ("cubes/cand/supply", I._check_cubes),
    ("leader/persian", I._check_leaders),
    ("war/ally", I._check_relationships),
    ("b_tokens/b_slot/b_round", I._check_battle),
)


def _require(ok: bool, field: str, reason: str) -> None:
    if not ok:
        raise _fail(field, reason)


def check_state(g: Game) -> None:
    """Stage 2 (see module doc): raise InvalidStateError naming the first broken field."""
    for field, family in _INVARIANT_FAMILIES:
        try:
            family(g)
        except I.InvariantError as e:
            raise _fail(field, str(e)) from None
    boxes = I._occupied_boxes(g.at)
    try:
        I._check_counters(g, boxes)
    except I.InvariantError as e:
        raise _fail("stack/pool/dead/at", f"counters not conserved: {e}") from None
    _check_specials(g)
    _check_influence_tiles(g)
    _check_turn_record(g)
    _check_cursors(g)
    _check_military(g)
    _check_battle_state(g)
    try:
        I._check_locations(g, boxes)
    except I.InvariantError as e:
        raise _fail("loc_deck/loc_display/loc_done/loc_claim/at/main", str(e)) from None
    try:
        I.check_invariants(g)  # all of them again: catches a family added to invariants.py
    except I.InvariantError as e:
        raise _fail("state", str(e)) from None
    if g.phase != Phase.GAME_OVER:
        _require(bool(g.legal_actions()), "phase", f"{g.phase.name} with no legal action")


def _check_specials(g: Game) -> None:
    """A.7: every tile is held, played or never dealt, once; a player was dealt one tile at
    most (scenario states deal none to some players)."""
    held = [t for t in g.special if t >= 0]
    played = [t for t, p in enumerate(g.special_played) if p >= 0]
    dealt = sorted(held + played + g.unseen_specials)
    _require(
        dealt == list(range(D.NUM_SPECIALS)),
        "special/special_played/unseen_specials",
        f"special tiles not conserved: {dealt}",
    )
    for p in range(g.n):
        owned = (g.special[p] >= 0) + g.special_played.count(p)
        _require(owned <= 1, f"special[{p}]/special_played", f"player {p} has {owned} tiles")


def _picks_by(g: Game, p: int, picks_done: int) -> int:
    """Tiles player p has taken after ``picks_done`` picks of this turn (B.4 order)."""
    rounds, rest = divmod(picks_done, g.n)
    return rounds + ((p - g.first_player) % g.n < rest)


def _check_influence_tiles(g: Game) -> None:
    """All 36 tiles are in the deck, on the display or held face up by the players who took
    them this turn (B.4); players hold the 2- and 1-shard tiles missing from the table."""
    total = D.TILES_PER_PLAYER[g.n] * g.n
    shown = [t for t in g.display if t >= 0]
    on_table = set(g.influence_deck) | set(shown)
    _require(
        len(on_table) == len(g.influence_deck) + len(shown),
        "influence_deck/display",
        "an influence tile is both in the deck and on the display (or shown twice)",
    )
    in_pick = g.phase in _INFLUENCE and g.pick_slot >= 0
    if g.phase == Phase.SETUP_PLACE:
        taken = 0
    elif g.phase in _INFLUENCE:
        taken = g.picks_done + in_pick
    else:
        taken = total
    _require(
        len(on_table) == D.NUM_INFLUENCE_TILES - taken,
        "influence_deck/display",
        f"{len(on_table)} tiles on the table, expected {D.NUM_INFLUENCE_TILES - taken}",
    )
    empty = [s for s, t in enumerate(g.display) if t < 0]
    _require(
        empty == ([g.pick_slot] if in_pick else []),
        "display",
        f"empty display slots {empty} (only the slot of the pick in progress may be empty)",
    )
    missing = [t for t in range(D.NUM_INFLUENCE_TILES) if t not in on_table]
    two = sum(D.INFLUENCE_TILES[t].shards == 2 for t in missing)
    spending = g.phase in (Phase.COMMIT, Phase.PERMISSION)
    if g.phase in _BATTLE or g.phase == Phase.GAME_OVER:
        _require(not any(g.held2) and not any(g.held1), "held2/held1", "tiles left after phase 5")
    elif spending:
        _require(
            sum(g.held2) <= two and sum(g.held1) <= len(missing) - two,
            "held2/held1",
            "more tiles held than were taken",
        )
    else:
        _require(
            sum(g.held2) == two and sum(g.held1) == len(missing) - two,
            "held2/held1",
            f"players hold {sum(g.held2)}+{sum(g.held1)} tiles, {two}+{len(missing) - two} taken",
        )
        done = 0 if g.phase == Phase.SETUP_PLACE else g.picks_done
        for p in range(g.n):
            picks = _picks_by(g, p, done) + (in_pick and p == g.current)
            _require(
                g.held2[p] + g.held1[p] == picks,
                f"held2[{p}]/held1[{p}]",
                f"player {p} holds {g.held2[p] + g.held1[p]} tiles after {picks} picks",
            )
    if g.phase == Phase.SETUP_PLACE:
        _require(not any(g.colours_taken), "colours_taken", "colours taken during setup")


def _check_turn_record(g: Game) -> None:
    """Statues, defeats, the remaining location deck and the game-end condition agree with
    the turn (B.9, B.10)."""
    over = g.phase == Phase.GAME_OVER
    ended = g.turn if over else g.turn - 1
    for c in range(D.NUM_CITIES):
        built = sum(g.statues[c * D.MAX_PLAYERS : c * D.MAX_PLAYERS + g.n])
        _require(built <= ended, "statues", f"{D.CITY_NAMES[c]}: {built} statues, {ended} turns")
        lost = sum(
            g.loc_done[t] for t in range(D.NUM_LOCATION_TILES) if D.LOCATION_TILES[t].city == c
        )
        _require(g.defeats[c] <= lost, f"defeats[{c}]", f"{g.defeats[c]} defeats, {lost} battles")
    _require(
        len(g.loc_deck) == D.LOCATION_SLOTS * (D.NUM_TURNS - g.turn),
        "loc_deck",
        f"{len(g.loc_deck)} tiles left in turn {g.turn}",
    )
    done_now = g.b_slot if g.phase in _BATTLE else D.LOCATION_SLOTS if over else 0
    for slot, tile in enumerate(g.loc_display):
        _require(
            g.loc_done[tile] == (slot < done_now),
            f"loc_display[{slot}]/loc_done",
            "slots are resolved in order: those before the battle cursor only (B.8)",
        )
    home = (g.defeats[D.ATHENS], g.defeats[D.SPARTA])
    if over:
        _require(g.turn == D.NUM_TURNS or max(home) >= 4, "phase", "game over before it may end")
    elif g.phase in _BEFORE_BATTLES:
        _require(max(home) < 4, "defeats", "Athens or Sparta at 4 defeats: the game has ended")
    if g.turn == 1 and not over:
        _require(g.last_athens == -1, "last_athens", "an Athens leader before turn 1 ended")
    elif not over and g.last_athens >= 0:
        _require(
            g.first_player == g.last_athens, "first_player", "not the last Athens leader (E10)"
        )


def _check_cursors(g: Game) -> None:
    """Who decides, and the per-phase progress fields (B.1, B.4, B.5, B.7.2-B.7.5)."""
    n, phase = g.n, g.phase
    if phase == Phase.SETUP_PLACE:
        _require(g.turn == 1, "turn", "setup outside turn 1")
        _require(g.setup_done < 2 * n, "setup_done", f"{g.setup_done} setup cubes placed")
        _require(g.current == (g.first_player + g.setup_done) % n, "current", "not the setup seat")
        _require(g.picks_done == 0, "picks_done", "picks during setup")
    else:
        _require(g.setup_done == 2 * n, "setup_done", f"setup unfinished ({g.setup_done})")
    total = D.TILES_PER_PLAYER[n] * n
    if phase in _INFLUENCE:
        _require(g.picks_done < total, "picks_done", f"{g.picks_done} of {total} picks done")
        _require(
            g.current == (g.first_player + g.picks_done) % n, "current", "not the picking seat"
        )
    elif phase != Phase.SETUP_PLACE:
        _require(g.picks_done == total, "picks_done", f"{g.picks_done} of {total} picks done")
    if phase == Phase.INFLUENCE_PICK:
        _require(g.pick_slot == -1, "pick_slot", "a tile was already taken in this pick")
    if phase in _AFTER_TILE:
        _require(g.pick_slot >= 0, "pick_slot", "no tile taken in this pick")
    if phase == Phase.POST_PICK_SPECIAL:
        _require(not g.pick_special_done, "pick_special_done", "special already played")
        _require(g.special[g.current] >= 0, "special", "the picker holds no special tile")
    if phase in _ALKIBIADES:
        _require(len(g.alki) == (3 if phase == Phase.ALKIBIADES_CUBE else 5), "alki", "length")
        _require(
            g.special_played[D.ALKIBIADES] == g.current and g.pick_special_done,
            "special_played/pick_special_done",
            "Alkibiades in progress but not played by the picker",
        )
        _require(
            (g.pick_slot >= 0) == bool(g.alki[2]), "alki/pick_slot", "after-tile flag mismatch"
        )
        moves: dict[int, int] = {}
        for i in range(0, len(g.alki) - 1, 3):
            cell = g.alki[i] * D.MAX_PLAYERS + g.alki[i + 1]
            moves[cell] = moves.get(cell, 0) + 1
        for cell, count in moves.items():
            _require(g.cubes[cell] >= count, "alki/cubes", "an Alkibiades cube is not there")
    else:
        _require(g.alki == [], "alki", "Alkibiades state outside its decisions")
    if phase == Phase.PROPOSE:
        _require(g.current == g.propose_cursor, "current/propose_cursor", "not the proposer")
    if phase == Phase.SPARTA_CHOICE:
        _require(g.current == g.leader[D.SPARTA], "current", "not Sparta's leader (B.7.2)")
    if phase in _QUEUE_BUILT and g.leader[D.SPARTA] < 0:
        _require(g.commit_first == g.first_player, "commit_first", "Sparta leaderless (E11)")
    _check_dead_pool_queue(g)
    if phase == Phase.COMMIT:
        _require(g.current == g.step_player, "current/step_player", "not the step player")
    if phase in (Phase.COMMIT, Phase.PERMISSION):
        _require(
            g.step_spend >= 0 or g.step_extra == 0, "step_extra", "extras without a spent cube"
        )
        _require(
            g.step_spend < 0
            or bool(g.persian >> g.step_player & 1)
            or g.leader[g.step_spend] == g.step_player,
            "step_spend",
            "a cube spent in a city the step player does not lead (B.7.5)",
        )
        _require(
            g.step_spend < 0 or g.step_normal >= 1, "step_spend", "cube spent before a placement"
        )


def _check_dead_pool_queue(g: Game) -> None:
    """B.7.3: one entry per led city, leaders clockwise from the phase-5 first player."""
    if g.phase in _QUEUE_BUILT:
        expected = []
        for i in range(g.n):
            p = (g.commit_first + i) % g.n
            expected += [x for c in range(D.NUM_CITIES) if g.leader[c] == p for x in (p, c)]
        _require(g.dp_queue == expected, "dp_queue", f"{g.dp_queue}, expected {expected}")
    if g.phase == Phase.DEAD_POOL:
        i = g.dp_index
        _require(i % 2 == 0 and i < len(g.dp_queue), "dp_index", f"{i} outside the queue")
        city = g.dp_queue[i + 1]
        _require(g.current == g.dp_queue[i], "current", "not the recovering leader")
        _require(len(g._dead_types(city)) == 2, "dead", "no choice of dead-pool type")
    else:
        _require(g.dp_index == len(g.dp_queue), "dp_index", "dead-pool recovery unfinished")


def _check_military(g: Game) -> None:
    """Phase-5 fields: empty outside phases 5-6; counters on a side have a main player; a
    permission request is one the step player may make (B.7.6, B.7.8)."""
    in_use = g.phase in _MILITARY or g.phase in _BATTLE
    if not in_use:
        for name, value, empty in (
            ("pool", g.pool, 0),
            ("at", g.at, 0),
            ("main", g.main, -1),
            ("side_cities", g.side_cities, 0),
            ("war", g.war, 0),
            ("ally", g.ally, 0),
            ("perm", g.perm, 0),
            ("denied", g.denied, 0),
        ):
            _require(value.count(empty) == len(value), name, f"set outside phases 5-6: {value}")
    for ms in range(D.LOCATION_SLOTS * 2):
        if g.main[ms] < 0:
            start = ms * 2 * _NC
            _require(
                g.at[start : start + 2 * _NC].count(0) == 2 * _NC,
                f"main[{ms}]",
                "counters on a side without a main player",
            )
    if in_use:
        _check_sides(g)
    if g.phase != Phase.PERMISSION:
        _require(g.pending == [], "pending", "a permission request outside PERMISSION")
        return
    _require(len(g.pending) == 3, "pending", "PERMISSION without a request")
    klass, slot, side = g.pending
    owner_leader = g.leader[D.LOCATION_TILES[g.loc_display[slot]].city]
    _require(
        owner_leader >= 0 and g.current == owner_leader,
        "current",
        "permission is decided by the leader of the location's owner (B.7.8)",
    )
    _require(
        side == A.DEFEND
        and g._is_legal_commit(A.place(klass, slot, side))
        and g._target_status(g.step_player, D.CLASS_CITY[klass], slot, side) == 2,
        "pending",
        f"{g.pending} is not a placement that needs permission",
    )


def _check_sides(g: Game) -> None:
    """B.7.6-B.7.7: in phase 5 ``side_cities`` are the cities with counters on each side
    (in phase 6 counters go home, the marks stay); the cities on one side are allied with
    each other (defenders with the owner too) and at war with the other side."""
    boxes = [0] * (D.LOCATION_SLOTS * 2)
    for start, row in I._occupied_boxes(g.at):
        boxes[start // (2 * _NC)] |= I._city_mask(row)
    for ms, mask in enumerate(boxes):
        if g.phase in _MILITARY:
            _require(
                g.side_cities[ms] == mask, f"side_cities[{ms}]", f"cities with counters: {mask}"
            )
    for slot in range(D.LOCATION_SLOTS):
        attack, defend = g.side_cities[slot * 2], g.side_cities[slot * 2 + 1]
        if not attack | defend:
            continue
        defend |= 1 << D.LOCATION_TILES[g.loc_display[slot]].city
        for c in range(D.NUM_MILITARY_CITIES):
            own, other = (attack, defend) if attack >> c & 1 else (defend, attack)
            if not (attack | defend) >> c & 1:
                continue
            _require(
                not own & ~(1 << c) & ~g.ally[c] and not other & ~g.war[c],
                f"war[{c}]/ally[{c}]",
                f"slot {slot}: {D.MILITARY_CITY_NAMES[c]} not allied with its side or not "
                "at war with the other",
            )


def _check_battle_state(g: Game) -> None:
    """Phase-6 cursor (C.2-C.7, D.9): locations before ``b_slot`` are cleared, the round is
    a dice round, offers and tokens are those of a round about to be rolled, and a casualty
    choice is the engine's own tie."""
    if g.phase not in _BATTLE:
        before = -1 if g.turn == 1 and g.phase in _BEFORE_BATTLES else D.LOCATION_SLOTS
        _require(g.b_slot == before, "b_slot", f"{g.b_slot} outside phase 6")
        _require(g.b_round == -1 and g.b_stage == 0, "b_round/b_stage", "a round in progress")
        _require(not g.b_double, "b_double", "doubling outside a round")
        _require(g.b_offers == [] and g.b_cas == [], "b_offers/b_cas", "outside phase 6")
        return
    slot = g.b_slot
    _require(
        g.at[: slot * 4 * _NC].count(0) == slot * 4 * _NC,
        "at",
        "counters left at a location already resolved",
    )
    _require(g.main[slot * 2] >= 0, f"main[{slot * 2}]", "a battle without a main attacker")
    tile = D.LOCATION_TILES[g.loc_display[slot]]
    for earlier in tile.rounds[: g.b_round]:
        _require(
            not g._counters(slot, 0, earlier) and not g._counters(slot, 1, earlier),
            "at",
            "counters of a round already fought are still at the location",
        )
    unit_type = tile.rounds[g.b_round]
    attackers = g._counters(slot, 0, unit_type)
    defended = g._counters(slot, 1, unit_type) or tile.militia[unit_type]
    _require(bool(attackers and defended), "at", "the current round is not a dice round (C.3)")
    if g.phase == Phase.BATTLE_SPECIAL:
        _require(g.b_stage == 1, "b_stage", f"{g.b_stage} while specials are offered")
        _require(
            bool(g.b_offers) and g.current == g.b_offers[0], "b_offers", "not the asked player"
        )
        for side in (0, 1):
            _require(
                int(g.b_head == side) <= g.b_tokens[side] <= 1,
                f"b_tokens[{side}]",
                "starting tokens are the head start plus at most one token tile (C.6)",
            )
        _require(g.b_cas == [], "b_cas", "a casualty choice before the dice")
        return
    _require(g.b_stage == 2, "b_stage", f"{g.b_stage} during a casualty choice")
    _require(g.b_offers == [], "b_offers", "offers left after the dice")
    _require(g.b_loser in (0, 1), "b_loser", "no losing side")
    chooser = g.main[slot * 2 + g.b_loser]
    _require(chooser >= 0 and g.current == chooser, "current", "not the losing main player")
    tied = g._casualty_cities(slot, g.b_loser, unit_type)
    _require(len(tied) > 1 and g.b_cas == tied, "b_cas", f"{g.b_cas}, expected the tie {tied}")
