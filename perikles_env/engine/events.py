"""Events logged as ints (the C++ core's compact log) read back as the Python engine's
tuples, by the declaration of every event kind in ``schema.EVENTS``: one decoder per kind,
built from its argument kinds, so the two engines' logs cannot drift apart silently
(tests/native proves them equal over whole games)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import actions as A
from . import data as D
from . import schema as S

_LOC = tuple(t.name for t in D.LOCATION_TILES)


def _named(names: Sequence[str]) -> Callable[[int], Any]:
    return names.__getitem__


# One int -> one item of the tuple.
ARG_DECODERS: dict[str, Callable[[int], Any]] = {
    "int": int,
    "bool": bool,
    "city": _named(D.CITY_NAMES),
    "mil": _named(D.MILITARY_CITY_NAMES),
    "unit": _named(D.UNIT_TYPE_NAMES),
    "side": _named(A.SIDE_NAMES),
    "box": _named(("main", "allied")),
    "loc": _named(_LOC),
    "tile": D.influence_name,
    "tile_kind": _named(D.INFLUENCE_KIND_NAMES),
    "special": _named(D.SPECIAL_NAMES),
    "class": D.class_name,
    "phase_name": _named(S.PHASE_EVENT_NAMES),
    "ab": _named("ab"),
    "cand_slot": _named(("main", "alpha", "beta")),
    "crt_column": _named(D.CRT_COLUMNS),
    "why": _named(S.UNCLAIMED_REASONS),
    "automatic": lambda v: "automatic" if v else "dice",
    "pool_or_slot": lambda v: "pool" if v == 0 else f"slot {v}",
}


def _revealed(rest: Sequence[int]) -> list[list[Any]]:
    """A battle's face-up counters: (side, box, class, count) per group."""
    side, box, klass = ARG_DECODERS["side"], ARG_DECODERS["box"], D.class_name
    return [
        [side(rest[i]), box(rest[i + 1]), klass(rest[i + 2]), rest[i + 3]]
        for i in range(0, len(rest), 4)
    ]


def _decoder(event: S.Event) -> Callable[[Sequence[int], int], tuple[Any, ...]]:
    """Read ``event``'s ints (after its id) for an ``n``-player game."""

    def decode(ints: Sequence[int], n: int) -> tuple[Any, ...]:
        items: list[Any] = []
        i = 0
        for arg in event.args:
            if arg == "locs":  # the location display: one tile per slot
                items.append([_LOC[t] for t in ints[i : i + D.LOCATION_SLOTS]])
                i += D.LOCATION_SLOTS
            elif arg == "seats":  # one int per seat
                items.append(list(ints[i : i + n]))
                i += n
            elif arg == "*tile":
                items.append([D.influence_name(t) for t in ints[i:]])
                i = len(ints)
            elif arg == "*int":
                items.append(list(ints[i:]))
                i = len(ints)
            elif arg == "*revealed":
                items.append(_revealed(ints[i:]))
                i = len(ints)
            elif arg.startswith("?"):  # optional trailing argument
                if i < len(ints):
                    items.append(ARG_DECODERS[arg[1:]](ints[i]))
                    i += 1
            else:
                items.append(ARG_DECODERS[arg](ints[i]))
                i += 1
        if event.order:
            items = [items[j] for j in event.order]
        return (event.kind, *items, *event.tail)

    return decode


DECODERS = tuple(_decoder(e) for e in S.EVENTS)


def decode(raw: Sequence[int], n: int) -> tuple[Any, ...]:
    """``raw`` is ``(event id, ints...)`` as the C++ core logs it."""
    return DECODERS[raw[0]](raw[1:], n)


def extend_log(log: list[tuple[Any, ...]], prefix: int, core: Any) -> list[tuple[Any, ...]]:
    """``log`` (``prefix`` events a loaded state brought, then those decoded so far) with
    the events the C++ engine ``core`` logged since, decoded: each event is decoded once."""
    have = len(log) - prefix
    if core.num_events() > have:
        n = core.n
        list.extend(log, (decode(raw, n) for raw in core.events(have)))
    return log
