"""Personality parameters of the heuristic player: declared here once (``knob``), with the
C++ struct (native/engine/generated/params.hpp), the vector env's opponent tuples and the table of
docs/agents.md derived from this declaration."""

from __future__ import annotations

from dataclasses import dataclass

from .knobs import check_knobs, knob, knob_fields


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
