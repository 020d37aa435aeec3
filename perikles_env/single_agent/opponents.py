"""Who sits in the non-learner seats: a weighted list of agent specs.

An ``OpponentPool`` is plain data (specs and weights), so it pickles cheaply into
``SubprocVecEnv`` workers and can be replaced while training runs (self-play adds
snapshots with ``set_opponents``). At the start of every episode, from the env's seeded
generator, each opponent seat draws its spec independently; with ``same_table`` > 0 that
share of episodes instead draws one spec for the whole table (three heuristic players,
three random players, ...), the tables an evaluation plays against. The spec
``personalities`` seats the heuristic with knobs drawn anew for that seat
(``analysis/params.py``), as the vector env's league does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents import AgentError, parse_spec
from ..analysis.params import PERSONALITIES, sampled_personality
from ..errors import InvalidConfigError
from ..vector.league import checked_specs_and_weights, heuristic_params
from ..vector.seat_draw import cumulative, draw_seats


@dataclass(frozen=True)
class OpponentPool:
    specs: tuple[str, ...]
    weights: tuple[float, ...]
    same_table: float = 0.0  # share of episodes with one spec in every opponent seat

    def __post_init__(self) -> None:
        for name in ("specs", "weights"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise InvalidConfigError(f"opponent {name} must be a list, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        if not self.specs:
            raise InvalidConfigError("the opponent pool is empty")
        checked_specs_and_weights(self.specs, self.weights)
        for spec in self.specs:
            if spec == PERSONALITIES:
                continue
            try:
                name, _ = parse_spec(spec)
            except AgentError as exc:
                raise InvalidConfigError(f"bad opponent {spec!r}: {exc}") from exc
            if name == "heuristic":  # its personality checked now, not at the first game
                heuristic_params(spec)
        share = self.same_table
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
            raise InvalidConfigError(f"same_table must be a number in [0, 1], got {share!r}")

    @classmethod
    def of(cls, value: OpponentPool | str | Sequence[str] | Mapping[str, float]) -> OpponentPool:
        """From a pool, one spec, a list of specs (equal weights) or {spec: weight}."""
        if isinstance(value, OpponentPool):
            return value
        if isinstance(value, str):
            return cls((value,), (1.0,))
        if isinstance(value, Mapping):
            return cls(tuple(value), tuple(value.values()))
        if isinstance(value, Sequence):
            return cls(tuple(value), tuple(1.0 for _ in value))
        raise InvalidConfigError(f"opponents must be a spec, a list or a dict, got {value!r}")

    @property
    def probabilities(self) -> np.ndarray:
        w = np.asarray(self.weights, dtype=float)
        return w / w.sum()

    def sample(self, rng: np.random.Generator, count: int) -> list[str]:
        """``count`` specs, one per opponent seat, by the league's one seat draw
        (``vector/seat_draw.py``; the C++ vector env follows the same): drawn
        independently, or in a ``same_table`` share of calls one spec for all (no extra
        draw when the share is 0, so pools without it keep their streams); then each
        ``personalities`` seat's knobs, seat by seat."""
        if len(self.specs) == 1:
            specs = [self.specs[0]] * count
        else:
            picks = draw_seats(rng.random, cumulative(self.weights), self.same_table, count)
            specs = [self.specs[i] for i in picks]
        return [sampled_personality(rng) if s == PERSONALITIES else s for s in specs]

    def as_dict(self) -> dict[str, Any]:
        return {"specs": list(self.specs), "weights": list(self.weights),
                "same_table": self.same_table}
