"""``NativeGame``: a game whose state lives in the C++ core (``perikles_env._native``, from
``native/``); ImportError when it is not built. ``engine.new_game`` chooses the engine.

It is the Python ``Game``'s sibling: both implement ``interface.GameInterface`` (every field
and query, the same answers: tests/native proves it), and it adds the C++ players and
encoder behind the interface's hooks. It is read-only (``readonly.py``): its state changes
only through ``apply_action``, fields are immutable snapshots copied out of C++ once per
decision, and a write or a name of the Python rule code raises ``ReadOnlyStateError``. A
scenario is built on a Python ``Game`` (scripted dice in ``forced_dice``) and loaded with
``NativeGame.from_python`` or ``from_dict``, which run the Python engine's full validation
first: the core never holds a state it would refuse.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import CoreFailureError, ReadOnlyStateError
from . import actions as A
from .combat import CombatRules
from .events import extend_log
from .extension import load_extension
from .game import Game, checked_seed
from .influence import InfluenceRules
from .interface import FeatureBlocks, GameInterface
from .military import MilitaryRules
from .phases import Phase
from .queries import MilitaryKnowledge
from .readonly import (
    HOW_TO_EDIT,
    FrozenList,
    SnapshotField,
    frozen_rng,
    rule_code_error,
    rule_code_names,
)
from .rng import Rng
from .state import STATE_FIELDS, GameConfig, GameState, RulesBase

__all__ = ["FrozenList", "NativeGame", "extension", "from_python", "new_native", "wrap_engine"]

_native = extension = load_extension("_native", "PERIKLES_NATIVE_PATH")
_NAMES = tuple(_native.field_names())  # C++ field ids: schema order, then "rng"
if _NAMES != (*(f for f in STATE_FIELDS if f != "events"), "rng"):
    raise ImportError("perikles_env._native is out of date with engine/schema.py (its state "
                      f"fields are {_NAMES}); rebuild it with `make native`")


_PHASES, _GAME_OVER, _NUM_ACTIONS = tuple(Phase), int(Phase.GAME_OVER), A.NUM_ACTIONS
_SEED_MASK = (1 << 64) - 1


def _cpp_query(name: str) -> Any:
    """Rule query ``name`` answered by the core, which checks every argument: one it cannot
    take is the ValueError the Python engine's checks raise."""
    method = getattr(_native.Engine, name)

    def query(self: NativeGame, *args: Any) -> Any:
        try:
            return method(self._c, *args)
        except TypeError:
            raise ValueError(f"{name}: arguments out of range: {args!r}") from None

    query.__name__ = name
    return query


