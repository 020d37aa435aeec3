"""Vector env and native-backend AEC throughput vs PettingZoo's connect_four_v3, one run
(targets: vector env >= 30x, AEC env on the C++ core >= 3x connect_four_v3).

Every decision produces the acting seat's observation and legal mask:

* ``connect_four_v3`` and ``perikles AEC native``: the loop of ``env_speed.py`` (``env.last()``
  observes the acting agent, then a uniform choice among the mask's legal ids); the
  perikles AEC env runs on the C++ core (``backend="native"``: C++ engine, C++ observation
  encoder and mask);
* ``vector``: ``VectorEnv(num_envs, 4)``, every game's observation and mask of every
  decision written into the batch arrays; actions from ``random_actions()`` (a uniform legal
  action per game, drawn in C++) or, for ``numpy policy``, from the mask in numpy
  (``argmax(uniform * mask)``, what a Python policy over the arrays costs).

As in ``env_speed.py`` the cases take turns in short slices over several rounds, and the
ratio is the median over rounds of the slice ratios to connect_four_v3 of the same round.

Usage: ``python benchmarks/vector_speed.py [--seconds 10] [--rounds 10] [--num-envs 256]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from env_speed import Runner, print_ratios


class VectorRunner:
    """Steps a VectorEnv with one policy, resumable across time slices."""

    def __init__(self, num_envs: int, threads: int, numpy_policy: bool) -> None:
        from perikles_env.vector import VectorEnv

        self.env = VectorEnv(num_envs, 4, threads=threads)
        self.state = self.env.reset(seed=0)
        self.numpy_policy = numpy_policy
        self.rng = np.random.default_rng(0)
        self.noise = np.empty(self.state.action_mask.shape, dtype=np.float32)

    def actions(self) -> np.ndarray:
        if not self.numpy_policy:
            return self.env.random_actions()
        self.rng.random(out=self.noise, dtype=np.float32)
        self.noise *= self.state.action_mask
        return self.noise.argmax(axis=1)

    def run(self, seconds: float) -> float:
        decisions = 0
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            self.state = self.env.step(self.actions())
            decisions += self.env.num_envs
        return decisions / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="per case")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--num-envs", type=int, default=256)
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3

    from perikles_env import env as perikles
    from perikles_env.vector.encoder import native_encoder_available

    if not native_encoder_available():
        raise SystemExit("the C++ extensions are not built (make native)")
    n = args.num_envs
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("connect_four_v3", lambda: Runner(connect_four_v3.env)),
        (
            "perikles AEC native 4p",
            lambda: Runner(lambda: perikles(num_players=4, backend="native")),
        ),
        (f"vector {n}x4p, 1 thread", lambda: VectorRunner(n, 1, False)),
        (f"vector {n}x4p, 2 threads", lambda: VectorRunner(n, 2, False)),
        (f"vector {n}x4p, numpy policy", lambda: VectorRunner(n, 1, True)),
    ]
    runners = {name: make() for name, make in cases}
    rates: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.rounds):
        for name, runner in runners.items():
            rates[name].append(runner.run(args.seconds / args.rounds))
    print_ratios(rates, "case", 30)


if __name__ == "__main__":
    main()
