"""Trainer learner steps/s of two trainer set-ups in one run: the native path vs the Python
one (a check: ``make train`` must not regress on the native path), or the lean learner vs
sb3-contrib's MaskablePPO on the same native envs.

``--compare vector`` (the default) times the C++ vector env against the Python envs;
``--compare backend`` times the Python envs on the C++ engine core against the same envs on
the Python engine (``env.backend``), with the config's own opponents: the league of
configs/default.yaml (heuristic players, snapshots of the learner) runs this way;
``--compare learner`` times ``ppo.learner: lean`` (training/ppo/lean_ppo.py) with the
config's settings against ``ppo.learner: sb3`` with the settings it had before the lean
learner (``SB3_BASELINE``: four epochs, 64 envs of 64 steps, separate policy and value
networks of [128, 128]), on the native vector env.
Each case also prints the update's share of the time (``model.train``) and the cores the
process kept busy (CPU time / wall time).

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
    python benchmarks/train_vector_speed.py --compare learner
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SB3_BASELINE = [  # configs/default.yaml's PPO before the lean learner
    "ppo.n_epochs=4", "train.n_envs=64", "ppo.n_steps=64", "ppo.batch_size=1024",
    "ppo.trunk=[]", "ppo.net_arch=[128, 128]",  # two separate state networks
]
CASES = {  # --compare: {case: the overrides that make it}
    "vector": {
        "native": ["env.vector=native"],
        "python": ["env.vector=python"],
    },
    "backend": {
        "native": ["env.backend=native", "env.vector=python"],
        "python": ["env.backend=python", "env.vector=python"],
    },
    "learner": {
        "lean": ["env.vector=native", "ppo.learner=lean"],
        # the baseline the lean learner is measured against: sb3-contrib's MaskablePPO as
        # configs/default.yaml ran it before the lean learner (4 epochs, 64 envs x 64 steps,
        # separate policy and value networks)
        "sb3": ["env.vector=native", "ppo.learner=sb3", *SB3_BASELINE],
    },
}


def build(
    config_path: str, overrides: list[str], snapshots: Path | None
) -> tuple[Any, int, Any]:
    """The trainer's envs and model for one case, and the trainer's thread switch for the
    update (``train.update_threads``) as a callback; with ``snapshots`` (a folder), the
    config's self-play pool holding two snapshots of the untrained model."""
    import torch

    from perikles_env.training.ppo.callbacks import UpdateThreadsCallback
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
    threads = config.train.update_threads
    callback = None
    if threads not in (None, config.train.torch_threads):
        callback = UpdateThreadsCallback(config.train.torch_threads, threads)
    return model, env.num_envs * config.ppo.n_steps, callback


@dataclass
class Timing:
    """One case's rounds: learner steps/s, the update's share of the wall time, cores busy."""

    rates: list[float] = field(default_factory=list)
    update_shares: list[float] = field(default_factory=list)
    cores: list[float] = field(default_factory=list)


def timed_update(model: Any) -> list[float]:
    """Wrap ``model.train`` (PPO's update) so that its wall time adds up in the list."""
    spent = [0.0]
    train = model.train

    def timed() -> None:
        start = time.perf_counter()
        train()
        spent[0] += time.perf_counter() - start

    model.train = timed
    return spent


def time_learning(
    model: Any, rollout: int, rollouts: int, callback: Any, spent: list[float], into: Timing
) -> None:
    spent[0] = 0.0
    cpu, start = time.process_time(), time.perf_counter()
    model.learn(rollout * rollouts, callback=callback, reset_num_timesteps=False)
    wall = time.perf_counter() - start
    into.rates.append(rollout * rollouts / wall)
    into.update_shares.append(spent[0] / wall)
    into.cores.append((time.process_time() - cpu) / wall)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compare", choices=sorted(CASES), default="vector")
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--rollouts", type=int, default=2, help="rollouts timed per case and round")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    cases: dict[str, tuple[Any, int, Any, list[float]]] = {}
    folder = tempfile.TemporaryDirectory(prefix="train_speed_")
    for case, overrides in CASES[args.compare].items():
        snapshots = Path(folder.name, case)
        snapshots.mkdir()
        model, rollout, callback = build(args.config, [*args.override, *overrides], snapshots)
        model.learn(rollout, callback=callback)  # warm-up: imports and workers
        cases[case] = (model, rollout, callback, timed_update(model))
    timings = {case: Timing() for case in cases}
    for _ in range(args.rounds):
        for case, (model, rollout, callback, spent) in cases.items():
            time_learning(model, rollout, args.rollouts, callback, spent, timings[case])
    for model, *_ in cases.values():
        model.env.close()
    folder.cleanup()
    print(f"config {args.config} {' '.join(args.override)}, --compare {args.compare}")
    for case, t in timings.items():
        shown = ", ".join(f"{v:.0f}" for v in t.rates)
        print(
            f"  {case:7s} learner steps/s: median {statistics.median(t.rates):.0f} ({shown}); "
            f"update {100 * statistics.median(t.update_shares):.0f} % of the time, "
            f"{statistics.median(t.cores):.2f} cores busy"
        )
    first, second = timings.values()
    ratios = [a / b for a, b in zip(first.rates, second.rates, strict=True)]
    names = " / ".join(timings)
    print(f"  {names}: median {statistics.median(ratios):.2f}x over {args.rounds} rounds")


if __name__ == "__main__":
    main()
