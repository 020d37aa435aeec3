"""``python -m perikles_env.training.convert_model``: an SB3 zip becomes a pickle-free model
file with the same network, and converting never unpickles the zip's ``data`` entry."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from perikles_env.agents import make_agent
from perikles_env.single_agent import PeriklesSingleAgentEnv
from perikles_env.training.convert_model import main


class _Payload:
    def __init__(self, marker):  # noqa: ANN001
        self.marker = str(marker)

    def __reduce__(self):  # noqa: ANN204
        return (open, (self.marker, "w"))


def test_sb3_zip_converts_to_the_same_network_without_running_its_data(tmp_path):
    env = PeriklesSingleAgentEnv(num_players=3, opponents="random", features=["battle"])
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16, 8], "activation_fn": torch.nn.ReLU})
    model.learn(total_timesteps=32)
    model.save(tmp_path / "sb3.zip")
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil_sb3.zip"  # the same tensors, a payload in `data`
    with zipfile.ZipFile(tmp_path / "sb3.zip") as src, zipfile.ZipFile(evil, "w") as dst:
        for name in src.namelist():
            if name == "data":
                blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
                data = {"policy_class": {":type:": "<class 'type'>", ":serialized:": blob}}
                dst.writestr(name, json.dumps(data))
            else:
                dst.writestr(name, src.read(name))

    assert main([str(evil), str(tmp_path / "new.zip"), "--activation", "relu"]) == 0
    assert not marker.exists()
    agent = make_agent(f"ppo:{tmp_path / 'new.zip'}")
    assert agent.features == ["battle"]
    obs, _ = env.reset(seed=4)
    with torch.no_grad():
        a = model.policy.get_distribution(torch.as_tensor(obs[None])).distribution.logits
        b = agent.policy.get_distribution(torch.as_tensor(obs[None])).distribution.logits
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=0)


def test_not_an_sb3_zip_is_an_error(tmp_path, capsys):
    (tmp_path / "x.zip").write_bytes(b"nope")
    assert main([str(tmp_path / "x.zip"), str(tmp_path / "y.zip"), "--activation", "tanh"]) == 2
    assert "convert_model: error" in capsys.readouterr().err
    assert not (tmp_path / "y.zip").exists()
