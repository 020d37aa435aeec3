"""SB3 callbacks of the trainer: rollout statistics, self-play snapshots, periodic
evaluation, checkpoints, the wall-clock limit, stopping on a signal and the progress bar.

They share one ``RunState`` (what a resumed run must remember), which every checkpoint
carries (``checkpoints.py``).
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from perikles_env.files import write_text
from perikles_env.jobs.budget import Budget, BudgetBar
from perikles_env.jobs.signals import StopRequest

from .self_play_pool import SelfPlayPool


@dataclass
class RunState:
    """Everything a resumed run needs besides the model itself."""

    timesteps: int = 0
    train_seconds: float = 0.0  # wall time in model.learn, evaluation excluded
    eval_seconds: float = 0.0
    env_decisions: int = 0  # engine decisions, learner and opponents
    episodes: int = 0
    truncated_episodes: int = 0  # stopped at MAX_GAME_DECISIONS (env.max_decisions)
    snapshots: list[str] = field(default_factory=list)
    evals: list[dict[str, Any]] = field(default_factory=list)
    rollouts: list[dict[str, Any]] = field(default_factory=list)
    checkpoints: list[str] = field(default_factory=list)
    stopped_by_time_limit: bool = False
    pretrain: dict[str, Any] = field(default_factory=dict)
    agreement: dict[str, Any] = field(default_factory=dict)  # the final model's, agreement.py

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunState:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


class Clock:
    """Training wall time without the pauses spent evaluating."""

    def __init__(self, state: RunState) -> None:
        self.state = state
        self._start = time.perf_counter()
        self._base = state.train_seconds + state.eval_seconds

    @property
    def total(self) -> float:
        return self._base + time.perf_counter() - self._start

    @property
    def training(self) -> float:
        """Seconds of training (evaluation excluded): what the time limit counts."""
        return self.total - self.state.eval_seconds

    def sync(self) -> None:
        self.state.train_seconds = self.training


class StatsCallback(BaseCallback):
    """Counts engine decisions and learner outcomes; logs rollout win rate and throughput."""

    def __init__(
        self, state: RunState, clock: Clock, progress: Path | None = None, window: int = 200
    ) -> None:
        super().__init__()
        self.state = state
        self.clock = clock
        self.progress = progress
        self.recent: deque[dict[str, Any]] = deque(maxlen=window)
        self._mark = (0.0, 0, 0)

    def _on_training_start(self) -> None:
        self.clock.sync()
        self._mark = (self.state.train_seconds, self.model.num_timesteps, self.state.env_decisions)

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
            self.state.env_decisions += int(info.get("decisions", 0))
            if done:
                self.state.episodes += 1
                self.state.truncated_episodes += int(bool(info.get("truncated", False)))
                self.recent.append(
                    {
                        "win": float(info.get("win_share", 0.0)),
                        "vp": float(info.get("learner_vp", 0.0)),
                        "illegal": bool(info.get("illegal_action", False)),
                        "opponents": info.get("opponents", []),
                    }
                )
        return True

    def win_rate(self) -> float | None:
        if not self.recent:
            return None
        return sum(r["win"] for r in self.recent) / len(self.recent)

    def _on_rollout_end(self) -> None:
        self.clock.sync()
        seconds, steps, decisions = self._mark
        now = (self.state.train_seconds, self.model.num_timesteps, self.state.env_decisions)
        dt = max(now[0] - seconds, 1e-9)
        learner_sps = (now[1] - steps) / dt
        env_sps = (now[2] - decisions) / dt
        self._mark = now
        row: dict[str, Any] = {
            "timesteps": self.model.num_timesteps,
            "train_seconds": round(self.state.train_seconds, 2),
            "learner_steps_per_s": round(learner_sps, 1),
            "env_steps_per_s": round(env_sps, 1),
        }
        self.logger.record("throughput/learner_steps_per_s", learner_sps)
        self.logger.record("throughput/env_steps_per_s", env_sps)
        if self.recent:
            row["rollout_win_rate"] = round(self.win_rate() or 0.0, 4)
            row["rollout_mean_vp"] = round(sum(r["vp"] for r in self.recent) / len(self.recent), 2)
            self.logger.record("rollout/win_rate", row["rollout_win_rate"])
            vs_random = [r["win"] for r in self.recent if set(r["opponents"]) == {"random"}]
            if vs_random:  # games against random players only: comparable across configs
                row["rollout_win_rate_vs_random"] = round(sum(vs_random) / len(vs_random), 4)
                self.logger.record("rollout/win_rate_vs_random", row["rollout_win_rate_vs_random"])
            self.logger.record("rollout/learner_vp", row["rollout_mean_vp"])
            self.logger.record("rollout/illegal_actions", sum(r["illegal"] for r in self.recent))
        row["truncated_episodes"] = self.state.truncated_episodes
        self.state.rollouts.append(row)
        self.state.timesteps = self.model.num_timesteps
        if self.progress is not None:  # for `watch cat`: the latest numbers of a running job
            write_text(self.progress, json.dumps({"last": row, "evals": self.state.evals}))


class SelfPlayCallback(BaseCallback):
    """Every ``every`` learner steps: save a snapshot and hand the new pool to all envs."""

    def __init__(
        self,
        pool: SelfPlayPool,
        folder: Path,
        every: int,
        state: RunState,
        save: Callable[[Any, Path], Any],
    ) -> None:
        super().__init__()
        self.save = save  # (model, path): writes a model file
        self.pool = pool
        self.folder = folder
        self.every = every
        self.state = state
        self._next = 0

    def _on_training_start(self) -> None:
        steps = self.model.num_timesteps
        self._next = (steps // self.every + 1) * self.every
        self.training_env.env_method("set_opponents", self.pool.pool())

    def _on_step(self) -> bool:
        if self.model.num_timesteps >= self._next:
            self._next += self.every
            path = self.folder / f"snapshot_{self.model.num_timesteps:09d}.zip"
            self.save(self.model, path)
            for old in self.pool.add_snapshot(str(path)):
                Path(old).unlink(missing_ok=True)
            self.state.snapshots = list(self.pool.snapshots)
            self.training_env.env_method("set_opponents", self.pool.pool())
        return True


class CurriculumCallback(BaseCallback):
    """``opponents.curriculum``: before each rollout, the league of the run's stage
    (``SelfPlayPool.advance``) for the games dealt from then on."""

    def __init__(self, pool: SelfPlayPool) -> None:
        super().__init__()
        self.pool = pool

    def _on_training_start(self) -> None:
        self.pool.advance(self.model.num_timesteps)
        self.training_env.env_method("set_opponents", self.pool.pool())

    def _on_rollout_start(self) -> None:
        if self.pool.advance(self.model.num_timesteps):
            self.training_env.env_method("set_opponents", self.pool.pool())
        self.logger.record("train/curriculum_stage", self.pool.stage)

    def _on_step(self) -> bool:
        return True


class EvalCallback(BaseCallback):
    """Every ``every`` learner steps: win rates against the baselines (the evaluator)."""

    def __init__(
        self,
        every: int,
        run_eval: Callable[[str, int], dict[str, Any]],
        folder: Path,
        state: RunState,
        clock: Clock,
        save: Callable[[Any, Path], Any],
    ) -> None:
        super().__init__()
        self.save = save  # (model, path): writes a model file
        self.every = every
        self.run_eval = run_eval
        self.folder = folder
        self.state = state
        self.clock = clock
        self._next = 0

    def _on_training_start(self) -> None:
        self._next = (self.model.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.model.num_timesteps >= self._next:
            self._next += self.every
            start = time.perf_counter()
            # a new file per evaluation: evaluators cache agents by their spec (path)
            path = self.folder / f"periodic_{self.model.num_timesteps:09d}.zip"
            self.save(self.model, path)
            row = self.run_eval(str(path), self.model.num_timesteps)
            self.state.eval_seconds += time.perf_counter() - start
            self.clock.sync()
            row["train_seconds"] = round(self.state.train_seconds, 1)
            self.state.evals.append(row)
            for key, value in row.items():
                if key.startswith("win_rate_vs_"):
                    self.logger.record(f"eval/{key}", value)
        return True


class CheckpointCallback(BaseCallback):
    """Every ``every`` learner steps, a checkpoint (``save()``), taken when the next rollout
    starts: after PPO's update, so its weights have learnt from every step it counts."""

    def __init__(self, every: int, save: Callable[[], Any]) -> None:
        super().__init__()
        self.every = every
        self.save = save
        self._next = 0

    def _on_training_start(self) -> None:
        self._next = (self.model.num_timesteps // self.every + 1) * self.every

    def _on_rollout_start(self) -> None:
        if self.model.num_timesteps >= self._next:
            self._next = (self.model.num_timesteps // self.every + 1) * self.every
            self.save()

    def _on_step(self) -> bool:
        return True


class StopCallback(BaseCallback):
    """Ends learning at the next step once a stop was requested; remembers the learner
    steps at the start of the current rollout (``trained_steps``): when PPO stops
    mid-rollout that rollout is never learnt from, so the run counts only the steps
    before it."""

    def __init__(self, stop: StopRequest) -> None:
        super().__init__()
        self.stop = stop
        self.trained_steps = 0

    def _on_training_start(self) -> None:
        self.trained_steps = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        self.trained_steps = self.model.num_timesteps

    def _on_step(self) -> bool:
        return not self.stop.signal


class BudgetLinearSchedule:
    """``ppo.lr_schedule: linear``: the learning rate falls linearly from ``initial`` to 0
    over the run's budget, the step budget (SB3's ``progress_remaining``) or the time
    budget (``train.max_minutes``), whichever runs out first.

    Why: ``default.yaml`` stops on time, long before ``total_timesteps``; a step-based
    decay would still be near its start value when time runs out, and annealing the rate
    to 0 was measured to help (docs/results.md). ``time_remaining`` is set by
    ``TimeLimitCallback`` before each update. A resumed run rebuilds it from the config
    (model files hold no Python objects)."""

    def __init__(self, initial: float) -> None:
        self.initial = initial
        self.time_remaining = 1.0

    def __call__(self, progress_remaining: float) -> float:
        return self.initial * max(0.0, min(progress_remaining, self.time_remaining))


class TimeLimitCallback(BaseCallback):
    """The time budget: stops training once the run's training time (evaluation
    excluded) reaches the limit, and at the end of every rollout tells the model's
    ``BudgetLinearSchedule`` (if it has one) how much of the budget is left; SB3 sets the
    learning rate from it just after."""

    def __init__(self, minutes: float, clock: Clock, state: RunState) -> None:
        super().__init__()
        self.seconds = 60.0 * minutes
        self.clock = clock
        self.state = state

    def _used(self) -> float:
        return self.clock.total - self.state.eval_seconds  # as Clock.training

    def _on_step(self) -> bool:
        if self._used() >= self.seconds:
            self.state.stopped_by_time_limit = True
            return False
        return True

    def _on_rollout_end(self) -> None:
        schedule = self.model.learning_rate
        if isinstance(schedule, BudgetLinearSchedule):
            schedule.time_remaining = max(0.0, 1.0 - self._used() / self.seconds)


class UpdateThreadsCallback(BaseCallback):
    """Gives PPO's update more torch threads than the rollout.

    Why: during the rollout the env worker processes keep the other cores busy and extra
    torch threads only fight them (6-13x slower measured on 2 cores); during the update
    the workers idle, and a second thread made ``train()`` ~30 % faster on 2 cores."""

    def __init__(self, rollout_threads: int, update_threads: int) -> None:
        super().__init__()
        self.rollout_threads = rollout_threads
        self.update_threads = update_threads

    def _on_rollout_start(self) -> None:
        import torch

        torch.set_num_threads(self.rollout_threads)

    def _on_rollout_end(self) -> None:
        import torch

        torch.set_num_threads(self.update_threads)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        import torch

        torch.set_num_threads(self.rollout_threads)


class ProgressCallback(BaseCallback):
    """A bar over the run's budget: training minutes (``train.max_minutes``, evaluation
    excluded) and learner steps (``train.total_timesteps``), whichever ends first, with the
    speed since the run last started, the wall time left (the periodic evaluations' share
    of the wall so far included) and the latest win rates."""

    def __init__(self, stats: StatsCallback, budget: Budget, used: Callable[[], float]) -> None:
        super().__init__()
        self.stats = stats
        self.budget = budget
        self.used = used  # training seconds so far (the clock of the time limit)
        self.bar: BudgetBar | None = None
        self._start = (0.0, 0)
        self._eval_start = 0.0
        self._post = ""

    def _on_training_start(self) -> None:
        self.bar = BudgetBar(self.budget, "train")
        self._start = (self.used(), self.model.num_timesteps)
        self._eval_start = self.stats.state.eval_seconds

    def _on_step(self) -> bool:
        assert self.bar is not None
        seconds, steps = self.used(), self.model.num_timesteps
        seconds0, steps0 = self._start
        rate = (steps - steps0) / (seconds - seconds0) if seconds > seconds0 else None
        evaluating = self.stats.state.eval_seconds - self._eval_start
        overhead = 1.0 + evaluating / (seconds - seconds0) if seconds > seconds0 else 1.0
        self.bar.update(seconds, steps, rate=rate, extra=self._post, overhead=overhead)
        return True

    def _on_rollout_end(self) -> None:
        win = self.stats.win_rate()
        last_eval = self.stats.state.evals[-1] if self.stats.state.evals else {}
        post = [] if win is None else [f"win(train) {win:.2f}"]
        for key, value in last_eval.items():
            if key.startswith("win_rate_vs_"):
                post.append(f"{key[len('win_rate_vs_') :]} {value:.2f}")
        self._post = ", ".join(post)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
