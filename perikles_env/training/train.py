"""Train a Perikles agent with sb3-contrib ``MaskablePPO`` (docs/training.md).

    python -m training.train --config configs/default.yaml
    python -m training.train --config configs/smoke.yaml --override train.total_timesteps=4096
    python -m training.train --resume runs/default          # continue from the last checkpoint

The learner plays one seat of ``PeriklesSingleAgentEnv`` against an opponent pool
(baselines + frozen snapshots of itself, ``training/selfplay.py``). Everything goes into
``<out>/<name>/``: ``config.yaml``, TensorBoard logs (``tb/``), ``checkpoints/``,
``snapshots/``, the final ``model.zip`` (playable as agent ``ppo:<run>/model.zip``), the
final evaluations (``eval/``) and ``report.md`` / ``summary.json`` / ``learning_curve.png``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from perikles_env.errors import InvalidConfigError

from .config import TrainConfig, load_config

STATE_FILE = "state.json"


# ---- run folder -------------------------------------------------------------------------------


def new_run_dir(config: TrainConfig) -> Path:
    """``<out>/<name>``; ``-2``, ``-3``, ... appended if it exists (never overwrite a run)."""
    base = Path(config.out) / config.name
    path, k = base, 1
    while path.exists():
        k += 1
        path = base.with_name(f"{base.name}-{k}")
    path.mkdir(parents=True)
    return path


def latest_checkpoint(run_dir: Path) -> Path | None:
    ckpts = sorted((run_dir / "checkpoints").glob("ckpt_*.zip"))
    return ckpts[-1] if ckpts else None


# ---- environments and model -------------------------------------------------------------------


def env_kwargs(config: TrainConfig) -> dict[str, Any]:
    return {
        "num_players": config.env.num_players,
        "learner_seat": config.env.seat,
        "reward": config.reward,
        "illegal_action_penalty": config.env.illegal_action_penalty,
        "max_decisions": config.env.max_decisions,
        "teacher": config.teacher.spec,
        "features": tuple(config.env.features),
    }


def make_vec_env(config: TrainConfig, opponents: Any) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from perikles_env.single_agent import make_env_fn

    from .vec_env import BatchedSubprocVecEnv

    kwargs = {**env_kwargs(config), "opponents": opponents}
    fns = [make_env_fn(config.seed + i, **kwargs) for i in range(config.train.n_envs)]
    kind = config.train.vec_env
    if kind == "auto":
        parallel = config.train.n_envs > 1 and config.train.workers > 1
        kind = "batched" if parallel else "dummy"
    if kind == "batched":
        vec = BatchedSubprocVecEnv(fns, workers=config.train.workers)
    elif kind == "subproc":
        vec = SubprocVecEnv(fns)
    else:
        vec = DummyVecEnv(fns)
    return VecMonitor(vec)


def make_model(config: TrainConfig, env: Any, tb_dir: str | None) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    from .callbacks import BudgetLinearSchedule

    p = config.ppo
    lr: Any = p.learning_rate
    if p.lr_schedule == "linear":
        lr = BudgetLinearSchedule(p.learning_rate)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy_kwargs: dict[str, Any] = {
        "net_arch": list(p.net_arch[p.shared_layers :]),
        "activation_fn": activation,
    }
    if p.shared_layers:
        from .policy import SharedMlp

        policy_kwargs["features_extractor_class"] = SharedMlp
        policy_kwargs["features_extractor_kwargs"] = {
            "widths": list(p.net_arch[: p.shared_layers]),
            "activation": p.activation,
        }
    if p.obs_norm:
        from .policy import NormalizedObs, observation_statistics

        mean, std = observation_statistics(
            config.env.player_counts, seed=config.seed, features=config.env.features
        )
        policy_kwargs["features_extractor_class"] = NormalizedObs
        policy_kwargs["features_extractor_kwargs"] = {"mean": mean, "std": std}
    policy: Any = "MlpPolicy"
    if p.action_head == "factored":
        from .policy import FactoredMaskablePolicy

        policy = FactoredMaskablePolicy
    elif p.action_head == "battle":
        from .policy import BattleGainPolicy

        policy = BattleGainPolicy
    elif p.mask_input:
        from .policy import MaskInputPolicy

        policy = MaskInputPolicy
    return MaskablePPO(
        policy,
        env,
        learning_rate=lr,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
        policy_kwargs=policy_kwargs,
        tensorboard_log=tb_dir,
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


# ---- evaluation -------------------------------------------------------------------------------


def eval_row(
    config: TrainConfig, model_path: str, timesteps: int, save: Any = None
) -> dict[str, Any]:
    """Periodic evaluation: win rate against each baseline (all other seats that baseline);
    ``save``: a model to write to ``model_path`` first."""
    from .evaluate import evaluate

    if save is not None:
        Path(model_path).parent.mkdir(parents=True, exist_ok=True)
        save.save(model_path)
    spec = f"ppo:{model_path}"
    row: dict[str, Any] = {"timesteps": timesteps}
    for opponent in config.eval.opponents:
        games = config.eval.games_vs(opponent)
        if not games:
            continue
        result = evaluate(
            [spec, opponent],
            players=config.eval.players,
            games=games,
            seed=config.eval.seed,
            workers=config.eval.workers,
            plots=False,
        )
        row[f"win_rate_vs_{opponent}"] = round(result.win_rate(spec), 4)
    forget_agent(spec)
    Path(model_path).unlink(missing_ok=True)
    return row


def forget_agent(spec: str) -> None:
    """Drop a model from the evaluator's per-process agent cache (in-process evaluation)."""
    from .evaluation import runner

    getattr(runner, "_AGENTS", {}).pop(spec, None)


