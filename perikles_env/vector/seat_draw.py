"""The league's seat draw, declared once: who fills each opponent seat of a new game.

``single_agent.OpponentPool.sample`` runs this code on its numpy stream; the C++ vector env
(``native/src/vector_env.cpp`` ``seat_opponents``) follows it step for step on each game's
SplitMix64 policy stream, and tests/native/test_seat_draw.py replays that stream through
this code game by game. The rule:

1. ``cumulative(weights)``: the running sums of ``w / sum(weights)``, divided by the last
   one (so the last is exactly 1);
2. with ``same_table`` > 0, one uniform ``u < same_table`` decides a whole-table game (no
   draw at all when ``same_table`` is 0, so such leagues keep their streams);
3. a whole-table game draws one spec for every opponent seat, any other game one spec per
   opponent seat in seat order; a draw is ``pick(u, cdf)``, the first index whose
   cumulative weight exceeds ``u`` (never a spec of weight 0).

Where only one spec can be drawn the callers draw nothing: ``OpponentPool`` when it holds
one spec, the vector env when one spec has a positive weight (its weights change while
training, its specs do not). A uniform is ``(next64 >> 11) * 2**-53`` on both streams.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

MAX_WEIGHT = 1e300  # an opponent weight's bound: the sum of a league's weights stays finite


def cumulative(weights: Sequence[float]) -> np.ndarray:
    """Step 1: the cumulative distribution of ``weights`` (numpy's own float64 order,
    as ``Generator.choice`` computes it)."""
    w = np.asarray(weights, dtype=float)
    cdf = np.cumsum(w / w.sum())
    cdf /= cdf[-1]
    return cdf


def pick(u: float, cdf: np.ndarray) -> int:
    """Step 3's draw: the first index whose cumulative weight exceeds ``u`` in [0, 1)."""
    return int(cdf.searchsorted(u, side="right"))


def draw_seats(
    uniform: Callable[[int], np.ndarray], cdf: np.ndarray, same_table: float, seats: int
) -> list[int]:
    """Steps 2 and 3: the spec index of each of ``seats`` opponent seats; ``uniform(k)``
    gives the stream's next ``k`` uniforms in [0, 1)."""
    whole = same_table > 0 and float(uniform(1)[0]) < same_table
    picks = [pick(float(u), cdf) for u in uniform(1 if whole else seats)]
    return picks * seats if whole else picks
