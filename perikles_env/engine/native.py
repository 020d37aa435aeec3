"""The C++ engine core (``perikles_env._native``, sources in ``native/``) behind the
``Game`` API. Importing this module fails with ImportError when the extension is not built;
use ``Game.new(..., backend=...)`` (see ``backend.py``) rather than importing it directly.

``NativeGame`` is a ``Game`` subclass, so every engine query and every consumer that reads
state works unchanged. Division of labour: C++ owns the hot loops (legal actions, apply,
clone, scores, a random playout, ``determinize`` and the rule queries ``queries.py`` sends
here, docs/native.md); Python owns the API, validation and errors.

* State fields (``cubes``, ``loc_done``, ``at``, ...) read like attributes. The first read
  of a field after a decision copies it out of C++ (from ~0.3 us for a scalar to ~3 us for
  ``at``, 1,568 ints; ~30 us for all fields); later reads until the next decision are plain
  attribute reads (the copy is cached in the instance ``__dict__``). Writes go through to
  C++, as on the Python engine: assigning a field, or changing a list read from one
  (``FieldList``: each change re-sends the whole field), updates the C++ state; values are
  range-checked at once and the state as a whole before the next ``legal_actions`` /
  ``apply_action`` (ValueError, never a crash). A list read before the last decision or
  assignment is stale: changing it raises TypeError.
* ``from_dict`` validates exactly like the Python engine (it runs ``Game.from_dict`` first),
  then loads the C++ state.
* The event log is kept as compact ints in C++ and turned into the Python engine's tuples
  on first read (cached; events a dict brought with it are kept as Python tuples).
"""

from __future__ import annotations

import os
from typing import Any

from . import actions as A
from . import data as D
from .game import Game
from .phases import Phase
from .queries import _OUTSIDE_NATIVE, register_native
from .rng import Rng
from .state import STATE_FIELDS, GameConfig, GameState

__all__ = [
    "FieldList", "NativeGame", "from_python", "load_extension", "new_native", "random_games"
]


def load_extension(name: str, env_var: str) -> Any:
    """The extension module ``perikles_env.<name>``, or the build that ``$<env_var>`` names
    (the sanitizer test loads ASan builds this way)."""
    path = os.environ.get(env_var)
    if not path:
        import importlib

        return importlib.import_module(f"perikles_env.{name}")
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"perikles_env.{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{env_var}={path!r} is not a loadable extension")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_native = load_extension("_native", "PERIKLES_NATIVE_PATH")


def _field_ids() -> dict[str, int]:
    """Map state field names to C++ field ids (the build's order of schema.FIELDS)."""
    ids = {name: i for i, name in enumerate(_native.field_names())}
    expected = (set(STATE_FIELDS) - {"events"}) | {"rng"}
    if set(ids) != expected:
        raise ImportError(
            "perikles_env._native is out of date with engine/schema.py (fields differ: "
            f"{sorted(set(ids) ^ expected)}); rebuild it with `make venv`"
        )
    return ids


_FIELD_IDS = _field_ids()

# ---- events: C++ logs (kind, ints...); these give the Python engine's tuples -------------

_CITY = D.CITY_NAMES
_MIL = D.MILITARY_CITY_NAMES
_UNIT = D.UNIT_TYPE_NAMES
_SIDE = A.SIDE_NAMES
_BOX = ("main", "allied")
_LOC = tuple(t.name for t in D.LOCATION_TILES)
_PHASE_NAMES = ("influence", "proposals", "commit", "battles")
_WHY = (
    "no final-round attackers",
    "not attacked",
    "no forces",
    "final round empty",
    "militia held",
)


def _turn_start(name: str, a: tuple[int, ...]) -> tuple[Any, ...]:
    slots = D.LOCATION_SLOTS
    return (
        name,
        a[0],
        a[1],
        [_LOC[t] for t in a[2 : 2 + slots]],
        [D.influence_name(t) for t in a[2 + slots :]],
    )


def _special(a: tuple[int, ...]) -> tuple[Any, ...]:
    head = ("special", a[0], D.SPECIAL_NAMES[a[1]])
    if len(a) == 2:
        return head
    if len(a) == 3:
        return (*head, a[2])
    return (*head, a[2], _SIDE[a[3]])


