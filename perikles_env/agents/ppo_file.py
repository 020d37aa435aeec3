"""The model file of a ``ppo:<path>`` agent: a zip holding JSON and numpy arrays only.

Why not SB3's ``model.save``: its zip stores the model's attributes (``data``) and torch
tensors as pickles, and unpickling runs whatever code the file names, so a model file
from anywhere could run code on the first decision. Here nothing in the file is ever
unpickled:

* ``perikles-model.json``: the format (``perikles-ppo-1``), the policy class by name
  (only the names of ``ppo_policy.POLICIES`` are accepted), its ``net_arch`` and
  activation, the observation layout it was trained on (``layout_signature``: version,
  feature blocks, size, fingerprint), the action count, the learner steps, the library
  versions that wrote it, and an ``extra`` JSON object (the trainer keeps its run state
  there);
* ``policy.npz``: the network's ``state_dict``, one numpy array per tensor, read with
  ``allow_pickle=False``;
* ``optimizer.npz`` (checkpoints only, for ``--resume``): the optimizer's tensors; its
  other settings are JSON in ``perikles-model.json``.

Loading builds the named policy class from those settings and copies the arrays in. An
SB3 zip (a ``data`` entry) is refused with an error that says how to convert it
(``python -m perikles_env.training.convert_model``, docs/safety.md).
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..files import atomic_write
from .base import AgentError

FORMAT = "perikles-ppo-1"
META = "perikles-model.json"
POLICY = "policy.npz"
OPTIMIZER = "optimizer.npz"
ENTRIES = {META, POLICY, OPTIMIZER}
MAX_BYTES = 1 << 30  # uncompressed size a model file may claim (no zip bombs)


class ModelFileError(AgentError):
    """A model file is missing, damaged, unsafe, or made for another observation layout."""


@dataclass
class ModelFile:
    meta: dict[str, Any]
    policy_state: dict[str, np.ndarray]
    optimizer_state: dict[str, Any] | None = None
    path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# ---- writing ------------------------------------------------------------------------------


def policy_settings(policy: Any) -> dict[str, Any]:
    """The constructor settings that rebuild ``policy`` (class name, net_arch, activation,
    and the shared ``trunk`` where it has one)."""
    from .ppo_policy import ACTIVATIONS, POLICIES

    name = type(policy).__name__
    if POLICIES.get(name) is not type(policy):
        raise ModelFileError(f"policy class {name} is not one a model file may name")
    activation = [k for k, v in ACTIVATIONS.items() if v is policy.activation_fn]
    if not activation:
        raise ModelFileError(f"activation {policy.activation_fn} has no name in a model file")
    settings = {"class": name, "net_arch": policy.net_arch, "activation": activation[0]}
    if getattr(policy, "trunk", None):
        settings["trunk"] = list(policy.trunk)
    return settings


def _arrays(tensors: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{k: v.detach().cpu().numpy() for k, v in tensors.items()})
    return buffer.getvalue()


def _optimizer_parts(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A torch optimizer ``state_dict`` as (JSON settings, tensors by key)."""
    import torch

    tensors: dict[str, Any] = {}
    per_param: dict[str, dict[str, Any]] = {}
    for index, values in state["state"].items():
        entry: dict[str, Any] = {}
        for name, value in values.items():
            if isinstance(value, torch.Tensor):
                key = f"{index}/{name}"
                tensors[key] = value
                entry[name] = {"tensor": key}
            else:
                entry[name] = value
        per_param[str(index)] = entry
    return {"state": per_param, "param_groups": state["param_groups"]}, tensors


