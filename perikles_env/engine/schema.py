"""The one declaration of the game state and its event log.

Every state field is declared here once: its kind, its length (fixed) or capacity
(variable), the range of its values for ``n`` players, and who may see it. Everything else
that lists fields reads this table: ``state.STATE_FIELDS``, the shape checks of
``validate.field_rules``, the public fields of ``analysis.view``, the event decoder
(``events.py``) and, through ``scripts/gen_native.py``, the C++ core's state struct, field
table, event kinds, data tables and action offsets (``native/engine/generated/schema.hpp``,
checked in; tests/native/test_schema.py fails when it is stale).

Kinds: ``int``, ``bool``, ``phase`` (a ``Phase``), ``ints`` (a list of exactly ``length``
ints), ``list`` (at most ``length`` ints), ``dice`` (at most ``length`` scripted d6 faces),
``events`` (the public event log), ``u64`` (a 64-bit counter). The RNG state is not a
field of ``STATE_FIELDS`` (it is ``Game.rng``) but is declared here as ``rng`` (kind
``u64``) so that the C++ core and ``to_dict`` agree on it.

Visibility (docs/rules.md F): ``public`` (every seat sees it), ``owner`` (each seat sees
its own entries: the unused special tile), ``partial`` (counts public, counter strengths
as the information rules say: pools and boxes), ``hidden`` (no seat: deck orders, unseen
specials, scripted dice, the RNG).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import data as D
from .phases import Phase

Limit = int | tuple[int, ...]  # one bound for every item, or one per item
Bound = Callable[[int], Limit]  # a range limit for n players

_NC = D.NUM_CLASSES
_BOXES = D.LOCATION_SLOTS * 4
_BITS7 = (1 << D.NUM_MILITARY_CITIES) - 1
_PER_PLAYER = D.NUM_CITIES * D.MAX_PLAYERS
_MAX_TILES = max(D.TILES_PER_PLAYER.values())
_MAX_ROUNDS = max(len(t.rounds) for t in D.LOCATION_TILES)
U64_MAX = (1 << 64) - 1
MAX_FORCED_DICE = 128  # scripted d6 faces a scenario may queue (a fixed-size list in C++)


def _const(value: Limit) -> Bound:
    return lambda n: value


def _seat_max(n: int) -> int:
    return n - 1


def _seat_bits(n: int) -> int:
    return (1 << n) - 1


@dataclass(frozen=True)
class Field:
    """One state field. ``lo``/``hi`` bound every value for ``n`` players (inclusive; a
    tuple bounds each item); ``length`` is fixed (``ints``) or a capacity (``list``), a
    function of ``n`` for ``b_offers``; ``check`` names a structural check of
    ``validate.py`` beyond the range (``distinct``, ``alki``, ``pairs``, ``pending``);
    ``cpp`` is the C++ member when its name differs; ``doc`` says what a value means where
    the name does not (it comments the generated annotations, ``generated_state.py``)."""

    name: str
    kind: str
    length: int | Bound = 0
    lo: Bound = _const(0)
    hi: Bound = _const(0)
    visibility: str = "public"
    check: str = ""
    cpp: str = ""
    doc: str = ""

    @property
    def member(self) -> str:
        return self.cpp or self.name

    def size(self, n: int = D.MAX_PLAYERS) -> int:
        size = self.length(n) if callable(self.length) else self.length
        assert isinstance(size, int)
        return size

    def bounds(self, n: int = D.MAX_PLAYERS) -> tuple[int, int]:
        """One (lo, hi) that holds for every item with ``n`` players (the C++ table)."""
        lo, hi = self.lo(n), self.hi(n)
        return (lo if isinstance(lo, int) else min(lo), hi if isinstance(hi, int) else max(hi))


def _f(name: str, kind: str, length: int | Bound = 0, lo: Limit | Bound = 0,
       hi: Limit | Bound = 0, visibility: str = "public", check: str = "", cpp: str = "",
       doc: str = "") -> Field:
    def as_bound(v: Limit | Bound) -> Bound:
        return v if callable(v) else _const(v)

    if kind == "bool":
        hi = 1
    elif kind == "phase":
        hi = len(Phase) - 1

    return Field(name, kind, length, as_bound(lo), as_bound(hi), visibility, check, cpp, doc)


FIELDS: tuple[Field, ...] = (
    _f("n", "int", lo=D.MIN_PLAYERS, hi=D.MAX_PLAYERS),
    _f("record", "bool"),
    _f("phase", "phase"),
    _f("turn", "int", lo=1, hi=D.NUM_TURNS),
    _f("current", "int", lo=-1, hi=_seat_max, doc="seat to decide, -1 when terminal"),
    _f("forced_dice", "dice", MAX_FORCED_DICE, 1, 6, "hidden",
       doc="scripted d6 faces consumed before the RNG (tests)"),
    _f("supply", "ints", D.MAX_PLAYERS, 0, D.CUBES_PER_PLAYER),
    _f("cubes", "ints", _PER_PLAYER, 0, D.CUBES_PER_PLAYER),
    _f("cand", "ints", D.NUM_CITIES * 2, -1, _seat_max),
    _f("leader", "ints", D.NUM_CITIES, -1, _seat_max),
    _f("persian", "int", lo=0, hi=_seat_bits, doc="bitmask of Persian leaders"),
    _f("statues", "ints", _PER_PLAYER, 0, D.NUM_TURNS),
    _f("defeats", "ints", D.NUM_CITIES, 0, D.NUM_LOCATION_TILES),
    _f("influence_deck", "list", D.NUM_INFLUENCE_TILES, 0, D.NUM_INFLUENCE_TILES - 1,
       "hidden", "distinct"),
    _f("display", "ints", D.INFLUENCE_DISPLAY_SIZE, -1, D.NUM_INFLUENCE_TILES - 1),
    _f("held2", "ints", D.MAX_PLAYERS, 0, _MAX_TILES),
    _f("held1", "ints", D.MAX_PLAYERS, 0, _MAX_TILES),
    _f("colours_taken", "ints", D.MAX_PLAYERS, 0, (1 << len(D.COLOUR_NAMES)) - 1),
    _f("first_player", "int", lo=0, hi=_seat_max),
    _f("commit_first", "int", lo=0, hi=_seat_max),
    _f("last_athens", "int", lo=-1, hi=_seat_max),
    _f("special", "ints", D.MAX_PLAYERS, -1, D.NUM_SPECIALS - 1, "owner",
       doc="unused special tile per player, -1 if none"),
    _f("special_played", "ints", D.NUM_SPECIALS, -1, _seat_max,
       doc="player who played each special tile, or -1"),
    _f("unseen_specials", "list", D.NUM_SPECIALS, 0, D.NUM_SPECIALS - 1, "hidden", "distinct",
       doc="never dealt; hidden from everyone"),
    _f("loc_deck", "list", D.NUM_LOCATION_TILES, 0, D.NUM_LOCATION_TILES - 1, "hidden",
       "distinct"),
    _f("loc_display", "ints", D.LOCATION_SLOTS, 0, D.NUM_LOCATION_TILES - 1, check="distinct"),
    _f("loc_claim", "ints", D.NUM_LOCATION_TILES, 0, _seat_bits,
       doc="bitmask of players who won each location tile"),
    _f("loc_done", "ints", D.NUM_LOCATION_TILES, 0, 1,
       doc="1 once a location tile has been resolved (claimed or not)"),
    _f("stack", "ints", _NC, 0, D.INITIAL_COUNTERS),
    _f("pool", "ints", _NC, 0, D.INITIAL_COUNTERS, "partial"),
    _f("dead", "ints", _NC, 0, D.INITIAL_COUNTERS),
    _f("at", "ints", _BOXES * _NC, 0, D.INITIAL_COUNTERS * _BOXES, "partial"),
    _f("main", "ints", D.LOCATION_SLOTS * 2, -1, _seat_max, cpp="main_"),
    _f("side_cities", "ints", D.LOCATION_SLOTS * 2, 0, _BITS7),
    _f("war", "ints", D.NUM_MILITARY_CITIES, 0, _BITS7),
    _f("ally", "ints", D.NUM_MILITARY_CITIES, 0, _BITS7),
    _f("perm", "ints", D.LOCATION_SLOTS, 0, _BITS7),
    _f("denied", "ints", D.LOCATION_SLOTS, 0, _BITS7),
    _f("setup_done", "int", lo=0, hi=lambda n: 2 * n),
    _f("picks_done", "int", lo=0, hi=lambda n: D.TILES_PER_PLAYER[n] * n),
    _f("pick_special_done", "bool"),
    _f("pick_slot", "int", lo=-1, hi=D.INFLUENCE_DISPLAY_SIZE - 1),
    _f("alki", "list", 5, 0, D.NUM_CITIES - 1, check="alki",
       doc="[first city, first owner, return-to (0 pick, 1 after tile)]"),
    _f("propose_cursor", "int", lo=0, hi=_seat_max),
    _f("dp_queue", "list", 2 * D.NUM_CITIES, 0, D.NUM_CITIES - 1, check="pairs",
       doc="flattened (player, city) pairs for dead-pool recovery"),
    _f("dp_index", "int", lo=0, hi=2 * D.NUM_CITIES),
    _f("commit_cursor", "int", lo=0, hi=_seat_max),
    _f("step_player", "int", lo=0, hi=_seat_max),
    _f("step_normal", "int", lo=0, hi=2),
    _f("step_spend", "int", lo=-1, hi=D.NUM_CITIES - 1),
    _f("step_extra", "int", lo=0, hi=2),
    _f("step_closed", "bool"),
    _f("pending", "list", 3, 0, (_NC - 1, D.LOCATION_SLOTS - 1, 1), check="pending",
       doc="permission request: [class, slot, side], or []"),
    _f("b_slot", "int", lo=-1, hi=D.LOCATION_SLOTS),
    _f("b_round", "int", lo=-1, hi=_MAX_ROUNDS - 1),
    _f("b_stage", "int", lo=0, hi=2),
    _f("b_tokens", "ints", 2, 0, 2),
    _f("b_head", "int", lo=-1, hi=1),
    _f("b_double", "bool"),
    _f("b_offers", "list", lambda n: n, 0, _seat_max, check="distinct"),
    _f("b_loser", "int", lo=-1, hi=1),
    _f("b_cas", "list", D.NUM_MILITARY_CITIES, 0, _NC - 1, check="distinct",
       doc="tied casualty cities (classes) awaiting the main player's choice"),
    _f("events", "events"),
    _f("decisions", "u64", hi=U64_MAX,
       doc="apply_action calls so far (Game.is_truncated, MAX_GAME_DECISIONS)"),
)
RNG = _f("rng", "u64", hi=U64_MAX, visibility="hidden", doc="the dice's random stream")

FIELD_BY_NAME = {f.name: f for f in (*FIELDS, RNG)}
STATE_FIELD_NAMES = tuple(f.name for f in FIELDS)
LIST_KINDS = frozenset(("ints", "list", "dice", "events"))


def visible(level: str) -> tuple[str, ...]:
    """The names of the fields of one visibility, in declaration order."""
    return tuple(f.name for f in FIELDS if f.visibility == level)


# ---- the event log -------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One event kind as the C++ core logs it: ``(id, ints...)``. ``kind`` is the first item
    of the Python engine's tuple; ``args`` name how each int (or run of ints) reads, in the
    order logged; ``order`` permutes the decoded items when the tuple's order differs;
    ``tail`` is appended literally. Arg kinds: see ``events.ARG_DECODERS``."""

    name: str
    kind: str
    args: tuple[str, ...]
    order: tuple[int, ...] = ()
    tail: tuple[str, ...] = ()