def _battle(a: tuple[int, ...]) -> tuple[Any, ...]:
    rest = a[2:]
    revealed = [
        [_SIDE[rest[i]], _BOX[rest[i + 1]], D.class_name(rest[i + 2]), rest[i + 3]]
        for i in range(0, len(rest), 4)
    ]
    return ("battle", a[0], _LOC[a[1]], revealed)


_DECODE = (
    lambda a, n: _turn_start("setup", a),
    lambda a, n: ("cubes", a[0], _CITY[a[1]], a[2]),
    lambda a, n: ("phase", a[0], _PHASE_NAMES[a[1]], a[2]),
    lambda a, n: ("pick_skipped", a[0]),
    lambda a, n: ("take_tile", a[0], D.influence_name(a[1])),
    lambda a, n: ("action_skipped", a[0], D.INFLUENCE_KIND_NAMES[a[1]]),
    lambda a, n: _special(a),
    lambda a, n: ("plague_loss", a[0], _CITY[a[1]], a[2]),
    lambda a, n: ("alkibiades_move", a[0], _CITY[a[1]], _CITY[a[2]]),
    lambda a, n: ("propose", a[0], _CITY[a[1]], a[2], "ab"[a[3]]),
    lambda a, n: ("assassinate", a[0], _CITY[a[1]], a[2], ("main", "alpha", "beta")[a[3]]),
    lambda a, n: ("propose_pass", a[0]),
    lambda a, n: ("election", _CITY[a[0]], a[1], a[2]),
    lambda a, n: ("persian_leaders", list(a)),
    lambda a, n: ("sparta_first", a[0], a[1]),
    lambda a, n: ("recover", a[0], D.class_name(a[1])),
    lambda a, n: ("commit_nothing", a[0]),
    lambda a, n: ("ask_permission", a[0], _MIL[a[1]], a[2]),
    lambda a, n: ("end_step", a[0]),
    lambda a, n: ("spend_cube", a[0], _CITY[a[1]]),
    lambda a, n: ("place", a[0], _MIL[a[1]], _UNIT[a[2]], a[3], _SIDE[a[4]], _BOX[a[5]]),
    lambda a, n: ("permission", a[0], _MIL[a[1]], a[2], bool(a[3])),
    lambda a, n: (
        "slave_revolt",
        a[0],
        "pool" if a[1] == 0 else f"slot {a[1]}",
        D.class_name(a[2]),
    ),
    lambda a, n: _battle(a),
    lambda a, n: ("round", a[0], _UNIT[a[1]], "empty"),
    lambda a, n: ("round", a[0], _UNIT[a[1]], _SIDE[a[2]], "automatic" if a[3] else "dice"),
    lambda a, n: ("dice_round", a[0], _UNIT[a[1]], a[2], a[3], D.CRT_COLUMNS[a[4]], a[5], a[6]),
    lambda a, n: ("roll", a[0], a[1], a[2]),
    lambda a, n: ("casualty", a[0], _SIDE[a[1]], D.class_name(a[2])),
    lambda a, n: ("claim", a[0], _LOC[a[1]], list(a[3:]), bool(a[2])),
    lambda a, n: ("unclaimed", a[0], _LOC[a[1]], _WHY[a[2]]),
    lambda a, n: ("end_turn", a[0], list(a[1:])),
    lambda a, n: ("game_over", list(a[:n]), list(a[n:])),
    lambda a, n: _turn_start("new_turn", a),
)


def _decode(raw: tuple[int, ...], n: int) -> tuple[Any, ...]:
    return _DECODE[raw[0]](raw[1:], n)


# ---- the game ------------------------------------------------------------------------------


