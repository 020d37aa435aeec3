"""AEC throughput: random masked play with ``observe()`` for the acting agent every decision,
for perikles_env (3/4/5 players) and PettingZoo's connect_four_v3 and texas_holdem_v4, in
one process run. Prints decisions/s and the ratio to connect_four_v3 (the target:
perikles 4p >= 1.0x).

Every environment is driven by the same loop (``env.last()`` calls ``observe()`` for the
acting agent, then a uniform choice among the mask's legal ids). The environments take turns
in short slices over several rounds, so a machine whose load changes during the run (shared
runners) affects them alike: the table shows each environment's median slice and the median
over rounds of its ratio to connect_four_v3's slice of the same round.

Usage: ``python benchmarks/env_speed.py [--seconds 10] [--rounds 10]`` (seconds per
environment, spread over the rounds).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


class Runner:
    """Plays random masked games of one environment, resumable across time slices."""

    def __init__(self, make: Callable[[], Any], seed: int = 0) -> None:
        self.env = make()
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0
        self._start_game()

    def _start_game(self) -> None:
        self.env.reset(seed=self.seed + self.games)
        self.games += 1
        self.it = iter(self.env.agent_iter())

    def run(self, seconds: float) -> float:
        """Play for about ``seconds``; decisions per second in this slice."""
        env, rng = self.env, self.rng
        decisions = 0
        start = time.perf_counter()
        end = start + seconds
        while True:
            for _agent in self.it:
                obs, _, term, trunc, _ = env.last()  # observe() for the acting agent
                if term or trunc:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                decisions += 1
                if decisions % 64 == 0 and time.perf_counter() >= end:
                    return decisions / (time.perf_counter() - start)
            self._start_game()


def measure(
    cases: list[tuple[str, Callable[[], Any]]], seconds: float, rounds: int
) -> dict[str, list[float]]:
    """Decisions per second of every slice, per environment (same order of rounds)."""
    runners = {name: Runner(make) for name, make in cases}
    rates: dict[str, list[float]] = {name: [] for name, _ in cases}
    for _ in range(rounds):
        for name, runner in runners.items():
            rates[name].append(runner.run(seconds / rounds))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="per environment")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--backend",
        default="python",
        choices=("python", "native", "auto"),
        help="engine under the perikles env (benchmarks/vector_speed.py measures native)",
    )
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    from perikles_env import env as perikles

    cases: list[tuple[str, Callable[[], Any]]] = [
        ("connect_four_v3", connect_four_v3.env),
        ("texas_holdem_v4", texas_holdem_v4.env),
    ] + [
        (f"perikles {n}p", lambda n=n: perikles(num_players=n, backend=args.backend))
        for n in (3, 4, 5)
    ]
    print_ratios(measure(cases, args.seconds, args.rounds), "environment", 18)


def print_ratios(
    rates: dict[str, list[float]], label: str, width: int, base_case: str = "connect_four_v3"
) -> None:
    """One row per case: median decisions/s and the median ratio to ``base_case`` over
    the interleaved slices (each slice's ratio uses the same moment's base rate)."""
    base = rates[base_case]
    print(f"{label:{width}} {'decisions/s':>12} {'vs ' + base_case:>24}")
    for name, slices in rates.items():
        ratio = statistics.median(r / b for r, b in zip(slices, base, strict=True))
        print(f"{name:{width}} {statistics.median(slices):12,.0f} {ratio:23.2f}x")


if __name__ == "__main__":
    main()
