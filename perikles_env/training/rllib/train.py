"""Multi-agent PPO on RLlib's new API stack, one shared policy for every learner seat.

    perikles-train-rllib --config configs/rllib_default.yaml
    perikles-train-rllib --config configs/rllib_default.yaml --address HEAD_IP:6379  # cluster

Local by default (a Ray instance of ``num_cpus`` CPUs in this process); with ``--address``
the same run goes to an existing Ray cluster (docs/ecosystem.md says how to start one).
Actions are masked by RLlib's ``ActionMaskingTorchRLModule``; opponents in non-learner
seats are played inside the env (``env.py``). The run folder ``<out>/<name>`` gets
``config.yaml``, ``metrics.jsonl`` (one line per iteration), ``checkpoints/iter_NNNNNN``
(RLlib's checkpoint plus the exported policy, each written to a temporary folder and
renamed), ``summary.json`` and, with ``eval_games``, the evaluator's report. An existing
run folder is never overwritten: ``--resume`` continues it from its last checkpoint (and
saves its config as ``config.resumed-<time>.yaml``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from perikles_env.jobs.budget import Budget
from perikles_env.jobs.evaluator import Evaluator
from perikles_env.jobs.run_folder import (
    COMPLETE,
    FAILED,
    INTERRUPTED,
    RUNNING,
    read_status,
    remove_temp_files,
    write_status,
)

from ...agents.rllib_policy import MODULE_ID, export_policy, model_config
from ...cli import CliParser, command_line
from ...errors import InvalidConfigError
from ...workers import bounded_workers
from .config import RLlibConfig, load_config
from .env import PeriklesMultiAgentEnv

CHECKPOINT_PREFIX = "iter_"


def shared_policy(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """RLlib's policy mapping: every learner seat plays the one shared module."""
    return MODULE_ID


