"""Checkpoints of an expert-iteration run, written atomically after every iteration:
``checkpoints/net_<it>.pkn`` (the network, ``net_file``) and ``checkpoints/ckpt_<it>.zip``
holding ``state.json`` (the iteration, the run's history, the replay window's iterations,
the league's snapshots and scores, the optimizer's settings) and ``optimizer.npz`` (Adam's
moments). The network is written first, so a checkpoint never names a network that is not there.

Loading runs no code: the zip must hold exactly those two entries, the JSON is checked
key by key, the arrays are read with ``allow_pickle=False`` and the network through
``load_net``. ``latest`` takes the newest checkpoint that reads back intact (a damaged
newest one, e.g. cut off by a full disk, falls back to the one before); none raises
``CheckpointError`` with the reasons.
"""

from __future__ import annotations

import io
import json
import re
import sys
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perikles_env.agents.ppo_file import ModelFileError
from perikles_env.agents.ppo_file import _load_arrays as load_arrays
from perikles_env.agents.ppo_file import _optimizer_parts as optimizer_parts
from perikles_env.agents.ppo_file import _optimizer_state as optimizer_state
from perikles_env.agents.search.net_file import load_net, save_net
from perikles_env.agents.search.network import SearchNet
from perikles_env.errors import InvalidConfigError
from perikles_env.files import atomic_write

FOLDER = "checkpoints"
FORMAT = "perikles-expert-checkpoint-1"
STATE, OPTIMIZER = "state.json", "optimizer.npz"
MAX_BYTES = 256 << 20
STATE_KEYS = {"format", "iteration", "net", "optimizer", "run"}
RUN_KEYS = {"seconds", "window", "history", "warm_start", "population"}
OLD_RUN_KEYS = RUN_KEYS - {"population"}  # checkpoints written before populations


class CheckpointError(InvalidConfigError):
    """A checkpoint is missing, damaged or crafted."""


@dataclass
class Checkpoint:
    path: Path
    iteration: int
    net: SearchNet
    optimizer: dict[str, Any]  # a torch optimizer state_dict
    run: dict[str, Any]  # seconds used, replay window, per-iteration history, warm start


def net_path(run_dir: Path, iteration: int) -> Path:
    return run_dir / FOLDER / f"net_{iteration:04d}.pkn"


def save(
    run_dir: Path, iteration: int, net: SearchNet, optimizer: Any, run: dict[str, Any], keep: int
) -> Path:
    """Write the checkpoint of ``iteration``; keep the newest ``keep``."""
    folder = run_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    save_net(net_path(run_dir, iteration), net)
    settings, tensors = optimizer_parts(optimizer.state_dict())
    state = {
        "format": FORMAT,
        "iteration": iteration,
        "net": net_path(run_dir, iteration).name,
        "optimizer": settings,
        "run": run,
    }
    text = json.dumps(state, indent=1, allow_nan=False).encode("utf-8")
    buffer = io.BytesIO()
    np.savez(buffer, **{k: v.detach().cpu().numpy() for k, v in tensors.items()})

    def write(f: Any) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(STATE, text)
            z.writestr(OPTIMIZER, buffer.getvalue())

    path = folder / f"ckpt_{iteration:04d}.zip"
    atomic_write(path, write)
    for old in sorted(folder.glob("ckpt_*.zip"))[:-keep]:
        old.unlink(missing_ok=True)
        (folder / old.name.replace("ckpt_", "net_").replace(".zip", ".pkn")).unlink(
            missing_ok=True
        )
    return path