class FieldList(list[Any]):
    """A list state field read from a NativeGame: every change is written back to C++."""

    __slots__ = ("_game", "_name")
    _game: NativeGame
    _name: str

    def _write(self) -> None:
        game = self._game
        if game.__dict__.get(self._name) is not self:
            raise TypeError(
                f"this {self._name!r} list was read from a NativeGame before the field "
                "changed (a decision or an assignment): read the field again to edit it"
            )
        try:
            game._c.set(_FIELD_IDS[self._name], list(self))
        except BaseException:
            del game.__dict__[self._name]  # C++ kept the old value: forget this list
            raise

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))

    def core_of(
        self, name: str, other: Any = None, other_name: str = "", n: int | None = None
    ) -> Any:
        """The C++ engine whose state this list (field ``name``) and ``other`` (field
        ``other_name``) are now, or None: both must be read from one NativeGame since its
        last change (so their contents are its state) and ``n`` its player count. Lets
        engine/queries.py answer a query about these lists in C++."""
        game = self._game
        fresh = game.__dict__
        if fresh.get(name) is not self or (other_name and fresh.get(other_name) is not other):
            return None
        core = game._c
        return core if n is None or (type(n) is int and n == core.n) else None


class FieldRng(Rng):
    """A NativeGame's generator: ``state`` lives in C++."""

    __slots__ = ("_game",)
    _game: NativeGame

    @property
    def state(self) -> int:
        return int(self._game._c.get(_RNG_ID))

    @state.setter
    def state(self, value: int) -> None:
        self._game._c.set(_RNG_ID, value & ((1 << 64) - 1))


def _writing(method_name: str) -> Any:
    method = getattr(list, method_name)

    def change(self: FieldList, *args: Any, **kwargs: Any) -> Any:
        result = method(self, *args, **kwargs)
        self._write()
        return result

    change.__name__ = method_name
    return change


for _method in ("__delitem__", "__iadd__", "__imul__", "append", "extend", "insert", "pop",
                "remove", "clear", "sort", "reverse"):
    setattr(FieldList, _method, _writing(_method))
_list_setitem = _writing("__setitem__")


def _setitem(self: FieldList, index: Any, value: Any) -> None:
    """``x[i] = v`` sends one item to C++ (slices re-send the whole field)."""
    if type(index) is not int:
        _list_setitem(self, index, value)
        return
    game = self._game
    if game.__dict__.get(self._name) is not self:
        self._write()  # raises: stale
    position = index + len(self) if index < 0 else index
    game._c.set_item(_FIELD_IDS[self._name], position, value)  # checks before changing
    list.__setitem__(self, index, value)


setattr(FieldList, "__setitem__", _setitem)  # noqa: B010  (replaces the generic writer)


_GAME_OVER = int(Phase.GAME_OVER)
_NUM_ACTIONS = A.NUM_ACTIONS
_RNG_ID = _FIELD_IDS["rng"]


