"""AEC throughput: random masked play with ``observe()`` for the acting agent every decision,
for perikles_env (3/4/5 players) and PettingZoo's connect_four_v3 and texas_holdem_v4, in
one process run. Prints decisions/s and the ratio to connect_four_v3.

Usage: ``python benchmarks/env_speed.py [--seconds 5]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def decisions_per_second(make: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    env = make()
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    game = 0
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()  # observe() for the acting agent
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="per environment")
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    from perikles_env import env as perikles

    cases: list[tuple[str, Callable[[], Any]]] = [
        ("connect_four_v3", connect_four_v3.env),
        ("texas_holdem_v4", texas_holdem_v4.env),
    ] + [(f"perikles {n}p", lambda n=n: perikles(num_players=n)) for n in (3, 4, 5)]
    results = {name: decisions_per_second(make, args.seconds) for name, make in cases}
    base = results["connect_four_v3"]
    print(f"{'environment':18} {'decisions/s':>12} {'vs connect_four':>16}")
    for name, rate in results.items():
        print(f"{name:18} {rate:12,.0f} {rate / base:15.2f}x")


if __name__ == "__main__":
    main()
