"""The search's settings, declared here once (``knob``): the C++ ``search::Params``
(native/engine/generated/params.hpp), the ``search:`` spec parser, the expert config's ``search``
section (and so configs/schema/search.json) and the table of docs/agents.md derive from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...analysis.knobs import check_knobs, knob, knob_fields
from ...engine import NUM_ACTIONS
from ...errors import InvalidConfigError

OPPONENT_MODELS = ("tree", "heuristic")  # C++: search::Params.heuristic_opponents
NATIVE_OPPONENTS = "heuristic_opponents"  # C++: a bool, true for "heuristic"
MIN_PRIOR_TEMP, MAX_PRIOR_TEMP = 1e-3, 1e3  # logits / prior_temp stay finite in float32


@dataclass(frozen=True)
class SearchParams:
    """Search settings (docs/agents.md "Search with a network"): every field is a ``Knob``
    with its default, range and meaning; a bad value is an ``InvalidConfigError`` naming it."""

    sims: int = knob(
        64, "simulations per decision after the root's evaluation (0: the network alone)",
        low=0, high=1 << 20,
    )
    seconds: float = knob(
        0.0, "wall-clock limit per `search_batch` call (0: none): no new simulation starts "
        "after it, each search completes at least one", low=0.0, native=False,
    )
    c_puct: float = knob(
        1.25, "weight of the prior below the root (values are win shares in [0, 1])", low=0.0,
    )
    fpu: float = knob(0.2, "first-play urgency reduction")
    gumbel_m: int = knob(
        16, "root actions sampled (0: PUCT at the root, visit counts)", low=0, high=NUM_ACTIONS,
    )
    gumbel_scale: float = knob(
        1.0, "scale of the root's Gumbel noise (0: the top-m logits)", low=0.0,
    )
    c_visit: float = knob(50.0, "σ(q) = (c_visit + max visits) · c_scale · q: the σ "
                          "transform of the completed Q", low=0.0)
    c_scale: float = knob(0.1, "the σ transform's scale (with `c_visit`)", low=0.0)
    q_rescale: bool = knob(
        True, "the completed Q min-max rescaled over the root's actions before σ (mctx's "
        "default: the best action gets the full σ however small its lead); false: σ of the "
        "win shares themselves, so that a lead within the values' noise stays small",
    )
    batch: int = knob(16, "rows per evaluator call", low=1, high=1 << 16, native=False)
    leaves_per_search: int = knob(
        1, "leaves one search may have in one batch (virtual loss)", low=1, high=4096,
    )
    opponents: str = knob(
        "tree", "`tree`: every seat's decisions are nodes; `heuristic`: the other seats play "
        "the default heuristic inside each simulation", choices=OPPONENT_MODELS,
    )
    rollout_mix: float = knob(
        0.0, "a leaf's weight on a heuristic playout's win shares (0: the network's value "
        "alone; 1: the playout alone)", low=0.0, high=1.0,
    )
    prior_temp: float = knob(
        1.0, "the prior is `softmax(logits / prior_temp)` over the legal actions: above 1 it "
        "flattens a sharp policy (one fine-tuned by PPO) so that the search still explores "
        "(the Gumbel root samples and scores the tempered logits too); the evaluator's own "
        "arrays are not changed", low=MIN_PRIOR_TEMP, high=MAX_PRIOR_TEMP, native=False,
    )

    def __post_init__(self) -> None:
        check_knobs(self, "search")

    def native(self) -> dict[str, Any]:
        """The C++ ``search::Params`` members (native/engine/generated/params.hpp), by name: the
        native knobs, ``opponents`` as ``heuristic_opponents``."""
        out: dict[str, Any] = {}
        for name, k in knob_fields(type(self)):
            if k.native:
                value = getattr(self, name)
                if name == "opponents":
                    out[NATIVE_OPPONENTS] = value == "heuristic"
                else:
                    out[name] = value
        return out

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(name for name, _ in knob_fields(cls))

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> SearchParams:
        known = set(cls.names())
        unknown = set(options) - known
        if unknown:
            raise InvalidConfigError(
                f"unknown search option(s) {sorted(unknown)}; known: {sorted(known)}"
            )
        return cls(**options)
