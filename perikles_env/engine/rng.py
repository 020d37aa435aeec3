"""The game's one random number generator.

SplitMix64 in pure Python: its whole state is one integer, so cloning and JSON round trips
are exact and cheap (``random.Random`` carries 625 words of state). Not for cryptography.
"""

from __future__ import annotations

import os
from typing import Any

_MASK = (1 << 64) - 1


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed: int | None = 0) -> None:
        """``seed=None`` draws a fresh seed from the operating system."""
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        self.state = int(seed) & _MASK

    def next64(self) -> int:
        self.state = s = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def randrange(self, n: int) -> int:
        """Uniform integer in [0, n) without modulo bias."""
        if n <= 0:
            raise ValueError("randrange() needs n > 0")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            r = self.next64()
            if r < limit:
                return r % n

    def randint(self, low: int, high: int) -> int:
        return low + self.randrange(high - low + 1)

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randrange(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[Any]) -> Any:
        return items[self.randrange(len(items))]

    def copy(self) -> Rng:
        r = Rng.__new__(Rng)
        r.state = self.state
        return r

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    __hash__ = None  # type: ignore[assignment]
