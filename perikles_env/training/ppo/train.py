"""Train a Perikles agent with sb3-contrib ``MaskablePPO`` (docs/training.md).

    perikles-train --config default
    perikles-train --config smoke --override train.total_timesteps=4096
    perikles-train --resume runs/default          # continue from the last checkpoint

The learner plays one seat of ``PeriklesSingleAgentEnv`` against an opponent pool
(baselines + frozen snapshots of itself, ``self_play_pool.py``). Everything goes into
``<out>/<name>/`` (a new folder per run): ``config.yaml``, ``status.json``, TensorBoard
logs (``tb/``), ``checkpoints/``, ``snapshots/``, the final ``model.zip`` (playable as
agent ``ppo:<run>/model.zip``), the final evaluations (``eval/``) and ``report.md`` /
``summary.json`` / ``learning_curve.png``. Model files hold no pickles
(``agents/ppo_file.py``); SIGINT / SIGTERM stop at the next step with a final checkpoint
(docs/safety.md).
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from perikles_env.cli import CliParser, command_line
from perikles_env.errors import InvalidConfigError
from perikles_env.files import write_text
from perikles_env.jobs.budget import Budget
from perikles_env.jobs.evaluator import Evaluator
from perikles_env.jobs.run_folder import (
    COMPLETE,
    FAILED,
    INTERRUPTED,
    RUNNING,
    new_run_dir,
    read_status,
    remove_temp_files,
    resume_command,
    write_status,
)
from perikles_env.jobs.signals import StopRequest, exit_code

from .config import ACTION_HEADS, TrainConfig, load_config

# ---- environments and model -------------------------------------------------------------------


def env_kwargs(config: TrainConfig) -> dict[str, Any]:
    return {
        "num_players": config.env.num_players,
        "learner_seat": config.env.seat,
        "reward": config.reward_config(),
        "illegal_action_penalty": config.env.illegal_action_penalty,
        "max_decisions": config.env.max_decisions,
        "features": tuple(config.env.features),
        "backend": config.env.backend,
    }


def make_vec_env(config: TrainConfig, opponents: Any) -> Any:
    """The training envs: the C++ vector env or Python envs, as ``env.vector`` chooses
    (``native_vec_env.choose_vector``), in a ``VecMonitor``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from perikles_env.single_agent import make_env_fn

    from .native_vec_env import choose_vector, make_native_vec_env
    from .vec_env import BatchedSubprocVecEnv

    e = config.env
    path, why = choose_vector(e.vector, config.opponents.weights, e.backend)
    print(f"training envs: {path} ({why})")
    if path == "native":
        native = make_native_vec_env(
            config.train.n_envs,
            config.train.workers,
            seed=config.seed,
            num_players=e.num_players,
            learner_seat=e.seat,
            reward=config.reward_config(),
            max_decisions=e.max_decisions,
            features=e.features,
            opponents=opponents,
        )
        return VecMonitor(native)
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
    """A new MaskablePPO with the config's policy (``ppo.action_head``) and settings."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from perikles_env.agents.ppo_policy import ACTIVATIONS, POLICIES

    from .callbacks import BudgetLinearSchedule

    p = config.ppo
    lr: Any = p.learning_rate
    if p.lr_schedule == "linear":
        lr = BudgetLinearSchedule(p.learning_rate)
    algorithm = MaskablePPO
    if p.learner == "lean":
        from .lean_ppo import LeanMaskablePPO as algorithm
    model = algorithm(
        POLICIES[ACTION_HEADS[p.action_head]],
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
        policy_kwargs={
            "net_arch": list(p.net_arch),
            "activation_fn": ACTIVATIONS[p.activation],
            **({"trunk": list(p.trunk)} if p.trunk else {}),
        },
        tensorboard_log=tb_dir,
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    if tb_dir is None:  # SB3 would otherwise make an empty /tmp/SB3-<date> folder per run
        model.set_logger(Logger(folder=None, output_formats=[]))
    return model


# ---- evaluation -------------------------------------------------------------------------------


def eval_row(
    config: TrainConfig, model_path: str, timesteps: int, evaluator: Evaluator, save: Any = None
) -> dict[str, Any]:
    """Periodic evaluation: win rate against each baseline (all other seats that baseline);
    ``save``: a model to write to ``model_path`` first."""
    from .checkpoints import save_model

    if save is not None:
        save_model(save, config, Path(model_path))
    spec = f"ppo:{model_path}"
    row: dict[str, Any] = {"timesteps": timesteps}
    for opponent in config.eval.opponents:
        games = config.eval.games_vs(opponent)
        if not games:
            continue
        result = evaluator.evaluate(
            [spec, opponent],
            players=config.eval.players,
            games=games,
            seed=config.eval.seed,
            workers=config.eval.workers,
            plots=False,
        )
        row[f"win_rate_vs_{opponent}"] = round(result.win_rate(spec), 4)
        if result.truncated_games:
            row[f"truncated_vs_{opponent}"] = result.truncated_games
    evaluator.forget_agent(spec)
    Path(model_path).unlink(missing_ok=True)
    return row


def final_evaluation(
    config: TrainConfig, model_path: Path, run_dir: Path, evaluator: Evaluator
) -> list[dict[str, Any]]:
    """``eval.final_games`` games per (opponent, player count), reports under ``eval/``
    (a new folder each time: a resumed run never overwrites an earlier evaluation). With
    ``eval.baseline`` that agent plays the same seeds in the model's place (its numbers
    under ``baseline`` in the row): what training added, measured on the same games."""
    spec = f"ppo:{model_path}"
    rows = []
    for opponent in config.eval.opponents:
        games = config.eval.games_vs(opponent, final=True)
        for players in config.eval.final_players if games else []:
            name = f"vs_{opponent.replace(':', '_').replace('/', '_')}_{players}p"
            lineup = _FinalLineup(opponent, players, games, name)
            row = {"opponent": opponent, "players": players,
                   **lineup.play(spec, config, run_dir, evaluator)}
            if config.eval.baseline:
                baseline = config.eval.baseline
                row["baseline"] = {
                    "agent": baseline,
                    **lineup.play(baseline, config, run_dir, evaluator, "baseline_"),
                }
            rows.append(row)
    return rows


@dataclass(frozen=True)
class _FinalLineup:
    """One line of the final evaluation: ``agent`` against n-1 ``opponent`` players."""

    opponent: str
    players: int
    games: int
    name: str

    def play(
        self, agent: str, config: TrainConfig, run_dir: Path, evaluator: Evaluator,
        prefix: str = "",
    ) -> dict[str, Any]:
        result = evaluator.evaluate(
            [agent, self.opponent],
            players=self.players,
            games=self.games,
            seed=config.eval.seed + 1,
            workers=config.eval.workers,
            out=str(run_dir / "eval"),
            name=prefix + self.name,
            progress=config.train.progress_bar,
        )
        stats = result.matchups[0].agents[agent]
        assert result.run_dir is not None
        return {
            "games": result.matchups[0].games,
            "win_rate": round(stats.win_rate, 4),
            "win_ci": [round(x, 4) for x in stats.win_ci],
            "mean_vp": round(stats.mean_vp, 2),
            "mean_rank": round(stats.mean_rank, 3),
            "illegal_actions": stats.illegal_actions,
            "truncated_games": result.truncated_games,
            "report": str(result.run_dir / "report.md"),
        }


# ---- the run ----------------------------------------------------------------------------------


@dataclass
class Run:
    """One training session in ``run_dir`` (a new run, or a resumed one)."""

    config: TrainConfig
    run_dir: Path
    command: str
    state: Any  # callbacks.RunState
    clock: Any  # callbacks.Clock
    selfplay: Any  # selfplay.SelfPlayPool
    stop: StopRequest
    evaluator: Evaluator
    env: Any = None
    model: Any = None
    wall_start: float = 0.0

    def checkpoint(self) -> Path:
        from .checkpoints import save_checkpoint

        return save_checkpoint(self.model, self.config, self.run_dir, self.state, self.clock)

    def save_model(self, model: Any, path: Path) -> Path:
        from .checkpoints import save_model

        return save_model(model, self.config, path)


def start_run(
    config: TrainConfig, run_dir: Path, resume: bool, command: str, stop: Any,
    evaluator: Evaluator,
) -> Run:
    """Environments and model, new (with pretraining) or from the latest intact checkpoint."""
    import torch

    from .callbacks import Clock, RunState
    from .checkpoints import latest_checkpoint, restore
    from .self_play_pool import SelfPlayPool

    wall_start = time.perf_counter()
    torch.set_num_threads(config.train.torch_threads)
    checkpoint = latest_checkpoint(run_dir)[1] if resume else None
    if resume:
        for path in remove_temp_files(run_dir):  # left by a killed process's atomic writes
            print(f"removed {path} (an unfinished write of the interrupted run)")
    write_text(run_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    write_status(run_dir, RUNNING, command=command)
    state = RunState.from_dict(checkpoint.extra["run_state"]) if checkpoint else RunState()
    selfplay = SelfPlayPool(config.opponents)
    selfplay.restore({"snapshots": state.snapshots})
    selfplay.advance(state.timesteps)  # a resumed run deals its stage's league at once
    run = Run(
        config, run_dir, command, state, None, selfplay, stop, evaluator, wall_start=wall_start
    )
    run.env = make_vec_env(config, selfplay.pool())
    tb_dir = str(run_dir / "tb") if config.train.tensorboard else None
    run.model = make_model(config, run.env, tb_dir)
    if checkpoint is not None:
        restore(run.model, checkpoint)
    else:
        start = None
        if config.ppo.init_net is not None:
            from perikles_env.training.search_warmstart import ppo_from_net

            start = ppo_from_net(run.model, config.ppo.init_net_path(), config.env.features)
        if config.pretrain.decisions > 0:  # imitation, or the critic alone after init_net
            pretrain_model(run)
        if start is not None:
            run.state.pretrain = {**run.state.pretrain, "init_net": start}
    run.clock = Clock(state)  # training time starts here (pretraining is reported apart)
    if state.pretrain and checkpoint is None:  # imitation or init_net
        run.checkpoint()  # so that a resumed run never pretrains again
    return run


def pretrain_model(run: Run) -> None:
    from .pretrain import pretrain

    config = run.config
    start = time.perf_counter()
    run.state.pretrain = pretrain(run.model, config, progress=config.train.progress_bar)
    if config.eval.every > 0:
        path = str(run.run_dir / "eval" / "pretrained.zip")
        run.state.pretrain["eval"] = eval_row(config, path, 0, run.evaluator, save=run.model)
    if config.pretrain.agreement_games > 0:
        from .pretrain import agreement_of

        path = run.save_model(run.model, run.run_dir / "eval" / "pretrained.zip")
        run.state.pretrain["agreement"] = agreement_of(path, config.pretrain.agreement_games)
    run.state.pretrain["seconds_total"] = round(time.perf_counter() - start, 1)


def make_callbacks(run: Run) -> tuple[list[Any], Any]:
    """The SB3 callbacks of ``run`` and its ``StopCallback``."""
    from .callbacks import (
        CheckpointCallback,
        CurriculumCallback,
        EvalCallback,
        ProgressCallback,
        SelfPlayCallback,
        StatsCallback,
        StopCallback,
        TimeLimitCallback,
        UpdateThreadsCallback,
    )

    config, state, clock, folder = run.config, run.state, run.clock, run.run_dir
    stopper = StopCallback(run.stop)
    stats = StatsCallback(state, clock, progress=folder / "progress.json")
    callbacks: list[Any] = [stats, stopper]
    if config.opponents.curriculum:
        callbacks.append(CurriculumCallback(run.selfplay))
    if config.opponents.snapshot_every > 0:
        every = config.opponents.snapshot_every
        callbacks.append(
            SelfPlayCallback(run.selfplay, folder / "snapshots", every, state, run.save_model)
        )
    if config.eval.every > 0:
        run_eval = lambda path, steps: eval_row(config, path, steps, run.evaluator)  # noqa: E731
        callbacks.append(
            EvalCallback(config.eval.every, run_eval, folder / "eval", state, clock, run.save_model)
        )
    if config.train.checkpoint_every > 0:
        callbacks.append(CheckpointCallback(config.train.checkpoint_every, run.checkpoint))
    if config.train.max_minutes is not None:
        callbacks.append(TimeLimitCallback(config.train.max_minutes, clock, state))
    if config.train.progress_bar:
        budget = Budget(minutes=config.train.max_minutes, steps=config.train.total_timesteps)
        callbacks.append(ProgressCallback(stats, budget, lambda: clock.training))
    if config.train.update_threads not in (None, config.train.torch_threads):
        callbacks.append(
            UpdateThreadsCallback(config.train.torch_threads, config.train.update_threads)
        )
    return callbacks, stopper


def learn(run: Run) -> None:
    """PPO up to exactly ``train.total_timesteps`` learner steps (whole rollouts), or
    until the time limit or a signal stops it; then a checkpoint."""
    model, target = run.model, run.config.train.total_timesteps
    callbacks, stopper = make_callbacks(run)
    if model.num_timesteps < target:
        run.stop.learning = True
        try:  # SB3 adds the current count to total_timesteps when not resetting it
            model.learn(
                total_timesteps=target - model.num_timesteps,
                callback=callbacks,
                reset_num_timesteps=False,
                tb_log_name="ppo",
                progress_bar=False,
            )
        finally:
            run.stop.learning = False
        if model.num_timesteps < target:  # stopped mid-rollout: that rollout is not learnt
            model.num_timesteps = stopper.trained_steps
    run.clock.sync()
    run.state.timesteps = model.num_timesteps
    run.checkpoint()


def finish(run: Run) -> dict[str, Any]:
    """``model.zip``, the final evaluation and the report."""
    model_path = run.run_dir / "model.zip"
    run.save_model(run.model, model_path)
    run.env.close()
    start = time.perf_counter()
    final = final_evaluation(run.config, model_path, run.run_dir, run.evaluator)
    if run.config.eval.agreement_games > 0:
        from .pretrain import agreement_of

        run.state.agreement = agreement_of(model_path, run.config.eval.agreement_games)
    return report(run, COMPLETE, final, time.perf_counter() - start)


def report(run: Run, status: str, final: list[dict[str, Any]], final_seconds: float) -> Any:
    """Write ``summary.json``, ``report.md``, the learning curve and ``status.json``."""
    from .ppo_report import throughput, write_learning_curve, write_report

    state, config = run.state, run.config
    curve = write_learning_curve(state, run.run_dir / "learning_curve.png")
    summary = {
        "name": run.run_dir.name,
        "status": status,
        "stop_signal": run.stop.signal,
        "run_dir": str(run.run_dir),
        "command": run.command,
        "model": str(run.run_dir / "model.zip") if status == COMPLETE else None,
        "timesteps": state.timesteps,
        "target_timesteps": config.train.total_timesteps,
        "episodes": state.episodes,
        "truncated_episodes": state.truncated_episodes,
        "env_decisions": state.env_decisions,
        "train_minutes": round(state.train_seconds / 60, 2),
        "eval_minutes": round((state.eval_seconds + final_seconds) / 60, 2),
        "stopped_by_time_limit": state.stopped_by_time_limit,
        "wall_minutes_this_session": round((time.perf_counter() - run.wall_start) / 60, 2),
        "throughput": throughput(state),
        "pretrain": state.pretrain,
        "final_eval": final,
        "agreement": state.agreement,
        "evals": state.evals,
        "rollouts": state.rollouts,
        "snapshots": state.snapshots,
        "checkpoints": state.checkpoints,
        "learning_curve": "learning_curve.png" if curve else None,
        "config": config.to_dict(),
        "config_yaml": yaml.safe_dump(config.to_dict(), sort_keys=False),
    }
    write_report(run.run_dir, summary)
    write_status(run.run_dir, status, command=run.command, timesteps=state.timesteps)
    return summary


def train(
    config: TrainConfig, run_dir: Path, resume: bool = False, command: str = "", *,
    evaluator: Evaluator,
) -> dict[str, Any]:
    """Train (or with ``resume``, continue) the run in ``run_dir``, evaluating with
    ``evaluator``; returns the summary it wrote. On SIGINT / SIGTERM during learning the
    summary's ``status`` is ``interrupted`` (a checkpoint holds everything learnt); elsewhere
    the signal raises ``KeyboardInterrupt`` after ``status.json`` says ``interrupted``."""
    stop = StopRequest()
    with stop.listening():
        try:
            run = start_run(config, run_dir, resume, command, stop, evaluator)
            learn(run)
            if stop.signal:
                run.env.close()
                return report(run, INTERRUPTED, [], 0.0)
            return finish(run)
        except KeyboardInterrupt:
            write_status(run_dir, INTERRUPTED, command=command, signal=stop.signal or "SIGINT")
            raise
        except Exception as exc:
            write_status(run_dir, FAILED, command=command, error=f"{type(exc).__name__}: {exc}")
            raise


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
            + (f"; {base['agent']} on the same games {100 * base['win_rate']:.1f} %"
               if (base := e.get("baseline")) else "")
        )
    print(f"  model: {summary['model']}  report: {summary['run_dir']}/report.md")


# ---- command line ------------------------------------------------------------------------------

PROG = "perikles-train"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = CliParser(
        prog=PROG, description="Train a Perikles agent with MaskablePPO self-play."
    )
    p.add_argument(
        "--config", help="YAML config: a path, or a shipped name (smoke, default, long, ...)"
    )
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
    p.add_argument(
        "--status",
        metavar="RUN_DIR",
        help="print the state of the run in RUN_DIR (running, interrupted, failed, complete)",
    )
    return p.parse_args(argv)


def status_line(run_dir: Path) -> str:
    """One line on a run folder: its status (a killed run reads interrupted), its steps and
    what to do next."""
    record = read_status(run_dir)
    if not record:
        return f"{run_dir}: no status.json (not a run folder)"
    status = record.get("status", "?")
    parts = [f"{run_dir}: {status}"]
    if record.get("reason"):
        parts.append(f"({record['reason']})")
    elif status == RUNNING:
        parts.append(f"(process {record.get('pid')} on {record.get('host')})")
    if record.get("timesteps") is not None:
        parts.append(f"at {record['timesteps']:,} learner steps")
    parts.append(f"since {record.get('time', '?')}")
    if record.get("error"):
        parts.append(f"error: {record['error']}")
    if status in (INTERRUPTED, FAILED):
        parts.append(f"; resume with: {resume_command(run_dir)}")
    return " ".join(parts)


def resumable(run_dir: Path) -> Path:
    """``run_dir`` if a resume may start there: a run folder whose process is not alive."""
    if not run_dir.is_dir():
        raise InvalidConfigError(f"--resume: {str(run_dir)!r} is not a run folder")
    record = read_status(run_dir)
    if record.get("status") == RUNNING and record.get("host") == socket.gethostname():
        raise InvalidConfigError(
            f"--resume: {run_dir} is still running (process {record.get('pid')}); stop it first"
        )
    return run_dir


def main(argv: Sequence[str] | None = None, *, evaluator: Evaluator) -> int:
    """``perikles-train`` (started by ``perikles_env.launch.ppo``, which hands in the
    evaluator). Exit codes: 0 done, 2 bad config, 128 + signal number when interrupted (130 for
    SIGINT, 143 for SIGTERM; continue with ``--resume``). A bad config fails before torch
    and SB3 load."""
    args = parse_args(argv)
    if args.status:
        print(status_line(Path(args.status)))
        return 0
    try:
        if args.resume:
            run_dir = resumable(Path(args.resume))
            config = load_config(run_dir / "config.yaml", args.override)
            from .checkpoints import latest_checkpoint

            latest_checkpoint(run_dir)  # fails here, before any work, if none is intact
        elif args.config:
            config = load_config(args.config, args.override)
            run_dir = new_run_dir(config.out, config.name)
        else:
            raise InvalidConfigError("give --config FILE or --resume RUN_DIR")
    except InvalidConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    command = command_line(PROG, argv)
    print(f"run folder: {run_dir}")
    try:
        summary = train(
            config, run_dir, resume=bool(args.resume), command=command, evaluator=evaluator
        )
    except KeyboardInterrupt as exc:
        signal_name = str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT"
        print(f"{PROG}: interrupted ({signal_name}); resume with: {resume_command(run_dir)}")
        return exit_code(signal_name)
    print_summary(summary)
    if summary["status"] == INTERRUPTED:
        print(f"interrupted by {summary['stop_signal']}: resume with: {resume_command(run_dir)}")
        return exit_code(summary["stop_signal"])
    return 0

