"""Convert a stable-baselines3 model zip (``model.save``, older versions of this project)
into the pickle-free model file that ``ppo:<path>`` loads (docs/safety.md).

    python -m perikles_env.training.convert_model OLD.zip NEW.zip --activation relu

Only the zip's tensors are read, with ``torch.load(weights_only=True)`` (SB3's
``load_from_zip_file(load_data=False)``), never its pickled ``data`` entry, so converting
runs no code from the file either. What the tensors do not say is inferred or asked for:
the policy class (``BattleGainPolicy`` when the weights have its ``gain_weights``), the
layer widths (from the weight shapes), the observation's feature blocks (from the first
layer's input width) and the activation (``--activation``: SB3 keeps it only in the
pickled part; ``configs/default.yaml`` uses ``relu``, the library default is ``tanh``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perikles_env.agents.ppo_file import ModelFileError, save_model
from perikles_env.analysis.encoding import FEATURE_BLOCK_NAMES, layout_signature
from perikles_env.cli import CliParser, output_file
from perikles_env.errors import InvalidConfigError


def _widths(state: dict[str, Any], prefix: str) -> list[int]:
    layers = sorted(
        (int(k[len(prefix) :].split(".")[0]), v)
        for k, v in state.items()
        if k.startswith(prefix) and k.endswith(".weight")
    )
    return [int(w.shape[0]) for _, w in layers]


def _features_for(size: int) -> list[str]:
    for features in [(), *((name,) for name in FEATURE_BLOCK_NAMES)]:
        if layout_signature(features)["size"] == size:
            return list(features)
    raise InvalidConfigError(f"no observation layout of this version has {size} inputs")


def convert(old: str | Path, new: str | Path, activation: str) -> dict[str, Any]:
    """Write ``new`` from the tensors of the SB3 zip ``old``; returns what was inferred."""
    import gymnasium as gym
    from stable_baselines3.common.save_util import load_from_zip_file

    from perikles_env.agents.ppo_file import ModelFile, load_weights
    from perikles_env.agents.ppo_policy import ACTIVATIONS, POLICIES
    from perikles_env.analysis.encoding import default_encoder
    from perikles_env.engine import NUM_ACTIONS

    if activation not in ACTIVATIONS:
        raise InvalidConfigError(f"activation must be one of {sorted(ACTIVATIONS)}")
    _, params, _ = load_from_zip_file(old, load_data=False, device="cpu")
    state = params.get("policy")
    if not state or "mlp_extractor.policy_net.0.weight" not in state:
        raise InvalidConfigError(f"{old}: no MaskablePPO MLP policy weights found")
    pi = _widths(state, "mlp_extractor.policy_net.")
    vf = _widths(state, "mlp_extractor.value_net.")
    net_arch: Any = pi if pi == vf else {"pi": pi, "vf": vf}
    features = _features_for(int(state["mlp_extractor.policy_net.0.weight"].shape[1]))
    name = "BattleGainPolicy" if "gain_weights" in state else "MaskableActorCriticPolicy"
    policy = POLICIES[name](
        default_encoder(features).space,
        gym.spaces.Discrete(NUM_ACTIONS),
        lambda _: 0.0,
        net_arch=net_arch,
        activation_fn=ACTIVATIONS[activation],
    )
    arrays = {k: v.detach().cpu().numpy() for k, v in state.items()}
    load_weights(policy, ModelFile(meta={}, policy_state=arrays, path=str(old)))
    save_model(new, policy, features, num_timesteps=0)  # SB3 keeps the count in `data`
    return {"policy": name, "net_arch": net_arch, "features": features}


def main(argv: Sequence[str] | None = None) -> int:
    p = CliParser(prog="python -m perikles_env.training.convert_model")
    p.add_argument("old", help="stable-baselines3 model zip")
    p.add_argument("new", type=output_file, help="model file to write")
    p.add_argument("--activation", required=True, choices=["tanh", "relu"])
    args = p.parse_args(argv)
    try:
        info = convert(args.old, args.new, args.activation)
    except (InvalidConfigError, ModelFileError, OSError, ValueError) as exc:
        print(f"convert_model: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.new}: {info}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