_TURN_START = ("int", "int", "locs", "*tile")

EVENTS: tuple[Event, ...] = (
    Event("setup", "setup", _TURN_START),
    Event("cubes", "cubes", ("int", "city", "int")),
    Event("phase", "phase", ("int", "phase_name", "int")),
    Event("pick_skipped", "pick_skipped", ("int",)),
    Event("take_tile", "take_tile", ("int", "tile")),
    Event("action_skipped", "action_skipped", ("int", "tile_kind")),
    Event("special", "special", ("int", "special", "?int", "?side")),
    Event("plague_loss", "plague_loss", ("int", "city", "int")),
    Event("alki_move", "alkibiades_move", ("int", "city", "city")),
    Event("propose", "propose", ("int", "city", "int", "ab")),
    Event("assassinate", "assassinate", ("int", "city", "int", "cand_slot")),
    Event("propose_pass", "propose_pass", ("int",)),
    Event("election", "election", ("city", "int", "int")),
    Event("persian_leaders", "persian_leaders", ("*int",)),
    Event("sparta_first", "sparta_first", ("int", "int")),
    Event("recover", "recover", ("int", "class")),
    Event("commit_nothing", "commit_nothing", ("int",)),
    Event("ask_permission", "ask_permission", ("int", "mil", "int")),
    Event("end_step", "end_step", ("int",)),
    Event("spend_cube", "spend_cube", ("int", "city")),
    Event("place", "place", ("int", "mil", "unit", "int", "side", "box")),
    Event("permission", "permission", ("int", "mil", "int", "bool")),
    Event("slave_revolt", "slave_revolt", ("int", "pool_or_slot", "class")),
    Event("battle", "battle", ("int", "loc", "*revealed")),
    Event("round_empty", "round", ("int", "unit"), tail=("empty",)),
    Event("round", "round", ("int", "unit", "side", "automatic")),
    Event("dice_round", "dice_round", ("int", "unit", "int", "int", "crt_column", "int", "int")),
    Event("roll", "roll", ("int", "int", "int")),
    Event("casualty", "casualty", ("int", "side", "class")),
    Event("claim", "claim", ("int", "loc", "bool", "*int"), order=(0, 1, 3, 2)),
    Event("unclaimed", "unclaimed", ("int", "loc", "why")),
    Event("end_turn", "end_turn", ("int", "*int")),
    Event("game_over", "game_over", ("seats", "*int")),
    Event("new_turn", "new_turn", _TURN_START),
)

# Names the C++ core uses for the phase-change event and the unclaimed reasons.
PHASE_EVENT_NAMES = ("influence", "proposals", "commit", "battles")
UNCLAIMED_REASONS = (
    "no final-round attackers",
    "not attacked",
    "no forces",
    "final round empty",
    "militia held",
)