class NativeGame(Game):
    """A ``Game`` whose state lives in C++ (see the module docstring for what differs)."""

    # __dict__ caches the state fields read since they last changed (see ``_Field``)
    __slots__ = ("_c", "_prefix", "_decoded", "__dict__")

    _c: Any
    _prefix: list[tuple[Any, ...]]
    _decoded: list[tuple[Any, ...]] | None

    @classmethod
    def new(
        cls, config: GameConfig | None = None, seed: int | None = 0, backend: str | None = "native"
    ) -> Game:
        return Game.new(config, seed, backend=backend)

    # ---- the decision API (hot: straight into C++) ----

    @property
    def phase(self) -> Phase:
        return Phase(self._c.phase)

    @phase.setter
    def phase(self, value: Phase) -> None:
        self._set("phase", value)

    @property
    def current(self) -> int:
        return int(self._c.current)

    @current.setter
    def current(self, value: int) -> None:
        self._set("current", value)

    @property
    def n(self) -> int:
        return int(self._c.n)

    @n.setter
    def n(self, value: int) -> None:
        self._set("n", value)

    def _set(self, name: str, value: Any) -> None:
        self.__dict__.pop(name, None)
        self._c.set(_FIELD_IDS[name], value)

    def __setattr__(self, name: str, value: Any) -> None:
        """Assigning a state field writes it to C++ (checked there)."""
        if name in _CACHED_FIELDS:
            self._set(name, list(value) if isinstance(value, (list, tuple)) else value)
        else:
            object.__setattr__(self, name, value)

    @property
    def current_player(self) -> int | None:
        c = self._c
        return None if c.phase == _GAME_OVER else c.current

    @property
    def is_terminal(self) -> bool:
        return bool(self._c.phase == _GAME_OVER)

    def legal_actions(self) -> list[int]:
        return self._c.legal_actions()  # type: ignore[no-any-return]

    def is_legal(self, action: int) -> bool:
        if type(action) is not int or not 0 <= action < _NUM_ACTIONS:
            return False
        return bool(self._c.is_legal(action))

    def apply_action(self, action: int) -> None:
        """Apply a legal action. Unlike the Python engine's unchecked call, an illegal one
        raises IllegalActionError (state unchanged): C++ never runs on bad input."""
        cache = self.__dict__
        try:
            if cache:  # forget only the cached fields this action changes
                changed = self._c.apply_changed(action)
                ok = changed is not None
            else:
                ok = self._c.apply(action)
        except TypeError:
            ok = False
        if not ok:
            raise self.illegal_action_error(action, "not legal now")
        if cache:
            forget = cache.pop
            for name in changed:
                forget(name, None)

    def legal_mask(self, out: Any) -> None:
        """Write the legal actions as a 0/1 mask into ``out``, a caller-owned writable
        C-contiguous array of ``NUM_ACTIONS`` bools or uint8s (e.g. numpy): nothing is
        allocated. Raises TypeError for another dtype or layout, ValueError for another
        length."""
        self._c.legal_mask(out)

    def scores(self) -> list[int]:
        return self._c.scores()  # type: ignore[no-any-return]

    def winners(self) -> list[int]:
        return self._c.winners()  # type: ignore[no-any-return]

    # Game's rule queries answered in C++; arguments outside the C++ ranges go to the Python
    # reference (which gives its own answer or error).

    def location_vp(self, player: int) -> int:
        try:
            return self._c.location_vp(player)  # type: ignore[no-any-return]
        except _OUTSIDE_NATIVE:
            return Game.location_vp(self, player)

    def statue_count(self, player: int) -> int:
        try:
            return self._c.statue_count(player)  # type: ignore[no-any-return]
        except _OUTSIDE_NATIVE:
            return Game.statue_count(self, player)

    def round_strengths(self, slot: int, unit_type: int) -> tuple[int, int]:
        try:
            return self._c.round_strengths(slot, unit_type)  # type: ignore[no-any-return]
        except _OUTSIDE_NATIVE:
            return Game.round_strengths(self, slot, unit_type)

    def predicted_rounds(self, slot: int) -> list[tuple[int, int, int, int]]:
        try:
            return self._c.predicted_rounds(slot)  # type: ignore[no-any-return]
        except _OUTSIDE_NATIVE:
            return Game.predicted_rounds(self, slot)

    @property
    def core(self) -> Any:
        """The C++ game object itself, for code that drives the core directly (the native
        observation encoder, the vector env, benchmarks). Reading fields through it skips
        this class's caches; changing the state through it is not supported."""
        return self._c

    def clone(self) -> NativeGame:
        return _wrap(self._c.clone(), self._prefix)

    def random_playout(self, seed: int, max_decisions: int = 1 << 62) -> int:
        """Play uniformly random legal actions (policy ``Rng(seed)``: ``legal[randrange]``)
        until the game ends or ``max_decisions`` are made, entirely in C++; returns the
        number of decisions made. For search rollouts."""
        self.__dict__.clear()
        return int(self._c.random_playout(int(seed) & (1 << 64) - 1, max_decisions))

    def _determinized(self, player: int, seed: int) -> NativeGame:
        """``determinize.determinize`` on this backend (a seat and a 64-bit seed, checked
        there): the sample is drawn in C++."""
        return _wrap(self._c.determinize(player, seed & (1 << 64) - 1), self._prefix)

    # ---- events ----

    @property
    def event_log(self) -> list[tuple[Any, ...]]:
        cache = self._decoded
        if cache is None:
            cache = self._decoded = list(self._prefix)
        have = len(cache) - len(self._prefix)
        if self._c.num_events() > have:
            n = self._c.n
            cache.extend(_decode(raw, n) for raw in self._c.events(have))
        return cache

    @property
    def events(self) -> list[tuple[Any, ...]]:
        return self.event_log

    @events.setter
    def events(self, value: list[tuple[Any, ...]]) -> None:
        self._c.clear_events()
        self._prefix = [tuple(e) for e in value]
        self._decoded = None

    @property
    def rng(self) -> Rng:
        """The game's generator: drawing from it (or setting ``state``) changes C++'s."""
        r = object.__new__(FieldRng)
        r._game = self
        return r

    @rng.setter
    def rng(self, value: Rng) -> None:
        self._set("rng", value.state)

    # ---- conversion ----

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> NativeGame:
        """Validate like the Python engine (same typed errors), then load into C++."""
        return from_python(Game.from_dict(d))

    def to_python(self) -> Game:
        """An independent Python-engine copy of this state (no validation needed)."""
        g: Game = object.__new__(Game)
        for name in STATE_FIELDS:
            value = getattr(self, name)
            object.__setattr__(g, name, list(value) if isinstance(value, list) else value)
        g.events = list(self.event_log)
        g.rng = Rng(self._c.get(_RNG_ID))
        return g

    def __reduce__(self) -> tuple[Any, ...]:
        return (NativeGame.from_dict, (self.to_dict(),))

    def __eq__(self, other: object) -> bool:
        """Same full state (RNG and events included), whichever backend holds it."""
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


