"""The RLlib tests need the ``rllib`` extra (``make test-rllib`` installs it and runs them);
without ray they are skipped, so the default ``make test`` stays light."""

import importlib.util

import pytest

collect_ignore_glob = [] if importlib.util.find_spec("ray") else ["test_*.py"]


@pytest.fixture(scope="session")
def policy_dir(tmp_path_factory):
    """An untrained masking module exported as a checkpoint's policy files."""
    import torch

    from perikles_env.agents.rllib_policy import build_module, export_policy
    from perikles_env.analysis.observation import observation_size

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("ckpt")
    module = build_module(observation_size(), [16], "relu")
    export_policy({k: v.numpy() for k, v in module.state_dict().items()}, folder, [16], "relu")
    return folder