def save_model(
    path: str | Path,
    policy: Any,
    features: list[str] | tuple[str, ...],
    num_timesteps: int,
    optimizer: Any = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``policy`` (and, for a checkpoint, its optimizer) atomically to ``path``."""
    import sb3_contrib
    import stable_baselines3
    import torch

    from ..analysis.encoding import layout_signature
    from ..engine import NUM_ACTIONS

    meta: dict[str, Any] = {
        "format": FORMAT,
        "policy": policy_settings(policy),
        "observation": layout_signature(features),
        "actions": NUM_ACTIONS,
        "num_timesteps": int(num_timesteps),
        "versions": {
            "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__,
            "torch": torch.__version__,
            "numpy": np.__version__,
        },
        "extra": extra or {},
    }
    entries = {POLICY: _arrays(policy.state_dict())}
    if optimizer is not None:
        meta["optimizer"], tensors = _optimizer_parts(optimizer.state_dict())
        entries[OPTIMIZER] = _arrays(tensors)
    try:
        entries[META] = json.dumps(meta, indent=1).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"model settings are not plain JSON: {exc}") from exc

    def write(f: Any) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries.items():
                z.writestr(name, data)

    atomic_write(path, write)
    return Path(path)


# ---- reading ------------------------------------------------------------------------------


def resolve(path: str | Path) -> Path:
    """``path``, or ``path.zip`` when only that exists (SB3's habit of adding ``.zip``)."""
    p = Path(path)
    if not p.exists() and Path(str(p) + ".zip").exists():
        p = Path(str(p) + ".zip")
    if not p.exists():
        raise ModelFileError(f"ppo model file not found: {path}")
    if not p.is_file():
        raise ModelFileError(f"ppo model path is not a file: {path}")
    return p


def _load_arrays(data: bytes, what: str) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise ModelFileError(f"{what} is damaged or holds pickled data: {exc}") from exc


def read_model(path: str | Path) -> ModelFile:
    """The parts of a model file, checked; nothing is unpickled and no code runs."""
    p = resolve(path)
    try:
        with zipfile.ZipFile(p) as z:
            infos = {i.filename: i for i in z.infolist()}
            if "data" in infos or "policy.pth" in infos:
                raise ModelFileError(
                    f"{p} is a stable-baselines3 zip: its 'data' and '.pth' entries are "
                    "pickles, which can run code when loaded, so it is refused. Convert it "
                    "(reads only its tensors): `python -m perikles_env.training.convert_model "
                    "OLD NEW --activation relu|tanh` (docs/safety.md)."
                )
            unknown = sorted(set(infos) - ENTRIES)
            if unknown or META not in infos or POLICY not in infos:
                raise ModelFileError(
                    f"{p} is not a perikles_env model file (entries {sorted(infos)}; expected "
                    f"{sorted(ENTRIES)})"
                )
            if sum(i.file_size for i in infos.values()) > MAX_BYTES:
                raise ModelFileError(f"{p} claims more than {MAX_BYTES >> 20} MiB of data")
            raw = {name: z.read(name) for name in infos}
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ModelFileError(f"{p} is not a readable zip (truncated or damaged): {exc}") from exc
    except OSError as exc:
        raise ModelFileError(f"cannot read {p}: {exc}") from exc
    try:
        meta = json.loads(raw[META])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{p}: {META} is not valid JSON: {exc}") from exc
    found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
    if found != FORMAT:
        raise ModelFileError(f"{p}: unknown model format {found!r}; expected {FORMAT}")
    optimizer = None
    if OPTIMIZER in raw:
        optimizer = _optimizer_state(meta.get("optimizer"), _load_arrays(raw[OPTIMIZER], str(p)))
    return ModelFile(
        meta=meta,
        policy_state=_load_arrays(raw[POLICY], str(p)),
        optimizer_state=optimizer,
        path=str(p),
        extra=meta.get("extra") or {},
    )


def _optimizer_state(settings: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    import torch

    if not isinstance(settings, dict) or not {"state", "param_groups"} <= set(settings):
        raise ModelFileError("the optimizer settings of the model file are missing")
    state: dict[int, dict[str, Any]] = {}
    try:
        for index, values in settings["state"].items():
            entry = {}
            for name, value in values.items():
                if isinstance(value, dict) and "tensor" in value:
                    entry[name] = torch.from_numpy(arrays[value["tensor"]].copy())
                else:
                    entry[name] = value
            state[int(index)] = entry
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"damaged optimizer settings in the model file: {exc}") from exc
    return {"state": state, "param_groups": settings["param_groups"]}


def check_layout(model: ModelFile) -> list[str]:
    """The model's feature blocks, or ``ModelFileError`` when its observation layout is
    not the one this code encodes (it would be fed the wrong vector)."""
    from ..analysis.encoding import layout_signature
    from ..errors import InvalidConfigError

    recorded = model.meta.get("observation")
    if not isinstance(recorded, dict) or not isinstance(recorded.get("features"), list):
        raise ModelFileError(f"{model.path}: the model records no observation layout")
    try:
        current = layout_signature(recorded["features"])
    except InvalidConfigError as exc:
        raise ModelFileError(f"{model.path}: {exc}") from exc
    if recorded != current:
        raise ModelFileError(
            f"{model.path} was trained on observation layout v{recorded.get('version')} "
            f"(features {recorded['features']}, size {recorded.get('size')}, fingerprint "
            f"{str(recorded.get('fingerprint'))[:12]}); this perikles_env encodes "
            f"v{current['version']} (size {current['size']}, fingerprint "
            f"{str(current['fingerprint'])[:12]}). Retrain, or play it with the version "
            "that trained it."
        )
    return list(recorded["features"])


class _NoOptimizer:
    """Stands in for the optimizer of a policy built only to play: creating a torch
    optimizer imports ``torch._dynamo`` (measured ~4 s per process, in every evaluation
    and env worker that loads a model)."""

    def __init__(self, params: Any, lr: float = 0.0, **kwargs: Any) -> None:
        pass


def build_policy(model: ModelFile, device: str = "cpu") -> Any:
    """The policy the file describes, with its weights, in evaluation mode (to play, not
    to train: it has no optimizer)."""
    import gymnasium as gym

    from ..analysis.encoding import default_encoder
    from ..engine import NUM_ACTIONS
    from .ppo_policy import ACTIVATIONS, POLICIES

    features = check_layout(model)
    settings = model.meta.get("policy") or {}
    cls = POLICIES.get(settings.get("class"))
    if cls is None:
        raise ModelFileError(
            f"{model.path}: policy class {settings.get('class')!r} is not allowed; "
            f"allowed: {sorted(POLICIES)}"
        )
    activation = ACTIVATIONS.get(settings.get("activation"))
    net_arch = settings.get("net_arch")
    extra: dict[str, Any] = {}
    if "trunk" in settings:  # shared first layers: ActionScoringPolicy only
        extra["trunk"] = settings["trunk"]
        if settings.get("class") != "ActionScoringPolicy" or not _is_net_arch(extra["trunk"]):
            raise ModelFileError(f"{model.path}: bad policy settings {settings}")
    if activation is None or not _is_net_arch(net_arch):
        raise ModelFileError(f"{model.path}: bad policy settings {settings}")
    if model.meta.get("actions") != NUM_ACTIONS:
        raise ModelFileError(
            f"{model.path}: made for {model.meta.get('actions')} action ids, not {NUM_ACTIONS}"
        )
    policy = cls(
        default_encoder(features).space,
        gym.spaces.Discrete(NUM_ACTIONS),
        lambda _: 0.0,
        net_arch=net_arch,
        activation_fn=activation,
        optimizer_class=_NoOptimizer,
        **extra,
    )
    load_weights(policy, model)
    policy.set_training_mode(False)
    return policy.to(device)


def _is_net_arch(value: Any) -> bool:
    def widths(v: Any) -> bool:
        return isinstance(v, list) and all(type(w) is int and w > 0 for w in v)

    if isinstance(value, dict):
        return set(value) <= {"pi", "vf"} and all(widths(v) for v in value.values())
    return widths(value)


def load_weights(policy: Any, model: ModelFile) -> None:
    """Copy the file's arrays into ``policy``; every tensor must be there, with its shape."""
    import torch

    expected = policy.state_dict()
    missing = sorted(set(expected) - set(model.policy_state))
    unknown = sorted(set(model.policy_state) - set(expected))
    if missing or unknown:
        raise ModelFileError(
            f"{model.path}: weights do not fit the policy (missing {missing[:5]}, unknown "
            f"{unknown[:5]})"
        )
    state = {}
    for name, tensor in expected.items():
        array = model.policy_state[name]
        if array.dtype.kind not in "fiub":
            raise ModelFileError(f"{model.path}: {name} holds {array.dtype}, not numbers")
        if tuple(array.shape) != tuple(tensor.shape):
            raise ModelFileError(
                f"{model.path}: {name} has shape {array.shape}, expected {tuple(tensor.shape)}"
            )
        state[name] = torch.from_numpy(array.copy()).to(tensor.dtype)
    policy.load_state_dict(state)


def load_policy(path: str | Path, device: str = "cpu") -> tuple[Any, ModelFile]:
    """The policy of a model file and the file's parts (``meta``: settings, features)."""
    model = read_model(path)
    return build_policy(model, device), model
