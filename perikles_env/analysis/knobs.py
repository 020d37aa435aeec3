"""One declaration per tunable parameter (a ``Knob``): type, default, range and meaning.

The heuristic's ``HeuristicParams`` and the search's ``SearchParams`` are frozen dataclasses
whose fields are declared with ``knob(...)``; everything else is derived from those fields:
the dataclass's own check (``check_knobs``: one ``InvalidConfigError`` naming the field),
the C++ structs (``scripts/gen_params.py`` writes ``native/engine/generated/params.hpp``), the
expert config's pydantic section and so the configs' JSON Schema (``pydantic_field``), and
the parameter tables of docs/agents.md (``markdown_table``). Standard library only, so the
analysis layer can hold it.
"""

from __future__ import annotations

import math
from dataclasses import Field, dataclass, field, fields
from typing import Any

from ..errors import InvalidConfigError

KNOB = "knob"  # the dataclass field metadata key


@dataclass(frozen=True)
class Knob:
    """A parameter's declaration. ``kind`` is ``bool``, ``int``, ``float`` or ``str`` (``choices``);
    numbers lie in [``low``, ``high``] (``None``: unbounded; floats are always finite)."""

    kind: type
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    native: bool = True  # a member of the C++ struct too (False: Python's only)

    def range_text(self) -> str:
        """The range as the docs and error messages write it (``0-2``, ``>= 0``)."""
        if self.choices:
            return " or ".join(f"`{c}`" for c in self.choices)
        if self.kind is bool:
            return "`true` or `false`"
        low, high = (_pretty(b) for b in (self.low, self.high))
        if low is not None and high is not None:
            return f"{low}-{high}"
        if low is not None:
            return f">= {low}"
        if high is not None:
            return f"<= {high}"
        return "finite"

    def checked(self, owner: str, name: str, value: Any) -> Any:
        """``value`` as the field keeps it (an int where a float is declared becomes a
        float), or ``InvalidConfigError`` naming ``owner name``."""
        if self.choices:
            if value not in self.choices:
                raise InvalidConfigError(
                    f"{owner} {name} must be one of {list(self.choices)}, got {value!r}"
                )
            return value
        if self.kind is bool:
            if not isinstance(value, bool):
                raise InvalidConfigError(f"{owner} {name} must be true or false, got {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int) or not self._inside(value):
                raise InvalidConfigError(
                    f"{owner} {name} must be an int in {self.low}..{self.high}, got {value!r}"
                )
            return value
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or not self._inside(value)
        ):
            raise InvalidConfigError(f"{owner} {name} must be {self.float_range()}, got {value!r}")
        return float(value)

    def float_range(self) -> str:
        """What a float knob must be, as its error messages say (here and in C++)."""
        low, high = (_pretty(b) for b in (self.low, self.high))
        if low is not None and high is not None:
            return f"in [{low}, {high}]"
        return "a finite number" + (f" >= {low}" if low is not None else "") + (
            f" <= {high}" if high is not None else ""
        )

    def _inside(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def knob(
    default: Any,
    doc: str,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] = (),
    native: bool = True,
) -> Any:
    """A dataclass field declared as a ``Knob`` (its kind is the default's type)."""
    kind = str if choices else type(default)
    return field(
        default=default,
        metadata={KNOB: Knob(kind, default, doc, low, high, choices, native)},
    )


def knob_fields(cls: type) -> tuple[tuple[str, Knob], ...]:
    """(name, Knob) of every declared field of ``cls``, in declaration order."""
    return tuple((f.name, _knob(f)) for f in fields(cls) if KNOB in f.metadata)


def knob_of(cls: type, name: str) -> Knob:
    """The declaration of ``cls``'s field ``name``."""
    return dict(knob_fields(cls))[name]


def check_knobs(obj: Any, owner: str) -> None:
    """In a frozen dataclass's ``__post_init__``: check and normalise every knob field."""
    for name, k in knob_fields(type(obj)):
        object.__setattr__(obj, name, k.checked(owner, name, getattr(obj, name)))


def pydantic_field(k: Knob, default: Any = None) -> tuple[Any, Any]:
    """(annotation, ``Field``) of a pydantic model field for ``k`` (``default``: another
    default than the knob's), for ``pydantic.create_model``. Imported here only when
    called: the analysis layer itself never loads pydantic."""
    from typing import Annotated, Literal

    from pydantic import Field as PydanticField

    value = k.default if default is None else default
    if k.choices:
        return Literal[k.choices], PydanticField(value, description=k.doc)  # type: ignore[valid-type]
    bounds = {b: v for b, v in (("ge", k.low), ("le", k.high)) if v is not None}
    annotation = Annotated[k.kind, PydanticField(**bounds)]
    return annotation, PydanticField(value, description=k.doc)


def markdown_table(cls: type, columns: dict[str, dict[str, Any]] | None = None) -> str:
    """The docs table of ``cls``'s knobs: parameter, default, range, meaning; ``columns``:
    extra default columns (title -> {name: value}; a name left out: the knob's default,
    ``None``: the caller has no such knob)."""
    extra = columns or {}
    head = ["parameter", "default", *extra, "range", "meaning"]
    align = ["---", "---:", *["---:"] * len(extra), "---", "---"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for name, k in knob_fields(cls):
        others = [_cell(values.get(name, k.default)) for values in extra.values()]
        cells = [f"`{name}`", _cell(k.default), *others, k.range_text(), k.doc]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if value is None:  # a caller without this knob
        return "–"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`" if isinstance(value, str) else str(value)


def _pretty(value: float | None) -> Any:
    """A bound as the docs write it: whole floats as ints, powers of two from 2^16 on as
    ``2^k``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and value >= 1 << 16 and value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    return value


def _knob(f: Field[Any]) -> Knob:
    return f.metadata[KNOB]  # type: ignore[no-any-return]
