"""Self-play positions stored compactly, and the replay window over the last iterations.

Why compact: one observation is 10,290 floats, 8,613 of them the per-action block, in which
only the few dozen legal (or otherwise scored) action ids are non-zero. A position keeps

* ``states``: the observation without the per-action block, float16 ([N, state_size]);
* per entry (a legal id or an id with a non-zero feature row), in ragged rows delimited by
  ``offsets`` [N + 1]: ``ids`` int16, ``legal`` bool, the policy target ``policy`` float16
  and the feature row ``feats`` float16 [E, PER_ACTION];
* ``values``: the final win shares in the observer's relative seat order, float16.

About 4 KB per position instead of 41 KB. ``batch`` rebuilds full float32 rows for
``SearchNet.loss`` (targets renormalised after the float16 round trip). ``save`` / ``load``
use ``.npz`` files read with ``allow_pickle=False`` and checked (keys, dtypes, shapes,
offsets, id range, finite values), so a crafted file is refused with ``DatasetError``.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from perikles_env.analysis.action_features import PER_ACTION
from perikles_env.analysis.action_features import SIZE as ACTION_BLOCK
from perikles_env.engine import NUM_ACTIONS
from perikles_env.errors import InvalidConfigError
from perikles_env.files import atomic_write

MAX_FILE_BYTES = 4 << 30  # what a data file may declare, uncompressed


class DatasetError(InvalidConfigError):
    """A stored self-play data file is missing, damaged or not what it claims."""


@dataclass
class Positions:
    states: np.ndarray  # float16 [N, state_size]
    offsets: np.ndarray  # int64 [N + 1]
    ids: np.ndarray  # int16 [E]
    legal: np.ndarray  # bool [E]
    policy: np.ndarray  # float16 [E]
    feats: np.ndarray  # float16 [E, PER_ACTION]
    values: np.ndarray  # float16 [N, num_players]

    def __len__(self) -> int:
        return len(self.states)

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in fields(self))

    @classmethod
    def empty(cls, state_size: int, num_players: int) -> Positions:
        return cls(
            np.zeros((0, state_size), np.float16), np.zeros(1, np.int64),
            np.zeros(0, np.int16), np.zeros(0, bool), np.zeros(0, np.float16),
            np.zeros((0, PER_ACTION), np.float16), np.zeros((0, num_players), np.float16),
        )

    def batch(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """Float32 observations [B, state_size + ACTION_BLOCK], bool masks, policy targets
        [B, NUM_ACTIONS] and value targets [B, num_players] of ``rows``."""
        b, state_size = len(rows), self.states.shape[1]
        obs = np.zeros((b, state_size + ACTION_BLOCK), np.float32)
        obs[:, :state_size] = self.states[rows]
        masks = np.zeros((b, NUM_ACTIONS), bool)
        policy = np.zeros((b, NUM_ACTIONS), np.float32)
        starts, ends = self.offsets[rows], self.offsets[rows + 1]
        entry = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends, strict=True)])
        row = np.repeat(np.arange(b), ends - starts)
        ids = self.ids[entry].astype(np.int64)
        masks[row, ids] = self.legal[entry]
        policy[row, ids] = self.policy[entry]
        block = obs[:, state_size:].reshape(b, NUM_ACTIONS, PER_ACTION)
        block[row, ids] = self.feats[entry]
        policy /= policy.sum(axis=1, keepdims=True)
        values = self.values[rows].astype(np.float32)
        values /= values.sum(axis=1, keepdims=True)
        return obs, masks, policy, values


def concat(parts: Sequence[Positions]) -> Positions:
    """One ``Positions`` holding every part's rows, in order."""
    if len(parts) == 1:
        return parts[0]
    sizes = np.cumsum([0] + [len(p.ids) for p in parts[:-1]])
    offsets = [np.zeros(1, np.int64)]
    offsets += [p.offsets[1:] + s for p, s in zip(parts, sizes, strict=True)]
    return Positions(
        states=np.concatenate([p.states for p in parts]),
        offsets=np.concatenate(offsets),
        ids=np.concatenate([p.ids for p in parts]),
        legal=np.concatenate([p.legal for p in parts]),
        policy=np.concatenate([p.policy for p in parts]),
        feats=np.concatenate([p.feats for p in parts]),
        values=np.concatenate([p.values for p in parts]),
    )


