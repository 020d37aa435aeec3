"""Learner decisions/s against three heuristic players: the C++ vector env with its native
league vs the Python single-agent env (``PeriklesSingleAgentEnv``), and PettingZoo's
connect_four_v3 as the common yardstick, in one run (target: vector >= 30x the Python env).

Every case plays 4-player games where the learner (a uniform random legal action) faces
three default heuristic players and counts the learner's decisions:

* ``single-agent python``: ``PeriklesSingleAgentEnv(opponents="heuristic",
  backend="python")``, the Python reference (the Python heuristic on the Python engine);
* ``single-agent native``: the same env on the C++ core (its heuristic players then decide
  in C++ too, one call per decision through ``HeuristicAgent.act_state``);
* ``vector NxT``: ``VectorEnv(N, 4, opponents="heuristic")`` on T threads, the
  opponents moving inside ``step``; ``+features`` adds the ``battle`` and ``actions``
  blocks to every observation (what ``make train`` reads).

The cases take turns in short slices over several rounds (as ``vector_speed.py``); the
ratios are medians over rounds of the slice ratios.

Usage: ``python benchmarks/league_speed.py [--seconds 20] [--rounds 5] [--num-envs 64]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from env_speed import Runner, print_ratios


class SingleAgentRunner:
    """The learner's random legal moves in one single-agent env, resumable."""

    def __init__(self, backend: str) -> None:
        from perikles_env.single_agent import PeriklesSingleAgentEnv

        self.env = PeriklesSingleAgentEnv(4, opponents="heuristic", backend=backend)
        self.rng = np.random.default_rng(0)
        self.games = 0
        self.env.reset(seed=0)

    def run(self, seconds: float) -> float:
        decisions, start = 0, time.perf_counter()
        while time.perf_counter() < start + seconds:
            legal = np.flatnonzero(self.env.action_masks())
            _, _, terminated, truncated, _ = self.env.step(int(self.rng.choice(legal)))
            decisions += 1
            if terminated or truncated:
                self.games += 1
                self.env.reset(seed=self.games)
        return decisions / (time.perf_counter() - start)


class LeagueRunner:
    """A VectorEnv against three heuristic players; learner actions drawn in C++."""

    def __init__(self, num_envs: int, threads: int, features: tuple[str, ...]) -> None:
        from perikles_env.vector import VectorEnv

        self.env = VectorEnv(
            num_envs,
            4,
            opponents="heuristic",
            learner_seat=None,
            threads=threads,
            features=features,
        )
        self.env.reset(seed=0)

    def run(self, seconds: float) -> float:
        decisions, start = 0, time.perf_counter()
        while time.perf_counter() < start + seconds:
            self.env.step(self.env.random_actions())
            decisions += self.env.num_envs
        return decisions / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0, help="per case")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--num-envs", type=int, default=64)
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3

    n = args.num_envs
    both = ("battle", "actions")
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("connect_four_v3", lambda: Runner(connect_four_v3.env)),
        ("single-agent python", lambda: SingleAgentRunner("python")),
        ("single-agent native", lambda: SingleAgentRunner("native")),
        (f"vector {n}x1 thread", lambda: LeagueRunner(n, 1, ())),
        (f"vector {n}x2 threads", lambda: LeagueRunner(n, 2, ())),
        (f"vector {n}x2 threads +features", lambda: LeagueRunner(n, 2, both)),
    ]
    runners = {name: make() for name, make in cases}
    rates: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.rounds):
        for name, runner in runners.items():
            rates[name].append(runner.run(args.seconds / args.rounds))
    print_ratios(rates, "learner decisions vs 3 heuristic players", 42)
    print()
    print_ratios(rates, "learner decisions vs 3 heuristic players", 42, "single-agent python")


if __name__ == "__main__":
    main()