class _Field:
    """A state field of NativeGame. A non-data descriptor: the first read after a change
    copies the value out of C++ into the instance ``__dict__``, where later reads find it
    at plain-attribute speed; ``apply_action`` forgets the copies of the fields the action
    changed (C++ compares them), ``__setattr__`` writes."""

    __slots__ = ("name", "fid")

    def __init__(self, name: str, fid: int) -> None:
        self.name, self.fid = name, fid

    def __get__(self, game: NativeGame | None, owner: type | None = None) -> Any:
        if game is None:
            return self
        value = game._c.get(self.fid)
        if type(value) is list:
            value = FieldList(value)
            value._game, value._name = game, self.name
        game.__dict__[self.name] = value
        return value


register_native(NativeGame, FieldList)  # engine/queries.py answers these from C++

_CACHED_FIELDS = frozenset(name for name in _FIELD_IDS if name not in NativeGame.__dict__)
for _name in _CACHED_FIELDS:  # phase, current, n and rng are properties of their own
    setattr(NativeGame, _name, _Field(_name, _FIELD_IDS[_name]))


_new_object = object.__new__
# the slots' own setters: no trip through NativeGame.__setattr__
_set_engine, _set_prefix, _set_decoded = (
    vars(NativeGame)[name].__set__ for name in ("_c", "_prefix", "_decoded")
)


def _wrap(engine: Any, prefix: list[tuple[Any, ...]]) -> NativeGame:
    """A NativeGame around a C++ engine object (hot: every clone)."""
    g = _new_object(NativeGame)
    _set_engine(g, engine)
    _set_prefix(g, prefix)
    _set_decoded(g, None)
    return g


def new_native(config: GameConfig, seed: int | None) -> NativeGame:
    """A new game on the C++ core; ``seed`` already validated by ``Game.new``."""
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    return _wrap(_native.Engine.new(config.num_players, config.record_events, seed), [])


def from_python(game: Game) -> NativeGame:
    """Load a (validated) Python-engine state into C++."""
    c = _native.Engine.blank()
    for name, fid in _FIELD_IDS.items():
        if name == "phase":
            value: Any = int(game.phase)
        elif name == "rng":
            value = game.rng.state
        else:
            value = getattr(game, name)
            if isinstance(value, tuple):
                value = list(value)
        c.set(fid, value)
    c.finish_load()
    return _wrap(c, list(game.event_log))


def random_games(num_players: int, games: int, seed0: int = 0, record_events: bool = True) -> int:
    """Decisions made by ``games`` uniform random games (game ``i``: seed and policy seed
    ``seed0 + i``), played entirely in C++ with the GIL released. For benchmarks."""
    return int(_native.random_games(num_players, games, seed0, record_events))