def final_evaluation(config: TrainConfig, model_path: Path, run_dir: Path) -> list[dict[str, Any]]:
    """``eval.final_games`` games per (opponent, player count), reports under ``eval/``."""
    from .evaluate import evaluate

    spec = f"ppo:{model_path}"
    rows = []
    for opponent in config.eval.opponents:
        games = config.eval.games_vs(opponent, final=True)
        for players in config.eval.final_players if games else []:
            name = f"vs_{opponent.replace(':', '_').replace('/', '_')}_{players}p"
            result = evaluate(
                [spec, opponent],
                players=players,
                games=games,
                seed=config.eval.seed + 1,
                workers=config.eval.workers,
                out=str(run_dir / "eval"),
                name=name,
                progress=config.train.progress_bar,
            )
            stats = result.matchups[0].agents[spec]
            rows.append(
                {
                    "opponent": opponent,
                    "players": players,
                    "games": result.matchups[0].games,
                    "win_rate": round(stats.win_rate, 4),
                    "win_ci": [round(x, 4) for x in stats.win_ci],
                    "mean_vp": round(stats.mean_vp, 2),
                    "mean_rank": round(stats.mean_rank, 3),
                    "illegal_actions": stats.illegal_actions,
                    "report": str(run_dir / "eval" / name / "report.md"),
                }
            )
    return rows


# ---- the run ----------------------------------------------------------------------------------


def train(
    config: TrainConfig, run_dir: Path, resume_from: Path | None = None, command: str = ""
) -> dict[str, Any]:
    """Train (or continue) a run in ``run_dir``; returns the summary written there."""
    import torch

    from .callbacks import (
        CheckpointCallback,
        Clock,
        EvalCallback,
        ProgressCallback,
        RunState,
        SelfPlayCallback,
        StatsCallback,
        TimeLimitCallback,
        UpdateThreadsCallback,
        save_checkpoint,
    )
    from .report import throughput, write_learning_curve, write_report
    from .selfplay import SelfPlayPool

    wall_start = time.perf_counter()
    torch.set_num_threads(config.train.torch_threads)
    config_yaml = yaml.safe_dump(config.to_dict(), sort_keys=False)
    (run_dir / "config.yaml").write_text(config_yaml)
    state = RunState()
    selfplay = SelfPlayPool(config.opponents)
    if resume_from is not None:
        state_path = resume_from.parent / STATE_FILE
        if state_path.exists():
            state = RunState.load(state_path)
            selfplay.restore({"snapshots": state.snapshots})
    env = make_vec_env(config, selfplay.pool())
    tb_dir = str(run_dir / "tb") if config.train.tensorboard else None
    if resume_from is not None:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(resume_from, env=env, device="cpu", tensorboard_log=tb_dir)
        state.timesteps = model.num_timesteps
    else:
        model = make_model(config, env, tb_dir)
        if config.pretrain.decisions > 0:
            from .pretrain import pretrain

            start = time.perf_counter()
            state.pretrain = pretrain(model, config, progress=config.train.progress_bar)
            if config.eval.every > 0:
                state.pretrain["eval"] = eval_row(
                    config, str(run_dir / "eval" / "pretrained.zip"), 0, save=model
                )
            state.pretrain["seconds_total"] = round(time.perf_counter() - start, 1)

    clock = Clock(state)
    kick = None
    if config.teacher.spec is not None:
        from .kickstart import KickstartCallback

        t = config.teacher
        kick = KickstartCallback(t.until, t.epochs, t.batch_size, t.learning_rate, config.seed)
    extra = (lambda: kick.last) if kick else None
    stats = StatsCallback(state, clock, progress=run_dir / "progress.json", extra=extra)
    callbacks: list[Any] = [stats] + ([kick] if kick else [])
    if config.opponents.snapshot_every > 0:
        every = config.opponents.snapshot_every
        callbacks.append(SelfPlayCallback(selfplay, run_dir / "snapshots", every, state))
    if config.eval.every > 0:
        callbacks.append(
            EvalCallback(
                config.eval.every,
                lambda path, steps: eval_row(config, path, steps),
                run_dir / "eval",
                state,
                clock,
            )
        )
    if config.train.checkpoint_every > 0:
        callbacks.append(
            CheckpointCallback(
                run_dir / "checkpoints",
                config.train.checkpoint_every,
                config.train.keep_checkpoints,
                state,
                clock,
            )
        )
    if config.train.max_minutes is not None:
        callbacks.append(TimeLimitCallback(config.train.max_minutes, clock, state))
    if config.train.progress_bar:
        callbacks.append(ProgressCallback(stats))
    if config.train.update_threads not in (None, config.train.torch_threads):
        callbacks.append(
            UpdateThreadsCallback(config.train.torch_threads, config.train.update_threads)
        )

    remaining = config.train.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(
            total_timesteps=config.train.total_timesteps,
            callback=callbacks,
            reset_num_timesteps=resume_from is None,
            tb_log_name="ppo",
            progress_bar=False,
        )
    clock.sync()
    state.timesteps = model.num_timesteps
    save_checkpoint(model, run_dir / "checkpoints", state, clock, config.train.keep_checkpoints)
    model_path = run_dir / "model.zip"
    model.save(model_path)
    env.close()

    start = time.perf_counter()
    final = final_evaluation(config, model_path, run_dir)
    final_seconds = time.perf_counter() - start
    curve = write_learning_curve(state, run_dir / "learning_curve.png")
    summary = {
        "name": run_dir.name,
        "run_dir": str(run_dir),
        "command": command,
        "model": str(model_path),
        "timesteps": state.timesteps,
        "episodes": state.episodes,
        "env_decisions": state.env_decisions,
        "train_minutes": round(state.train_seconds / 60, 2),
        "eval_minutes": round((state.eval_seconds + final_seconds) / 60, 2),
        "stopped_by_time_limit": state.stopped_by_time_limit,
        "wall_minutes_this_session": round((time.perf_counter() - wall_start) / 60, 2),
        "throughput": throughput(state),
        "pretrain": state.pretrain,
        "final_eval": final,
        "evals": state.evals,
        "rollouts": state.rollouts,
        "snapshots": state.snapshots,
        "learning_curve": "learning_curve.png" if curve else None,
        "config": config.to_dict(),
        "config_yaml": config_yaml,
    }
    write_report(run_dir, summary)
    return summary


