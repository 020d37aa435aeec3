"""Game state: ints and flat lists in one ``__slots__`` class, a hand-written clone and an
exact JSON round trip. ``GameState`` declares the fields (either engine reads them),
``PythonState`` stores them for the Python engine; the rules live in the mixins that
subclass it.

Layout conventions (all indices documented once, here):

* ``cubes[city * 5 + player]``: main-area cubes; ``cand[city * 2 + s]``: player in the
  alpha (s=0) or beta (s=1) candidate slot, or -1; ``supply[player]``.
* Military counters are counted per *class* (city, type, strength; ``data.class_id``),
  since identical counters are interchangeable (E7): ``stack`` (city stacks and the Persian
  shield), ``pool`` (leaders' hands), ``dead`` (dead pool), and ``at[box * 56 + class]`` for
  ``box = (slot * 2 + side) * 2 + (0 main | 1 allied)``.
* ``main[slot * 2 + side]``: main attacker/defender player or -1; ``side_cities`` the
  bitmask of military cities with counters on that side.
* Relationships are symmetric bitmasks ``war[city]`` / ``ally[city]`` over 7 military cities.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InvalidConfigError
from . import data as D
from . import schema as S
from .generated_state import StateFields
from .information import controlled_cities
from .phases import Phase
from .rng import Rng
from .validate import check_fields, check_state

NUM_BOXES = D.LOCATION_SLOTS * 4


@dataclass(frozen=True)
class GameConfig:
    """Options of one game. ``record_events`` keeps the public event log (cheap; turn it off
    only for rollouts that never read it)."""

    num_players: int = 4
    record_events: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, int) or not (
            D.MIN_PLAYERS <= self.num_players <= D.MAX_PLAYERS
        ):
            raise InvalidConfigError(
                f"num_players must be an int in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, "
                f"got {self.num_players!r}"
            )
        if not isinstance(self.record_events, bool):
            raise InvalidConfigError(f"record_events must be a bool, got {self.record_events!r}")


# Every field of the state, declared once in ``schema.py``.
STATE_FIELDS = S.STATE_FIELD_NAMES


class GameState(StateFields):
    """The fields of a game (declared in ``schema.py``; their types in ``StateFields``,
    generated from it) and what only reads them: readable on either engine (the Python
    ``Game`` stores them in slots, a ``NativeGame`` reads them out of C++).
    ``interface.GameInterface`` builds on it."""

    __slots__ = ()

    # ---- serialisation -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable full state, including the RNG and hidden information."""
        out: dict[str, Any] = {"format": "perikles-state-1"}
        for name in STATE_FIELDS:
            value = getattr(self, name)
            if name == "phase":
                value = value.name
            elif name == "events":
                value = [list(e) for e in value]
            elif isinstance(value, list):
                value = value[:]
            out[name] = value
        out["rng"] = self.rng.state
        return out

    def config(self) -> GameConfig:
        return GameConfig(num_players=self.n, record_events=self.record)

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config())


def _classify() -> tuple[tuple[str, ...], tuple[str, ...]]:
    lists = tuple(f.name for f in S.FIELDS if f.kind in S.LIST_KINDS)
    scalars = tuple(f for f in STATE_FIELDS if f not in lists)
    return scalars, lists


_SCALARS, _LISTS = _classify()


def _make_clone() -> Callable[[GameState], Any]:
    """Build the clone function once, one assignment per field (the way ``dataclasses``
    builds ``__init__``), so a field added to STATE_FIELDS is never forgotten here."""
    lines = ["def clone(self):", "    g = new(type(self))"]
    lines += [f"    g.{name} = self.{name}" for name in _SCALARS]
    lines += [f"    g.{name} = self.{name}[:]" for name in _LISTS]
    lines += ["    g.rng = self.rng.copy()", "    return g"]
    namespace: dict[str, Any] = {"new": object.__new__}
    exec("\n".join(lines), namespace)  # trusted: generated from constant field names
    clone: Callable[[GameState], Any] = namespace["clone"]
    return clone


_clone = _make_clone()


def checked_index(name: str, value: Any, size: int) -> int:
    """A query argument: an int in 0..size-1, else ValueError naming it (both engines)."""
    if not isinstance(value, int) or not 0 <= value < size:
        raise ValueError(f"{name} must be an int in 0..{size - 1}, got {value!r}")
    return value


class PythonState(GameState):
    """The Python engine's storage of the fields: one slot each, a clone, the loader."""

    __slots__ = STATE_FIELDS + ("rng",)

    # ---- copying -------------------------------------------------------------------

    def clone(self) -> Any:
        """Independent copy: scalars shared, lists copied one level deep (their items are
        ints or immutable tuples). Straight-line code generated from ``STATE_FIELDS`` (see
        ``_make_clone``): ~2.5x faster than a getattr loop, far faster than deepcopy."""
        return _clone(self)

    @classmethod
    def from_dict_unchecked(cls, d: dict[str, Any]) -> Any:
        """The state ``to_dict`` wrote, built without ``from_dict``'s checks (``d`` must
        already be valid: a benchmark measures what the checks cost with it)."""
        g = object.__new__(cls)
        for name in STATE_FIELDS:
            value = d[name]
            if name == "phase":
                value = Phase[value]
            elif name == "events":
                value = [tuple(e) for e in value]
            elif isinstance(value, list):
                value = value[:]
            object.__setattr__(g, name, value)
        g.rng = Rng(d["rng"])
        return g

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Any:
        """The state ``to_dict`` wrote, validated first (``validate.py``): bad input raises
        ``InvalidStateError`` naming the field and builds nothing."""
        check_fields(d, STATE_FIELDS)
        g = cls.from_dict_unchecked(d)
        check_state(g)  # cls is Game: the checks query the rules
        return g

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, GameState)
        return all(getattr(self, f) == getattr(other, f) for f in STATE_FIELDS) and (
            self.rng == other.rng
        )

    __hash__ = None  # type: ignore[assignment]


class RulesBase(PythonState):
    """Small helpers shared by every rules module."""

    __slots__ = ()

    def _log(self, *event: Any) -> None:
        if self.record:
            self.events.append(event)

    def _seat(self, offset: int) -> int:
        """Absolute seat of a player offset relative to the current player."""
        return (self.current + offset) % self.n

    def _add_cubes(self, player: int, city: int, count: int) -> int:
        """Add up to ``count`` cubes from the player's supply to a main area (B.12)."""
        added = min(count, self.supply[player])
        if added:
            self.supply[player] -= added
            self.cubes[city * 5 + player] += added
        self._log("cubes", player, D.CITY_NAMES[city], added)
        return added

    def _remove_cubes(self, player: int, city: int, count: int) -> None:
        self.cubes[city * 5 + player] -= count
        self.supply[player] += count

    # Military cities the player controls (the one definition is in ``information``).
    _led_mask = controlled_cities

    def _has_unused_special(self, player: int) -> bool:
        return self.special[player] >= 0

    # Hooks implemented by the next phase's module (resolved through the MRO of Game).
    def _begin_military_phase(self) -> None:
        raise NotImplementedError

    def _begin_battles(self) -> None:
        raise NotImplementedError

    def _end_turn(self) -> None:
        raise NotImplementedError
