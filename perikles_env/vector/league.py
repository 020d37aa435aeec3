"""Who plays the seats of a ``VectorEnv`` that are not the learner's: the league, checked in
Python before any game starts and handed to C++ as plain tuples.

``opponents`` is one spec, a list of specs (equal weights) or ``{spec: weight}``; each seat
of a game draws one spec by weight when the game is dealt (``same_table``: the share of
games where one draw fills every opponent seat, as ``single_agent.OpponentPool``). A spec is

* ``random``: a uniformly random legal move, in C++;
* ``heuristic`` or ``heuristic:aggression=1.5,caution=0.2``: the heuristic player with that
  personality (``analysis/params.py``), in C++ (``native/players/heuristic.hpp``);
* ``personalities``: the heuristic with its knobs drawn anew for every seat of every game
  (``analysis/params.py`` ``personality_range``: uniform over each knob's range), in C++;
* a name listed in ``controllers``: the seat comes back to Python, to controller
  ``1 + controllers.index(name)`` (the learner is controller 0), so that each network
  acts once per step on all of its rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..analysis.params import PERSONALITIES, HeuristicParams, personality_range
from ..errors import InvalidConfigError
from .seat_draw import MAX_WEIGHT

NATIVE_SPECS = ("random", "heuristic", PERSONALITIES)
RANDOM, HEURISTIC = -1, -2  # native/env/vector_env.hpp Opponent::RANDOM / HEURISTIC
OpponentsArg = str | Sequence[str] | Mapping[str, float] | None


def heuristic_params(spec: str) -> HeuristicParams:
    """The personality of a ``heuristic[:key=value,...]`` spec."""
    _, _, rest = spec.partition(":")
    options: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in HeuristicParams.names():
            raise InvalidConfigError(
                f"opponent {spec!r}: {part!r} is not one of "
                f"{', '.join(HeuristicParams.names())} = number"
            )
        try:
            options[key] = float(value)
        except ValueError:
            raise InvalidConfigError(f"opponent {spec!r}: {key} must be a number") from None
    try:
        return HeuristicParams(**options)
    except InvalidConfigError as exc:  # a value out of [0, 2]
        raise InvalidConfigError(f"opponent {spec!r}: {exc}") from None


@dataclass(frozen=True)
class League:
    """The checked league: ``specs`` with positive ``weights``, the Python ``controllers``."""

    specs: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    same_table: float = 0.0
    controllers: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, opponents: OpponentsArg, same_table: float = 0.0, controllers: Sequence[str] = ()
    ) -> League:
        if isinstance(controllers, str) or not isinstance(controllers, Sequence):
            raise InvalidConfigError(f"controllers must be a list of names, got {controllers!r}")
        names = tuple(controllers)
        for name in names:
            if not isinstance(name, str) or not name or name.split(":")[0] in NATIVE_SPECS:
                raise InvalidConfigError(
                    f"controller names must be strings other than {NATIVE_SPECS}, got {name!r}"
                )
        if len(set(names)) != len(names):
            raise InvalidConfigError(f"controller names repeated: {list(names)}")
        if isinstance(same_table, bool) or not isinstance(same_table, (int, float)) or not (
            0.0 <= same_table <= 1.0
        ):
            raise InvalidConfigError(f"same_table must be a number in [0, 1], got {same_table!r}")
        if opponents is None:
            if names:
                raise InvalidConfigError("controllers need opponents naming them")
            return cls()
        specs, weights = _specs_and_weights(opponents)
        for spec in specs:
            _check_spec(spec, names)
        return cls(tuple(specs), tuple(weights), float(same_table), names)

    def reweighted(self, weights: Mapping[str, float], same_table: float | None = None) -> League:
        """This league with new weights (specs left out weigh 0) and ``same_table``."""
        if not isinstance(weights, Mapping):
            raise InvalidConfigError(f"weights must be a {{spec: weight}} dict, got {weights!r}")
        unknown = [s for s in weights if s not in self.specs]
        if unknown:
            raise InvalidConfigError(
                f"opponents {unknown} are not in this env's league {list(self.specs)} "
                "(its players are fixed when it is made; only their weights change)"
            )
        share = self.same_table if same_table is None else same_table
        full = {s: weights.get(s, 0.0) for s in self.specs}
        return League.of(full, share, self.controllers)

    def native(self) -> list[tuple[int | float, ...]]:
        """The C++ Opponent of each spec: (controller, then the personality's low and high
        ends, each in ``HeuristicParams.names()`` order: native/engine/generated/params.hpp
        ``ai::Params``; a knob with high > low is drawn per seat, vector_env.hpp)."""
        unused = (0.0,) * 2 * len(HeuristicParams.names())
        out: list[tuple[int | float, ...]] = []
        for spec in self.specs:
            if spec in self.controllers:
                out.append((1 + self.controllers.index(spec), *unused))
            elif spec == "random":
                out.append((RANDOM, *unused))
            elif spec == PERSONALITIES:
                low, high = personality_range()
                out.append((HEURISTIC, *low.values(), *high.values()))
            else:
                values = heuristic_params(spec).values()
                out.append((HEURISTIC, *values, *values))
        return out


def checked_weight(spec: object, weight: object) -> float:
    """An opponent's weight as a float: a number in [0, ``MAX_WEIGHT``], else one
    ``InvalidConfigError`` naming the spec (never an ``OverflowError`` for ``10**400``)."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not (
        0 <= weight <= MAX_WEIGHT  # False for NaN; exact for huge ints
    ):
        raise InvalidConfigError(
            f"opponent weights must be finite numbers >= 0 and <= {MAX_WEIGHT:g}, "
            f"got {_short(weight)} for {spec!r}"
        )
    return float(weight)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def checked_specs_and_weights(specs: Sequence[object], weights: Sequence[object]) -> list[float]:
    """The weights as floats, once every spec is a distinct non-empty string and every
    weight a number in [0, ``MAX_WEIGHT``] with a positive sum (``InvalidConfigError``)."""
    for spec in specs:
        if not isinstance(spec, str) or not spec.strip():
            raise InvalidConfigError(f"an opponent spec must be a non-empty string, got {spec!r}")
    if len(set(specs)) != len(specs):
        raise InvalidConfigError(f"opponent specs repeated: {list(specs)}")
    if len(specs) != len(weights):
        raise InvalidConfigError("opponent specs and weights differ in length")
    out = [checked_weight(s, w) for s, w in zip(specs, weights, strict=True)]
    if not sum(out) > 0:
        raise InvalidConfigError(f"opponent weights must have a positive sum, got {out}")
    return out


def _specs_and_weights(opponents: object) -> tuple[list[str], list[float]]:
    if isinstance(opponents, str):
        return [opponents], [1.0]
    if isinstance(opponents, Mapping):
        specs, weights = list(opponents), list(opponents.values())
    elif isinstance(opponents, Sequence) and opponents:
        specs, weights = list(opponents), [1.0] * len(opponents)
    else:
        raise InvalidConfigError(
            f"opponents must be None, a spec, a non-empty list or a {{spec: weight}} dict, "
            f"got {opponents!r}"
        )
    return specs, checked_specs_and_weights(specs, weights)


def _check_spec(spec: object, controllers: tuple[str, ...]) -> None:
    if not isinstance(spec, str):
        raise InvalidConfigError(f"an opponent spec must be a string, got {spec!r}")
    if spec in controllers or spec in ("random", PERSONALITIES):
        return
    if spec.partition(":")[0] == "heuristic":
        heuristic_params(spec)
        return
    raise InvalidConfigError(
        f"unknown opponent spec {spec!r}: the vector env plays 'random', "
        f"'heuristic[:key=value,...]' and {PERSONALITIES!r} natively; a Python-controlled "
        f"seat must be named in "
        f"controllers (got {list(controllers)})"
    )
