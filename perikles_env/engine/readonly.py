"""What makes a ``NativeGame`` read-only: immutable snapshots of its fields and RNG, and
the refusal of the Python engine's rule code (by name: a NativeGame does not inherit it),
each with one typed error that names the way to build a scenario (``ReadOnlyStateError``).
Kept apart from ``native.py`` so that the refusals are declared in one place and need no
C++ build to test."""

from __future__ import annotations

from typing import Any

from ..errors import ReadOnlyStateError
from .rng import Rng

HOW_TO_EDIT = (
    "a NativeGame's state changes only through apply_action; build the scenario on a Python "
    "game (new_game(..., backend='python')) and load it with NativeGame.from_python(game)"
)


def refuse(*args: Any, **kwargs: Any) -> Any:
    raise ReadOnlyStateError(f"a field of a NativeGame is an immutable snapshot: {HOW_TO_EDIT}")


class FrozenList(list[Any]):
    """An immutable snapshot of a list field (equal to the plain list). Copies
    (``list(x)``, ``x[:]``, ``copy.copy``) are ordinary lists."""

    __slots__ = ()

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: Any) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


for _name in ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend",
              "insert", "pop", "remove", "clear", "sort", "reverse"):
    setattr(FrozenList, _name, refuse)


class FrozenRng(Rng):
    """The RNG state of a NativeGame: readable, never drawn from (a draw here could not
    change the game's own generator in C++)."""

    __slots__ = ("_state",)
    _state: int

    @property
    def state(self) -> int:
        return self._state

    @state.setter
    def state(self, value: int) -> None:
        refuse()

    def __setattr__(self, name: str, value: Any) -> None:
        refuse()

    def __delattr__(self, name: str) -> None:
        refuse()

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles: another frozen snapshot
        return (frozen_rng, (self._state,))

    def next64(self) -> int:
        refuse()
        return 0


class SnapshotField:
    """A state field of a NativeGame: the first read after a decision copies it out of C++
    (field id ``fid`` of ``game._c``) into the instance ``__dict__`` as a snapshot; later
    reads until the next decision are plain attribute reads."""

    __slots__ = ("name", "fid")

    def __init__(self, name: str, fid: int) -> None:
        self.name, self.fid = name, fid

    def __get__(self, game: Any, owner: type | None = None) -> Any:
        if game is None:
            return self
        value = game._c.get(self.fid)
        if type(value) is list:
            value = FrozenList(value)
        game.__dict__[self.name] = value
        return value


def frozen_rng(state: int) -> FrozenRng:
    r = object.__new__(FrozenRng)
    object.__setattr__(r, "_state", state)
    return r


def rule_code_names(rules: tuple[type, ...]) -> frozenset[str]:
    """The private methods of ``rules`` (the Python engine's rule code): names a NativeGame
    does not have and refuses by name (``rule_code_error``) rather than as unknown."""
    return frozenset(
        name
        for rule_class in rules
        for name, value in vars(rule_class).items()
        if name.startswith("_") and not name.startswith("__") and callable(value)
    )


def rule_code_error(name: str) -> ReadOnlyStateError:
    """The refusal of the Python rule method ``name`` over a NativeGame's C++ state."""
    return ReadOnlyStateError(
        f"{name} is the Python engine's rule code and cannot run over a NativeGame's "
        f"C++ state: {HOW_TO_EDIT}"
    )
