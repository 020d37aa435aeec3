"""Who sits in the non-learner seats: a weighted list of agent specs.

An ``OpponentPool`` is plain data (specs and weights), so it pickles cheaply into
``SubprocVecEnv`` workers and can be replaced while training runs (self-play adds
snapshots with ``set_opponents``). Each opponent seat draws its spec independently, from
the env's seeded generator, at the start of every episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents import AgentError, parse_spec
from ..errors import InvalidConfigError


@dataclass(frozen=True)
class OpponentPool:
    specs: tuple[str, ...]
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.specs:
            raise InvalidConfigError("the opponent pool is empty")
        if len(self.specs) != len(self.weights):
            raise InvalidConfigError("opponent specs and weights differ in length")
        for spec in self.specs:
            try:
                parse_spec(spec)
            except AgentError as exc:
                raise InvalidConfigError(f"bad opponent {spec!r}: {exc}") from exc
        for w in self.weights:
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not w >= 0:
                raise InvalidConfigError(f"opponent weights must be numbers >= 0, got {w!r}")
        if sum(self.weights) <= 0:
            raise InvalidConfigError("opponent weights sum to 0")

    @classmethod
    def of(cls, value: OpponentPool | str | Sequence[str] | Mapping[str, float]) -> OpponentPool:
        """From a pool, one spec, a list of specs (equal weights) or {spec: weight}."""
        if isinstance(value, OpponentPool):
            return value
        if isinstance(value, str):
            return cls((value,), (1.0,))
        if isinstance(value, Mapping):
            return cls(tuple(value), tuple(float(w) for w in value.values()))
        if isinstance(value, Sequence):
            return cls(tuple(value), tuple(1.0 for _ in value))
        raise InvalidConfigError(f"opponents must be a spec, a list or a dict, got {value!r}")

    @property
    def probabilities(self) -> np.ndarray:
        w = np.asarray(self.weights, dtype=float)
        return w / w.sum()

    def sample(self, rng: np.random.Generator, count: int) -> list[str]:
        """``count`` specs drawn independently (one per opponent seat)."""
        if len(self.specs) == 1:
            return [self.specs[0]] * count
        picks = rng.choice(len(self.specs), size=count, p=self.probabilities)
        return [self.specs[int(i)] for i in picks]

    def as_dict(self) -> dict[str, Any]:
        return {"specs": list(self.specs), "weights": list(self.weights)}
