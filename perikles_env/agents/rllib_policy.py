"""A trained RLlib policy as two plain files, so playing it never unpickles anything.

RLlib's own checkpoint (``Algorithm.save_to_path``, needed to resume training) stores its
classes and state with cloudpickle, which can run code when loaded. Beside it each of our
checkpoints holds ``policy.json`` (what to build) and ``policy.pt`` (the shared module's
weights, read with ``torch.load(weights_only=True)``); the ``rllib:<checkpoint>`` agent
reads only these two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..analysis.observation import CLIP
from ..engine import NUM_ACTIONS
from ..errors import InvalidConfigError

# the observation dict keys RLlib's action-masking module reads
OBS_KEY = "observations"
MASK_KEY = "action_mask"

FORMAT = "perikles-rllib-policy/1"
META_FILE = "policy.json"
WEIGHTS_FILE = "policy.pt"
MODULE_ID = "shared"
ACTIVATIONS = ("relu", "tanh")


def model_config(hidden: list[int], activation: str) -> dict[str, Any]:
    """RLlib's ``DefaultModelConfig`` keys: separate policy and value networks."""
    return {"fcnet_hiddens": list(hidden), "fcnet_activation": activation, "vf_share_layers": False}


def observation_space(obs_size: int) -> gym.spaces.Dict:
    return gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1.0, CLIP, shape=(obs_size,), dtype=np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=(NUM_ACTIONS,), dtype=np.float32),
        }
    )


def build_module(obs_size: int, hidden: list[int], activation: str) -> Any:
    """A fresh masking PPO module (RLlib's ``ActionMaskingTorchRLModule``)."""
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return ActionMaskingTorchRLModule(
        observation_space=observation_space(obs_size),
        action_space=gym.spaces.Discrete(NUM_ACTIONS),
        model_config=model_config(hidden, activation),
    )


def export_policy(
    weights: dict[str, Any], folder: Path, hidden: list[int], activation: str
) -> None:
    """Write ``policy.json`` and ``policy.pt`` for the shared module's ``weights`` (trained
    on the AEC env's observation: no extra feature blocks)."""
    import ray
    import torch

    from ..analysis.encoding import layout_signature

    layout = layout_signature(())
    tensors = {k: torch.as_tensor(np.asarray(v)) for k, v in weights.items()}
    torch.save(tensors, folder / WEIGHTS_FILE)
    meta = {
        "format": FORMAT,
        "module": MODULE_ID,
        "layout": layout,
        "obs_size": layout["size"],
        "num_actions": NUM_ACTIONS,
        "hidden": list(hidden),
        "activation": activation,
        "ray_version": ray.__version__,
    }
    (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")


def load_policy(folder: str | Path) -> tuple[Any, dict[str, Any]]:
    """The module saved in ``folder`` (a checkpoint) and its metadata; raises
    ``InvalidConfigError`` if the folder holds no exported policy or one trained on another
    observation layout (``analysis.encoding.layout_signature``)."""
    import torch

    folder = Path(folder)
    meta_path = folder / META_FILE
    if not meta_path.is_file() or not (folder / WEIGHTS_FILE).is_file():
        raise InvalidConfigError(
            f"{folder} is not a perikles RLlib checkpoint (no {META_FILE} / {WEIGHTS_FILE})"
        )
    from ..analysis.encoding import layout_signature

    meta = json.loads(meta_path.read_text())
    if meta.get("format") != FORMAT or meta.get("num_actions") != NUM_ACTIONS:
        raise InvalidConfigError(f"{meta_path}: unknown format {meta.get('format')!r}")
    if meta.get("activation") not in ACTIVATIONS:
        raise InvalidConfigError(f"{meta_path}: activation must be one of {ACTIVATIONS}")
    layout = meta.get("layout", {})
    if layout != layout_signature(layout.get("features", ())):
        raise InvalidConfigError(
            f"{meta_path}: the policy was trained on another observation layout than this "
            "code encodes (retrain it, or use the perikles_env version it was trained with)"
        )
    module = build_module(int(meta["obs_size"]), list(meta["hidden"]), meta["activation"])
    state = torch.load(folder / WEIGHTS_FILE, map_location="cpu", weights_only=True)
    module.load_state_dict(state)
    module.eval()
    return module, meta