def build_algorithm_config(cfg: RLlibConfig) -> Any:
    """The ``PPOConfig`` for ``cfg`` (new API stack: RLModule, Learner, EnvRunner)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config=model_config(cfg.hidden, cfg.activation),
    )
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(PeriklesMultiAgentEnv, env_config=cfg.env_config())
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.envs_per_env_runner,
        )
        .learners(num_learners=cfg.num_learners)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            entropy_coeff=cfg.entropy_coeff,
            clip_param=cfg.clip_param,
            vf_loss_coeff=cfg.vf_loss_coeff,
        )
        .debugging(seed=cfg.seed)
    )


@dataclass
class TrainResult:
    run_dir: Path
    checkpoint: Path
    iterations: int
    env_steps: int
    train_seconds: float
    eval_win_rate: float | None = None

    @property
    def learner_steps_per_s(self) -> float:
        return self.env_steps / self.train_seconds if self.train_seconds else 0.0


def _checkpoints(run_dir: Path) -> list[Path]:
    folder = run_dir / "checkpoints"
    found = folder.glob(CHECKPOINT_PREFIX + "*") if folder.is_dir() else []
    return sorted(p for p in found if p.is_dir() and p.name[len(CHECKPOINT_PREFIX) :].isdigit())


def save_checkpoint(algo: Any, run_dir: Path, iteration: int, cfg: RLlibConfig) -> Path:
    """RLlib's checkpoint plus the exported policy, in a temporary folder renamed into
    place, so an interrupted save leaves no half checkpoint."""
    final = run_dir / "checkpoints" / f"{CHECKPOINT_PREFIX}{iteration:06d}"
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    algo.save_to_path(str(tmp.resolve()))
    weights = algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
    export_policy(weights, tmp, cfg.hidden, cfg.activation)
    if final.exists():  # the same iteration saved before an interruption
        shutil.rmtree(final)
    os.replace(tmp, final)
    return final


def _metrics(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MODULE_ID, {})
    return {
        "iteration": result.get("training_iteration"),
        "seconds": round(seconds, 2),
        "env_steps": runners.get("num_env_steps_sampled_lifetime", 0),
        "episodes": runners.get("num_episodes_lifetime"),
        "return_mean": runners.get("agent_episode_returns_mean", {}),
        "episode_len_mean": runners.get("episode_len_mean"),
        "policy_loss": learner.get("policy_loss"),
        "vf_loss": learner.get("vf_loss"),
        "entropy": learner.get("entropy"),
    }


def _prepare_run_dir(cfg: RLlibConfig, resume: bool) -> Path:
    run_dir = Path(cfg.out) / cfg.name
    if run_dir.exists() and not resume:
        raise InvalidConfigError(
            f"run folder {run_dir} exists; pass --resume to continue it or choose a new name"
        )
    if resume and not _checkpoints(run_dir):
        raise InvalidConfigError(f"--resume: no checkpoint in {run_dir / 'checkpoints'}")
    record = read_status(run_dir)
    if record.get("status") == RUNNING and record.get("host") == socket.gethostname():
        raise InvalidConfigError(f"{run_dir} is still running (process {record.get('pid')})")
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume:  # what a killed process left half written
        remove_temp_files(run_dir)
        for tmp in (run_dir / "checkpoints").glob(CHECKPOINT_PREFIX + "*.tmp"):
            shutil.rmtree(tmp, ignore_errors=True)
    # a resumed run keeps its first config and records each later one beside it
    name = f"config.resumed-{time.strftime('%Y%m%d-%H%M%S')}.yaml" if resume else "config.yaml"
    (run_dir / name).write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return run_dir


def _init_ray(cfg: RLlibConfig, address: str | None) -> None:
    import ray

    if ray.is_initialized():
        return
    if address:
        ray.init(address=address)
    else:
        # "local": a new instance even if this machine runs a cluster (only --address joins)
        ray.init(
            address="local",
            num_cpus=bounded_workers(cfg.num_cpus, "num_cpus"),  # Ray's local processes
            include_dashboard=False,
            configure_logging=False,
        )


def train(
    cfg: RLlibConfig,
    address: str | None = None,
    resume: bool = False,
    log: Callable[[str], None] = print,
    command: str = "",
    *,
    evaluator: Evaluator,
) -> TrainResult:
    """Train until the budget is spent, checkpoint, and (with ``eval_games``) evaluate the
    final policy with ``evaluator`` against ``eval_opponents``. ``status.json``
    says running, interrupted, failed or complete."""
    run_dir = _prepare_run_dir(cfg, resume)
    write_status(run_dir, RUNNING, command=command)
    try:
        out = _train(cfg, run_dir, address, resume, log, evaluator)
    except KeyboardInterrupt as exc:
        write_status(run_dir, INTERRUPTED, command=command, signal=str(exc) or "SIGINT")
        raise
    except Exception as exc:
        write_status(run_dir, FAILED, command=command, error=f"{type(exc).__name__}: {exc}")
        raise
    write_status(run_dir, COMPLETE, command=command, iterations=out.iterations)
    return out


def _train(
    cfg: RLlibConfig, run_dir: Path, address: str | None, resume: bool,
    log: Callable[[str], None], evaluator: Evaluator,
) -> TrainResult:
    _init_ray(cfg, address)
    algo = build_algorithm_config(cfg).build_algo()
    try:
        iteration, env_steps, seconds = 0, 0, 0.0
        if resume:
            last = _checkpoints(run_dir)[-1]
            algo.restore_from_path(str(last.resolve()))
            iteration = int(last.name[len(CHECKPOINT_PREFIX) :])
            log(f"resumed from {last}")
        checkpoint = None
        budget = Budget(cfg.max_minutes, cfg.env_steps, cfg.iterations, unit="learner steps")
        start = time.perf_counter()
        with open(run_dir / "metrics.jsonl", "a") as metrics_file:
            while True:
                result = algo.train()
                iteration += 1
                seconds = time.perf_counter() - start
                row = _metrics(result, seconds)
                env_steps = int(row["env_steps"])
                metrics_file.write(json.dumps(row) + "\n")
                metrics_file.flush()
                log(f"iter {iteration}: {budget.line(seconds, env_steps, iteration)}")
                done = (
                    (cfg.iterations is not None and iteration >= cfg.iterations)
                    or (cfg.env_steps is not None and env_steps >= cfg.env_steps)
                    or (cfg.max_minutes is not None and seconds >= 60 * cfg.max_minutes)
                )
                if done or iteration % cfg.checkpoint_every == 0:
                    checkpoint = save_checkpoint(algo, run_dir, iteration, cfg)
                if done:
                    break
    finally:
        algo.stop()
    assert checkpoint is not None
    out = TrainResult(run_dir, checkpoint, iteration, env_steps, seconds)
    _write_summary(out)  # before the evaluation, so a failed evaluation loses nothing
    log(f"checkpoint: {checkpoint}")
    if cfg.eval_games:
        out.eval_win_rate = _evaluate(cfg, checkpoint, run_dir, log, evaluator)
        _write_summary(out)
    return out


def _write_summary(result: TrainResult) -> None:
    summary = {**result.__dict__, "learner_steps_per_s": round(result.learner_steps_per_s, 1)}
    text = json.dumps(summary, default=str, indent=2) + "\n"
    tmp = result.run_dir / "summary.json.tmp"
    tmp.write_text(text)
    os.replace(tmp, result.run_dir / "summary.json")


def _evaluate(
    cfg: RLlibConfig, checkpoint: Path, run_dir: Path, log: Callable, evaluator: Evaluator
) -> float:
    spec = f"rllib:{checkpoint}"
    result = evaluator.evaluate(
        [spec, *cfg.eval_opponents],
        players=cfg.num_players,
        games=cfg.eval_games,
        seed=cfg.seed,
        out=str(run_dir),
        name="eval",
        plots=False,
    )
    log(evaluator.summary(result))
    return result.win_rate(spec)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = CliParser(
        prog="perikles-train-rllib",
        description="Multi-agent PPO with RLlib (new API stack), locally or on a Ray cluster.",
    )
    p.add_argument("--config", required=True, help="YAML config (configs/rllib_*.yaml)")
    p.add_argument("--address", help="Ray cluster address (e.g. auto or HOST:6379)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--name", help="run folder name (overrides the config's name)")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None, *, evaluator: Evaluator) -> int:
    """The command line; ``perikles_env.launch.rllib`` starts it with the evaluator."""
    args = parse_args(argv)
    try:
        cfg = load_config(args.config, {"name": args.name} if args.name else None)
        command = command_line("perikles-train-rllib", argv)
        result = train(
            cfg, address=args.address, resume=args.resume, command=command, evaluator=evaluator
        )
    except InvalidConfigError as exc:
        print(f"perikles-train-rllib: error: {exc}", file=sys.stderr)
        return 2
    print(
        f"{result.iterations} iterations, {result.env_steps} learner steps in "
        f"{result.train_seconds:.0f} s ({result.learner_steps_per_s:.0f}/s)"
    )
    return 0

