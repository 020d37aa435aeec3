"""Where a training run's time goes: the trainer in one process (``train.vec_env: dummy``,
so the opponents, the feature blocks, the engine and the PPO update all run under one
profiler), cProfile's own time summed by area.

    python benchmarks/train_profile.py                      # configs/default.yaml
    python benchmarks/train_profile.py --config long --steps 8192
    python benchmarks/train_profile.py --override ppo.learner=lean   # the lean learner

Imitation, evaluation and checkpoints are switched off: this profiles the PPO phase only.
Each part is the cumulative time of one entry point (the env's step, the heuristic's
decision, PPO's update, ...), as a share of the trainer's ``learn``. The shares, not the
absolute times, are the result: the profiler slows Python code more than numpy / torch /
C++ kernels, so it overstates the Python parts somewhat.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
from collections.abc import Sequence
from pathlib import Path

from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.jobs.config_files import find_config
from perikles_env.training.ppo.config import load_config
from perikles_env.training.ppo.train import train

# Entry points whose cumulative time is the cost of one part of training: (part, file path
# ending, function name). The parts under "env steps" are nested in it.
# Python envs (env.vector: python) and the native vector env have their own entries; the
# rows of the path not taken read 0.
PARTS = (
    ("rollout collection (SB3)", "ppo_mask/ppo_mask.py", "collect_rollouts"),
    ("rollout collection (lean learner)", "training/ppo/lean_ppo.py", "collect_rollouts"),
    ("  policy forward passes (the learner)", "agents/ppo_policy.py", "forward"),
    ("  env steps, Python envs (opponents, engine, observation)", "single_agent/env.py", "step"),
    ("    heuristic opponents (all personalities)", "agents/heuristic/agent.py", "act_state"),
    ("    self-play snapshot opponents (network)", "agents/ppo.py", "act_state"),
    ("    learner observation (base + feature blocks)", "single_agent/env.py", "_observe"),
    ("  env steps, native vector env (all of it)", "training/ppo/native_vec_env.py", "step_wait"),
    ("    C++ steps (engine, native opponents, observation, features)", "vector/env.py", "step"),
    ("    self-play snapshot opponents (batched network)", "agents/ppo.py", "act_batch"),
    ("PPO update (MaskablePPO.train)", "ppo_mask/ppo_mask.py", "train"),
    ("PPO update (lean learner)", "training/ppo/lean_ppo.py", "train"),
)


def cumulative(stats: dict, path_end: str, name: str) -> float:
    return sum(
        cum
        for (filename, _, function), (_, _, _, cum, _) in stats.items()
        if function == name and filename.endswith(path_end)
    )


def profile(config_name: str, steps: int, extra: Sequence[str] = ()) -> None:
    overrides = [
        "pretrain.decisions=0", "eval.every=0", "eval.final_games=0", "eval.agreement_games=0",
        f"train.total_timesteps={steps}", "train.vec_env=dummy", "train.progress_bar=false",
        "train.tensorboard=false", f"train.checkpoint_every={10 * steps}", "name=profile",
        # snapshots from the first quarter on, as in a real run (they exist after its first
        # snapshot_every steps, most of it), so the self-play opponents are profiled too
        f"opponents.snapshot_every={max(1, steps // 4)}",
        *extra,
    ]
    config = load_config(find_config(config_name), overrides)
    with tempfile.TemporaryDirectory() as tmp:
        profiler = cProfile.Profile()
        profiler.enable()
        summary = train(config, Path(tmp) / "profile", evaluator=TOURNAMENT)
        profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = cumulative(stats, "training/ppo/train.py", "learn")
    print(
        f"\n{config_name}: {summary['timesteps']:,} learner steps, "
        f"{summary['throughput']['learner_steps_per_s']:.0f} learner steps/s under the profiler"
    )
    print(f"| part of `learn` ({total:.0f} s under the profiler) | share |\n|---|---:|")
    for part, path_end, name in PARTS:
        print(f"| {part} | {100 * cumulative(stats, path_end, name) / total:.1f} % |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default", help="shipped config name or path")
    parser.add_argument("--steps", type=int, default=8192, help="learner steps to profile")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    profile(args.config, args.steps, args.override)


if __name__ == "__main__":
    main()
