"""Model files of a training run: checkpoints (for ``--resume``), snapshots, ``model.zip``.

Every file is written atomically in the pickle-free format of
``perikles_env/agents/ppo_file.py``. A checkpoint ``checkpoints/ckpt_<steps>.zip`` also
holds the optimizer's tensors and the run's ``RunState`` (JSON), so it alone is enough to
resume. ``--resume`` takes the newest checkpoint that reads back intact and falls back to
the one before when the newest is damaged (e.g. cut off by a full disk).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from perikles_env.agents.ppo_file import (
    ModelFile,
    ModelFileError,
    check_layout,
    load_weights,
    read_model,
)
from perikles_env.agents.ppo_file import save_model as write_model_file
from perikles_env.errors import InvalidConfigError

from .callbacks import Clock, RunState
from .config import TrainConfig

CHECKPOINTS = "checkpoints"


def save_model(model: Any, config: TrainConfig, path: Path) -> Path:
    """The policy alone (playable as ``ppo:<path>``)."""
    return write_model_file(path, model.policy, config.env.features, model.num_timesteps)


def save_checkpoint(
    model: Any, config: TrainConfig, run_dir: Path, state: RunState, clock: Clock
) -> Path:
    """``ckpt_<steps>.zip`` with optimizer and run state; keeps ``train.keep_checkpoints``."""
    clock.sync()
    state.timesteps = model.num_timesteps
    path = run_dir / CHECKPOINTS / f"ckpt_{model.num_timesteps:09d}.zip"
    if str(path) not in state.checkpoints:
        state.checkpoints.append(str(path))
    keep = config.train.keep_checkpoints
    dropped, state.checkpoints = state.checkpoints[:-keep], state.checkpoints[-keep:]
    write_model_file(
        path,
        model.policy,
        config.env.features,
        model.num_timesteps,
        optimizer=model.policy.optimizer,
        extra={"run_state": state.to_dict()},
    )
    for old in dropped:  # only once the new one is safely written
        Path(old).unlink(missing_ok=True)
    return path


def latest_checkpoint(run_dir: Path) -> tuple[Path, ModelFile]:
    """The newest checkpoint of ``run_dir`` that reads back intact (with its contents)."""
    paths = sorted((run_dir / CHECKPOINTS).glob("ckpt_*.zip"), reverse=True)
    for path in paths:
        try:
            checkpoint = read_model(path)
        except ModelFileError as exc:
            print(f"perikles-train: skipping damaged checkpoint: {exc}", file=sys.stderr)
            continue
        if checkpoint.optimizer_state is None or "run_state" not in checkpoint.extra:
            print(f"perikles-train: skipping {path}: not a checkpoint", file=sys.stderr)
            continue
        return path, checkpoint
    raise InvalidConfigError(f"no intact checkpoint to resume in {run_dir / CHECKPOINTS}")


def restore(model: Any, checkpoint: ModelFile) -> RunState:
    """Load a checkpoint's weights, optimizer and step count into a freshly built model
    (same config); returns the run state it carried."""
    try:
        check_layout(checkpoint)
        load_weights(model.policy, checkpoint)
        model.policy.optimizer.load_state_dict(checkpoint.optimizer_state)
    except (ModelFileError, ValueError, KeyError) as exc:
        raise InvalidConfigError(
            f"checkpoint {checkpoint.path} does not fit this run's config: {exc}"
        ) from exc
    model.num_timesteps = int(checkpoint.meta["num_timesteps"])
    return RunState.from_dict(checkpoint.extra["run_state"])