def print_summary(summary: dict[str, Any]) -> None:
    tp = summary["throughput"]
    print(
        f"\nrun {summary['run_dir']}: {summary['timesteps']:,} learner steps in "
        f"{summary['train_minutes']:.1f} min ({tp['learner_steps_per_s']:.0f} learner steps/s, "
        f"{tp['env_steps_per_s']:.0f} env steps/s); evaluation {summary['eval_minutes']:.1f} min; "
        f"wall time {summary['wall_minutes_this_session']:.1f} min"
    )
    for e in summary["final_eval"]:
        low, high = e["win_ci"]
        print(
            f"  vs {e['players'] - 1} x {e['opponent']:<12s} "
            f"({e['players']}p, {e['games']} games): "
            f"win {100 * e['win_rate']:.1f} % [{100 * low:.1f}, {100 * high:.1f}], "
            f"mean VP {e['mean_vp']:.1f}"
        )
    print(f"  model: {summary['model']}  report: {summary['run_dir']}/report.md")


# ---- command line ------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="perikles-train", description="Train a Perikles agent with MaskablePPO self-play."
    )
    p.add_argument("--config", help="YAML config (configs/smoke.yaml, default.yaml, long.yaml)")
    p.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change one config value, e.g. ppo.learning_rate=1e-4 (repeatable)",
    )
    p.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue the run in RUN_DIR from its last checkpoint (its config.yaml is used; "
        "--override still applies, e.g. train.total_timesteps=...)",
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    overrides = [o for group in args.override for o in [group]]
    try:
        if args.resume:
            run_dir = Path(args.resume)
            resume_from = latest_checkpoint(run_dir)
            if resume_from is None:
                raise InvalidConfigError(f"no checkpoint to resume in {run_dir / 'checkpoints'}")
            config = load_config(run_dir / "config.yaml", overrides)
        elif args.config:
            config = load_config(args.config, overrides)
            resume_from = None
            run_dir = new_run_dir(config)
        else:
            raise InvalidConfigError("give --config FILE or --resume RUN_DIR")
    except InvalidConfigError as exc:
        print(f"perikles-train: error: {exc}", file=sys.stderr)
        return 2
    command = "python -m training.train " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    print(f"run folder: {run_dir}")
    summary = train(config, run_dir, resume_from=resume_from, command=command)
    print_summary(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
