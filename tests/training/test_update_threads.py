"""train.update_threads: more torch threads for PPO's update than for the rollout."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_threads_switch_between_rollout_and_update_and_are_restored():
    from perikles_env.training.ppo.callbacks import UpdateThreadsCallback

    before = torch.get_num_threads()
    callback = UpdateThreadsCallback(rollout_threads=1, update_threads=2)
    try:
        callback.on_rollout_start()
        assert torch.get_num_threads() == 1
        callback.on_rollout_end()
        assert torch.get_num_threads() == 2
        callback.on_rollout_start()
        assert torch.get_num_threads() == 1
        callback.on_rollout_end()
        callback.on_training_end()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_update_threads_is_validated():
    from perikles_env.errors import InvalidConfigError
    from perikles_env.training.ppo.config import config_from_dict

    assert config_from_dict({}).train.update_threads is None
    assert config_from_dict({"train": {"update_threads": 2}}).train.update_threads == 2
    with pytest.raises(InvalidConfigError, match="train.update_threads"):
        config_from_dict({"train": {"update_threads": 0}})
