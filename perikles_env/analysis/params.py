"""Personality parameters of the heuristic player: declared here once (``knob``), with the
C++ struct (native/engine/generated/params.hpp), the vector env's opponent tuples and the table of
docs/agents.md derived from this declaration."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .knobs import check_knobs, knob, knob_fields, knob_of


@dataclass(frozen=True)
class HeuristicParams:
    """Knobs that change how the heuristic plays, each a number in [0, 2].

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

    aggression: float = knob(
        0.5, "lower opportunity cost per counter, cheaper cube spending: commits more, "
        "attacks at worse odds", low=0.0, high=2.0,
    )
    politics: float = knob(
        1.0, "weight of statues against the military value of leading a city; higher "
        "chases leaderships", low=0.0, high=2.0,
    )
    spite: float = knob(
        0.6, "weight of the mean opponent gain in every score (0: purely own VP)",
        low=0.0, high=2.0,
    )
    caution: float = knob(
        0.5, "share of an opponent's remaining forces expected as reinforcement",
        low=0.0, high=2.0,
    )
    noise: float = knob(
        0.0, "std-dev (VP) of random noise added to scores, for varied play",
        low=0.0, high=2.0,
    )

    def __post_init__(self) -> None:
        check_knobs(self, "heuristic")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The knobs in declaration order: the order of the C++ ``ai::Params`` members and
        of the vector env's opponent tuples."""
        return tuple(name for name, _ in knob_fields(cls))

    def values(self) -> tuple[float, ...]:
        """The knobs' values in ``names()`` order."""
        return tuple(getattr(self, name) for name in self.names())


# A league key (the vector env's, a single-agent env's, expert iteration's): the heuristic
# with its knobs drawn anew for every seat of every game, a different player each time, not
# only the named personalities. The knobs drawn (noise stays 0: the personality is the variety).
PERSONALITIES = "personalities"
SAMPLED_KNOBS = ("aggression", "politics", "spite", "caution")


def personality_range() -> tuple[HeuristicParams, HeuristicParams]:
    """The low and high ends of a sampled personality: each of ``SAMPLED_KNOBS`` over its
    declared range, every other knob at its default (low == high)."""
    low = {name: knob_of(HeuristicParams, name).low for name in SAMPLED_KNOBS}
    high = {name: knob_of(HeuristicParams, name).high for name in SAMPLED_KNOBS}
    return HeuristicParams(**low), HeuristicParams(**high)  # type: ignore[arg-type]


def sampled_personality(rng: Any) -> str:
    """The spec of one sampled personality, each of ``SAMPLED_KNOBS`` uniform over its range
    from ``rng.uniform`` (a numpy ``Generator``), to two decimals."""
    low, high = personality_range()
    parts = [
        f"{name}={round(float(rng.uniform(getattr(low, name), getattr(high, name))), 2)}"
        for name in SAMPLED_KNOBS
    ]
    return "heuristic:" + ",".join(parts)
