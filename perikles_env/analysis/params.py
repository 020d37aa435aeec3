"""Personality parameters of the heuristic player (documented in docs/agents.md)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import InvalidConfigError


@dataclass(frozen=True)
class HeuristicParams:
    """Knobs that change how the heuristic plays, all in [0, 2] unless noted.

    * ``aggression``: appetite for military risk. Higher values attack at worse odds, keep
      fewer counters back for later steps and spend cubes for extra forces more readily.
    * ``politics``: weight of statues and election wins against battle gains. Higher values
      chase leaderships (and pay more cubes for them); lower values play for locations.
    * ``spite``: weight of the opponents' gains, averaged over opponents, in every choice.
      0 plays purely for its own points; 1 values a point denied like a point won.
    * ``caution``: how much of an opponent's remaining pool the player expects to see as
      reinforcement at a contested location.
    * ``noise``: standard deviation of random noise (in VP) added to every option's value;
      0 plays deterministically up to ties (ties are always broken with the given rng).
    """

    aggression: float = 0.5
    politics: float = 1.0
    spite: float = 0.6
    caution: float = 0.5
    noise: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidConfigError(f"heuristic {f.name} must be a number, got {value!r}")
            if not 0.0 <= float(value) <= 2.0:
                raise InvalidConfigError(f"heuristic {f.name} must be in [0, 2], got {value!r}")
            object.__setattr__(self, f.name, float(value))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))
