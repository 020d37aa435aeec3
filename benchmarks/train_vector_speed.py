"""Trainer learner steps/s on the native path vs the Python one, in one run (a check:
``make train`` must not regress on the native path).

``--compare vector`` (the default) times the C++ vector env against the Python envs;
``--compare backend`` times the Python envs on the C++ engine core against the same envs on
the Python engine (``env.backend``), with the config's own opponents: the league of
configs/default.yaml (heuristic players, snapshots of the learner) runs this way.

For each case the trainer's own ``make_vec_env`` and ``make_model`` build the envs
(``env.vector`` forced to ``native`` or ``python``; the Python path as the config says:
``train.vec_env`` / ``train.workers``) and the MaskablePPO of the config; the timing is
``model.learn`` over whole rollouts, PPO's update included (what ``learner_steps_per_s``
of a training run measures, without evaluations). The two paths take turns, ``--rounds``
times, each timing ``--rollouts`` rollouts on a model already warmed by one; the ratio
is the median over rounds of native / python.

Both paths play the config's own opponents (the league of configs/default.yaml: heuristic
players in C++ on the native path, in Python envs on the other); the untrained model is
saved as two snapshots first, so that ``self_latest`` and ``self_past`` opponents play
too, as they do after the first snapshot of a run.

Usage::

    python benchmarks/train_vector_speed.py [--config configs/default.yaml]
        [--override env.features=[]] [--rollouts 2] [--rounds 3]
    python benchmarks/train_vector_speed.py --compare backend --config configs/default.yaml
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

CASES = {  # --compare: {case: the overrides that make it}
    "vector": {
        "native": ["env.vector=native"],
        "python": ["env.vector=python"],
    },
    "backend": {
        "native": ["env.backend=native", "env.vector=python"],
        "python": ["env.backend=python", "env.vector=python"],
    },
}


def build(config_path: str, overrides: list[str], snapshots: Path | None) -> tuple[Any, Any]:
    """The trainer's envs and model for one case; with ``snapshots`` (a folder), the
    config's self-play pool holding two snapshots of the untrained model."""
    import torch

    from perikles_env.training.ppo.checkpoints import save_model
    from perikles_env.training.ppo.config import load_config
    from perikles_env.training.ppo.self_play_pool import SelfPlayPool
    from perikles_env.training.ppo.train import make_model, make_vec_env

    config = load_config(config_path, overrides)
    torch.set_num_threads(config.train.torch_threads)
    selfplay = SelfPlayPool(config.opponents)
    env = make_vec_env(config, selfplay.pool())
    model = make_model(config, env, None)
    if snapshots is not None:
        for i in range(2):
            path = snapshots / f"snapshot_{i}.zip"
            save_model(model, config, path)
            selfplay.add_snapshot(str(path))
        env.env_method("set_opponents", selfplay.pool())
    return model, env.num_envs * config.ppo.n_steps


def steps_per_s(model: Any, rollout: int, rollouts: int) -> float:
    start = time.perf_counter()
    model.learn(rollout * rollouts, reset_num_timesteps=False)
    return rollout * rollouts / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compare", choices=sorted(CASES), default="vector")
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--rollouts", type=int, default=2, help="rollouts timed per case and round")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    cases = {}
    folder = tempfile.TemporaryDirectory(prefix="train_speed_")
    for case, overrides in CASES[args.compare].items():
        snapshots = Path(folder.name, case)
        snapshots.mkdir()
        model, rollout = build(args.config, [*args.override, *overrides], snapshots)
        model.learn(rollout)  # warm-up: the first rollout pays for imports and workers
        cases[case] = (model, rollout)
    rates: dict[str, list[float]] = {v: [] for v in cases}
    for _ in range(args.rounds):
        for case, (model, rollout) in cases.items():
            rates[case].append(steps_per_s(model, rollout, args.rollouts))
    for model, _ in cases.values():
        model.env.close()
    folder.cleanup()
    print(f"config {args.config} {' '.join(args.override)}, --compare {args.compare}")
    for case, values in rates.items():
        shown = ", ".join(f"{v:.0f}" for v in values)
        print(f"  {case:7s} learner steps/s: median {statistics.median(values):.0f} ({shown})")
    ratios = [n / py for n, py in zip(rates["native"], rates["python"], strict=True)]
    print(f"  native / python: median {statistics.median(ratios):.2f}x over {args.rounds} rounds")


if __name__ == "__main__":
    main()