class NativeGame(GameInterface):
    """A game on the C++ core: the ``GameInterface`` of the Python ``Game`` with the same
    answers, read-only state (module doc)."""

    __slots__ = ("_c", "_prefix", "_decoded", "__dict__")  # __dict__: this decision's copies
    _c: Any
    _prefix: list[tuple[Any, ...]]
    _decoded: FrozenList | None

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _READ_ONLY:
            raise ReadOnlyStateError(f"cannot assign {name!r}: {HOW_TO_EDIT}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)  # the same refusal for state fields

    if not TYPE_CHECKING:  # (hidden from mypy, which would then accept any attribute)

        def __getattr__(self, name: str) -> Any:
            """Only for names a NativeGame lacks: the Python rule code is refused by name."""
            if name in _RULE_CODE:
                raise rule_code_error(name)
            raise AttributeError(f"'NativeGame' object has no attribute {name!r}")

    @property
    def phase(self) -> Phase:  # type: ignore[override]
        return _PHASES[self._c.phase]  # type: ignore[no-any-return]

    @property
    def current(self) -> int:  # type: ignore[override]
        return int(self._c.current)

    @property
    def n(self) -> int:  # type: ignore[override]
        return int(self._c.n)

    @property
    def current_player(self) -> int | None:
        c = self._c
        return None if c.phase == _GAME_OVER else c.current

    @property
    def is_terminal(self) -> bool:
        return bool(self._c.phase == _GAME_OVER)

    @property
    def rng(self) -> Rng:  # type: ignore[override]
        return frozen_rng(self._c.get(_RNG_ID))

    @property
    def core(self) -> Any:  # the C++ engine object (the C++ search and vector env read it)
        return self._c

    # ---- the decision API ----

    def legal_actions(self) -> list[int]:
        return self._c.legal_actions()  # type: ignore[no-any-return]

    def is_legal(self, action: int) -> bool:
        return type(action) is int and 0 <= action < _NUM_ACTIONS and self._c.is_legal(action)

    def apply_action(self, action: int) -> None:
        """An illegal action (or a non-int, e.g. ``True``) raises and changes nothing."""
        snapshots = self.__dict__
        try:
            applied = action.__class__ is int and self._c.apply(action)
        except RuntimeError as exc:
            raise CoreFailureError(str(exc)) from None
        except TypeError:  # beyond a C int: no action id
            applied = False
        if not applied:
            raise self.illegal_action_error(action, "not legal now")
        if snapshots:
            snapshots.clear()

    def legal_mask(self, out: Any) -> None:
        """0/1 per action into ``out`` (C-contiguous bool, uint8 or int8), no allocation."""
        self._c.legal_mask(out)

    def random_playout(self, seed: int, max_decisions: int = 1 << 62) -> int:
        """Uniform random play (policy ``Rng(seed)``) in C++; returns the decisions made."""
        self.__dict__.clear()
        return int(self._c.random_playout(int(seed) & _SEED_MASK, max_decisions))

    def clone(self) -> NativeGame:
        """The events decoded so far come along (tuples, shared): a clone's first read of
        its log decodes only what happens after it."""
        copy = wrap_engine(self._c.clone(), self._prefix)
        if self._decoded is not None:
            _set_decoded(copy, FrozenList(self._decoded))
        return copy

    def determinized(self, player: int, seed: int, record: bool) -> NativeGame:  # in C++
        return wrap_engine(self._c.determinize(player, seed & _SEED_MASK, record), self._prefix)

    # ---- the C++ players and encoder (native/heuristic.hpp, native/encoder.hpp) ----

    def heuristic_decide(
        self, player: int, params: tuple[float, ...], seed: Callable[[], int]
    ) -> int:
        return int(_native.heuristic_decide(self._c, player, params, seed()))

    def heuristic_scores(self, player: int, params: tuple[float, ...]) -> list[float]:
        return list(_native.heuristic_scores(self._c, player, params))

    def heuristic_playout(self, params: tuple[float, ...], seed: int, horizon: int) -> int:
        """The heuristic (``params`` in ``HeuristicParams.names()`` order) plays every seat
        for ``horizon`` unforced decisions (-1: to the end), in C++ (IS-MCTS rollouts)."""
        self.__dict__.clear()
        return int(_native.heuristic_playout(self._c, params, int(seed) & _SEED_MASK, horizon))

    def encode_natively(
        self, player: int, out: Any, oracle: bool = False, blocks: FeatureBlocks = ()
    ) -> bool:
        c = self._c
        if not blocks:
            _native.encode(c, player, out, oracle)
            return True
        start = _native.ORACLE_SIZE if oracle else _native.OBS_SIZE
        _native.encode(c, player, out[:start], oracle)
        for write, length in blocks:
            write(c, player, out[start : start + length])
            start += length
        return True

    # ---- rule queries: straight to C++ (its checks raise the Python engine's ValueError) ----

    def military_knowledge(self, player: int) -> MilitaryKnowledge:
        return MilitaryKnowledge(*_MILITARY_KNOWLEDGE(self, player))

    def placement_targets(
        self, p: int, x: int, first: bool = False, skip_hoplite_only: bool = False
    ) -> list[tuple[int, int, int]]:
        return _PLACEMENT_TARGETS(self, p, x, first, skip_hoplite_only)  # type: ignore[no-any-return]

    placement_status = _cpp_query("placement_status")
    class_placement_status = _cpp_query("class_placement_status")
    proposals = _cpp_query("proposals")
    assassination_targets = _cpp_query("assassination_targets")
    plague_losses = _cpp_query("plague_losses")
    election_outcome = _cpp_query("election_outcome")
    location_vp = _cpp_query("location_vp")
    statue_count = _cpp_query("statue_count")
    statue_vp = _cpp_query("statue_vp")
    cube_vp = _cpp_query("cube_vp")
    round_strengths = _cpp_query("round_strengths")
    predicted_rounds = _cpp_query("predicted_rounds")

    def scores(self) -> list[int]:
        return self._c.scores()  # type: ignore[no-any-return]

    def winners(self) -> list[int]:
        return self._c.winners()  # type: ignore[no-any-return]

    def ranking_keys(self) -> list[tuple[int, int, int]]:
        c = self._c
        return [(s, c.location_vp(p), c.statue_count(p)) for p, s in enumerate(c.scores())]

    # ---- events (logged as ints in C++, decoded by their declaration on first read) ----

    @property
    def event_log(self) -> list[tuple[Any, ...]]:
        if self._decoded is None:
            _set_decoded(self, FrozenList(self._prefix))
        return extend_log(self._decoded, len(self._prefix), self._c)  # type: ignore[arg-type]

    events = event_log

    # ---- conversion ----

    @classmethod
    def new(cls, config: GameConfig | None = None, seed: int | None = 0) -> NativeGame:
        return new_native(config or GameConfig(), checked_seed(seed))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> NativeGame:
        """Validate exactly like the Python engine (same typed errors), then load."""
        return _load(Game.from_dict(d))

    @staticmethod
    def from_python(game: Game) -> NativeGame:
        """A C++ copy of a Python game, validated first like ``from_dict``."""
        return _load(Game.from_dict(game.to_dict()))

    def to_python(self) -> Game:  # an independent Python-engine copy
        return Game.from_dict(self.to_dict())  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (NativeGame.from_dict, (self.to_dict(),))

    def __deepcopy__(self, memo: Any) -> NativeGame:
        return self.clone()

    def __eq__(self, other: object) -> bool:  # the same full state, on either engine
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


_RNG_ID = _NAMES.index("rng")
for _fid, _name in enumerate(_NAMES):
    if _name not in NativeGame.__dict__:  # phase, current, n and rng are properties
        setattr(NativeGame, _name, SnapshotField(_name, _fid))
_READ_ONLY = frozenset((*STATE_FIELDS, "rng"))

_MILITARY_KNOWLEDGE = _cpp_query("military_knowledge")
_PLACEMENT_TARGETS = _cpp_query("placement_targets")
# The Python engine's rule code (its private methods), refused by name on a NativeGame.
_RULE_CODE = rule_code_names((RulesBase, InfluenceRules, MilitaryRules, CombatRules, Game))


_set_c, _set_prefix, _set_decoded = (vars(NativeGame)[k].__set__ for k in NativeGame.__slots__[:3])


def wrap_engine(engine: Any, prefix: list[tuple[Any, ...]] | None = None) -> NativeGame:
    """A NativeGame around a C++ engine object (hot: every clone; the vector env's copies)."""
    g = object.__new__(NativeGame)
    _set_c(g, engine)  # the slots' own setters: no trip through __setattr__
    _set_prefix(g, prefix or [])
    _set_decoded(g, None)
    return g


def new_native(config: GameConfig, seed: int | None) -> NativeGame:
    """A new game on the C++ core; ``seed`` already checked (None: a fresh random one)."""
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    return wrap_engine(_native.Engine.new(config.num_players, config.record_events, seed), [])


def _load(game: Game) -> NativeGame:
    """Load a validated Python state into C++ (the loader re-checks every value's range)."""
    values = [
        int(game.phase) if name == "phase" else game.rng.state if name == "rng"
        else getattr(game, name)
        for name in _NAMES
    ]
    return wrap_engine(_native.Engine.load(values), list(game.event_log))


from_python = NativeGame.from_python