_DTYPES = {
    "states": np.float16, "offsets": np.int64, "ids": np.int16, "legal": np.bool_,
    "policy": np.float16, "feats": np.float16, "values": np.float16,
}


def save(path: str | Path, data: Positions) -> Path:
    """Write ``data`` atomically as an ``.npz`` file."""
    arrays = {name: getattr(data, name) for name in _DTYPES}
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))
    return Path(path)


def load(path: str | Path, state_size: int, num_players: int) -> Positions:
    """The positions of a file written by ``save``, checked (module docstring)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            if sum(i.file_size for i in z.infolist()) > MAX_FILE_BYTES:
                raise DatasetError(f"{p} declares more than {MAX_FILE_BYTES >> 30} GiB")
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            if sorted(npz.files) != sorted(_DTYPES):
                raise DatasetError(f"{p}: entries {sorted(npz.files)}, expected {sorted(_DTYPES)}")
            arrays = {k: npz[k] for k in _DTYPES}
    except DatasetError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise DatasetError(f"cannot read self-play data {p}: {exc}") from exc
    data = Positions(**arrays)
    _check(data, state_size, num_players, p)
    return data


def _check(data: Positions, state_size: int, num_players: int, p: Path) -> None:
    for name, dtype in _DTYPES.items():
        if getattr(data, name).dtype != dtype:
            raise DatasetError(f"{p}: {name} holds {getattr(data, name).dtype}, not {dtype}")
    n, e = len(data.states), len(data.ids)
    shapes = {
        "states": (n, state_size), "offsets": (n + 1,), "legal": (e,), "policy": (e,),
        "feats": (e, PER_ACTION), "values": (n, num_players),
    }
    for name, shape in shapes.items():
        if getattr(data, name).shape != shape:
            raise DatasetError(f"{p}: {name} has shape {getattr(data, name).shape}, not {shape}")
    o = data.offsets
    if o[0] != 0 or o[-1] != e or (np.diff(o) < 1).any():
        raise DatasetError(f"{p}: offsets do not delimit non-empty rows of the entries")
    if e and (data.ids.min() < 0 or data.ids.max() >= NUM_ACTIONS):
        raise DatasetError(f"{p}: action ids outside 0..{NUM_ACTIONS - 1}")
    for name in ("states", "policy", "feats", "values"):
        if not np.isfinite(getattr(data, name)).all():
            raise DatasetError(f"{p}: {name} holds NaN or infinite values")
    if (data.policy < 0).any() or (data.values < 0).any():
        raise DatasetError(f"{p}: negative targets")
    legal_rows = np.add.reduceat(data.legal.astype(np.int64), o[:-1]) if n else np.zeros(0)
    policy_rows = np.add.reduceat(data.policy.astype(np.float64), o[:-1]) if n else np.zeros(0)
    empty = (legal_rows < 1).any() or (policy_rows <= 0).any() or (data.values.sum(1) <= 0).any()
    if n and empty:
        raise DatasetError(f"{p}: a position without a legal action or without targets")
    if (data.policy * ~data.legal).any():
        raise DatasetError(f"{p}: a policy target on an illegal action")


class ReplayWindow:
    """The positions of the last ``size`` iterations (oldest dropped first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.parts: list[tuple[int, Positions]] = []

    def add(self, iteration: int, data: Positions) -> list[int]:
        """Add one iteration's positions; returns the iterations dropped."""
        self.parts.append((iteration, data))
        dropped = [i for i, _ in self.parts[: -self.size]]
        self.parts = self.parts[-self.size :]
        return dropped

    @property
    def iterations(self) -> list[int]:
        return [i for i, _ in self.parts]

    def __len__(self) -> int:
        return sum(len(d) for _, d in self.parts)

    def data(self) -> Positions:
        return concat([d for _, d in self.parts])
