"""The tie-breaking contract that the Python heuristic and the C++ one
(``native/analysis/analysis.hpp``) both follow, so that they choose the same action for the same
state and generator.

Per decision with more than one legal action, the caller's generator gives one 64-bit seed
(``draw_seed``); everything random in the choice then comes from ``SplitMix64(seed)``
(``engine/rng.py``): with ``noise > 0`` each score, in order, gets ``noise`` times a normal
draw (Box-Muller over two 53-bit uniforms), and ties within 1e-9 of the best are broken by
``randrange`` of the same stream. One draw per decision, whatever the scores, so the
generator advances the same way on either engine.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine.rng import Rng

TIE = 1e-9  # scores this close to the best are ties
_UNIT = 2.0**-53


def draw_seed(rng: np.random.Generator) -> int:
    """The decision's seed: one uniform 64-bit draw from the caller's generator."""
    return int(rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))


def tie_break(scores: list[float], seed: int, noise: float = 0.0) -> int:
    """Index of the best score after the seed's noise, ties drawn from the seed's stream."""
    stream = Rng(seed)
    if noise > 0.0:
        noisy = []
        for s in scores:
            u1 = (stream.next64() >> 11) * _UNIT
            u2 = (stream.next64() >> 11) * _UNIT
            z = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
            noisy.append(s + noise * z)
        scores = noisy
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s >= best - TIE]
    return top[0] if len(top) == 1 else top[stream.randrange(len(top))]
