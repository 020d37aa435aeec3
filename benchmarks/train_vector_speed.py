"""Trainer learner steps/s on the native vector env vs the Python envs, in one run (issue 15:
``make train`` must not regress on the native path).

For each case the trainer's own ``make_vec_env`` and ``make_model`` build the envs
(``env.vector`` forced to ``native`` or ``python``; the Python path as the config says:
``train.vec_env`` / ``train.workers``) and the MaskablePPO of the config; the timing is
``model.learn`` over whole rollouts, PPO's update included (what ``learner_steps_per_s``
of a training run measures, without evaluations). The two paths take turns, ``--rounds``
times, each timing ``--rollouts`` rollouts on a model already warmed by one; the ratio
is the median over rounds of native / python.

The native path runs only random opponents: a config whose pool holds others (self-play
snapshots, the heuristic league of configs/default.yaml) is measured with
``opponents.weights={random: 1.0}``.

Usage::

    python benchmarks/train_vector_speed.py [--config configs/vs_random.yaml]
        [--override env.features=[]] [--rollouts 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

RANDOM_ONLY = "opponents.weights={random: 1.0}"


def build(config_path: str, overrides: list[str], vector: str) -> tuple[Any, Any]:
    import torch

    from perikles_env.training.config import load_config
    from perikles_env.training.train import make_model, make_vec_env

    config = load_config(config_path, [*overrides, RANDOM_ONLY, f"env.vector={vector}"])
    torch.set_num_threads(config.train.torch_threads)
    env = make_vec_env(config, config.opponents.weights)
    model = make_model(config, env, None)
    return model, env.num_envs * config.ppo.n_steps


def steps_per_s(model: Any, rollout: int, rollouts: int) -> float:
    start = time.perf_counter()
    model.learn(rollout * rollouts, reset_num_timesteps=False)
    return rollout * rollouts / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/vs_random.yaml")
    p.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--rollouts", type=int, default=2, help="rollouts timed per case and round")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    cases = {}
    for vector in ("native", "python"):
        model, rollout = build(args.config, args.override, vector)
        model.learn(rollout)  # warm-up: the first rollout pays for imports and workers
        cases[vector] = (model, rollout)
    rates: dict[str, list[float]] = {v: [] for v in cases}
    for _ in range(args.rounds):
        for vector, (model, rollout) in cases.items():
            rates[vector].append(steps_per_s(model, rollout, args.rollouts))
    for model, _ in cases.values():
        model.env.close()
    print(f"config {args.config} {' '.join(args.override)} + {RANDOM_ONLY}")
    for vector, values in rates.items():
        shown = ", ".join(f"{v:.0f}" for v in values)
        print(f"  {vector:7s} learner steps/s: median {statistics.median(values):.0f} ({shown})")
    ratios = [n / py for n, py in zip(rates["native"], rates["python"], strict=True)]
    print(f"  native / python: median {statistics.median(ratios):.2f}x over {args.rounds} rounds")


if __name__ == "__main__":
    main()