def read(path: Path) -> Checkpoint:
    """One checkpoint, checked (module docstring)."""
    try:
        with zipfile.ZipFile(path) as z:
            names = sorted(i.filename for i in z.infolist())
            if names != sorted([STATE, OPTIMIZER]):
                raise CheckpointError(f"{path}: entries {names}, expected {[OPTIMIZER, STATE]}")
            if sum(i.file_size for i in z.infolist()) > MAX_BYTES:
                raise CheckpointError(f"{path} declares more than {MAX_BYTES >> 20} MiB")
            raw_state, raw_optimizer = z.read(STATE), z.read(OPTIMIZER)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
        raise CheckpointError(f"{path} is not a readable zip: {exc}") from exc
    except OSError as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from exc
    try:
        state = json.loads(raw_state)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CheckpointError(f"{path}: {STATE} is not valid JSON: {exc!r}"[:300]) from exc
    _check_state(state, path)
    try:
        optimizer = optimizer_state(state["optimizer"], load_arrays(raw_optimizer, str(path)))
        net = load_net(path.parent / state["net"])
    except ModelFileError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc
    return Checkpoint(path, state["iteration"], net, optimizer, state["run"])


def _check_state(state: Any, path: Path) -> None:
    if not isinstance(state, dict) or set(state) != STATE_KEYS:
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise CheckpointError(f"{path}: {STATE} keys {keys}, expected {sorted(STATE_KEYS)}")
    if state["format"] != FORMAT:
        raise CheckpointError(f"{path}: unknown format {state['format']!r}; expected {FORMAT}")
    iteration = state["iteration"]
    if type(iteration) is not int or iteration < 1:
        raise CheckpointError(f"{path}: iteration must be a positive int, got {iteration!r}")
    name = state["net"]
    if name != f"net_{iteration:04d}.pkn" or not re.fullmatch(r"net_\d{4,}\.pkn", name):
        raise CheckpointError(f"{path}: net must be net_{iteration:04d}.pkn, got {state['net']!r}")
    run = state["run"]
    if not isinstance(run, dict) or set(run) not in (RUN_KEYS, OLD_RUN_KEYS):
        raise CheckpointError(f"{path}: run must have exactly the keys {sorted(RUN_KEYS)}")
    window = run["window"]
    if not isinstance(window, list) or not all(
        type(i) is int and 1 <= i <= iteration for i in window
    ):
        raise CheckpointError(f"{path}: window must list iterations 1..{iteration}, got {window!r}")
    if not isinstance(run["history"], list) or not all(isinstance(h, dict) for h in run["history"]):
        raise CheckpointError(f"{path}: history must be a list of records")
    if isinstance(run["seconds"], bool) or not isinstance(run["seconds"], (int, float)):
        raise CheckpointError(f"{path}: seconds must be a number, got {run['seconds']!r}")
    if not isinstance(run["warm_start"], str):
        raise CheckpointError(f"{path}: warm_start must be a string")
    problem = _population_problem(run.get("population", _NO_POPULATION), iteration)
    if problem:
        raise CheckpointError(f"{path}: {problem}")


def latest(run_dir: Path) -> Checkpoint:
    """The newest checkpoint of ``run_dir`` that reads back intact."""
    reasons = []
    for path in sorted((run_dir / FOLDER).glob("ckpt_*.zip"), reverse=True):
        try:
            return read(path)
        except CheckpointError as exc:
            print(f"perikles-search-train: skipping checkpoint: {exc}", file=sys.stderr)
            reasons.append(str(exc))
    why = f" ({'; '.join(reasons)})" if reasons else ""
    raise CheckpointError(f"no intact checkpoint to resume in {run_dir / FOLDER}{why}")


_NO_POPULATION = {"snapshots": [], "scores": {}}


def _population_problem(state: Any, iteration: int) -> str | None:
    """Why a checkpoint's league state (population.py) is malformed (None: it is fine)."""
    if not isinstance(state, dict) or set(state) != {"snapshots", "scores"}:
        return "population must have exactly the keys ['scores', 'snapshots']"
    snaps = state["snapshots"]
    if not isinstance(snaps, list) or not all(
        type(i) is int and 0 <= i <= iteration for i in snaps
    ):
        return f"population snapshots must list iterations 0..{iteration}, got {snaps!r}"
    scores = state["scores"]
    if not isinstance(scores, dict) or not all(
        isinstance(v, list) and len(v) == 2
        and all(not isinstance(x, bool) and isinstance(x, (int, float)) and x >= 0 for x in v)
        and v[0] <= v[1]
        for v in scores.values()
    ):
        return "population scores must map labels to [score, games] with 0 <= score <= games"
    return None
