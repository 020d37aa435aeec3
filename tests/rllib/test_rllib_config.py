"""The RLlib trainer's YAML schema and the PPOConfig built from it."""

import pytest

from perikles_env.errors import InvalidConfigError
from perikles_env.training.rllib.config import from_dict, load_config
from perikles_env.training.rllib.train import build_algorithm_config, parse_args, shared_policy


@pytest.mark.parametrize("name", ["rllib_tiny", "configs/rllib_default.yaml"])
def test_shipped_configs_load(name):
    cfg = load_config(name)
    assert cfg.name == name.split("/")[-1].removesuffix(".yaml")


def test_the_algorithm_config_is_the_new_stack_masked_shared_policy():
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    cfg = load_config("configs/rllib_default.yaml", {"opponent_seats": 1, "lambda": 0.9})
    algo = build_algorithm_config(cfg)
    assert algo.enable_rl_module_and_learner and algo.enable_env_runner_and_connector_v2
    assert not algo.disable_env_checking
    assert set(algo.policies) == {"shared"}
    assert {shared_policy(f"player_{i}", None) for i in range(5)} == {"shared"}
    spec = algo.rl_module_spec.rl_module_specs["shared"]
    assert spec.module_class is ActionMaskingTorchRLModule
    assert spec.model_config["fcnet_hiddens"] == cfg.hidden
    assert spec.model_config["fcnet_activation"] == cfg.activation
    assert algo.env_config["opponent_seats"] == 1
    assert algo.env_config["opponents"] == {"random": 1.0}
    assert algo.lambda_ == 0.9 and algo.train_batch_size_per_learner == cfg.train_batch_size


@pytest.mark.parametrize(
    "data,match",
    [
        ({"iterations": 1, "colour": 1}, "unknown key"),
        ({}, "at least one of"),
        ({"iterations": 0}, "iterations"),
        ({"iterations": 1, "num_players": 4.5}, "num_players"),
        ({"iterations": 1, "opponent_seats": 4}, "opponent_seats"),
        ({"iterations": 1, "opponents": "dragon"}, "dragon"),
        ({"iterations": 1, "opponents": "heuristic"}, "opponent_seats > 0"),
        ({"iterations": 1, "opponent_seats": 1, "opponents": "rllib:/nowhere"}, "not found"),
        ({"iterations": 1, "minibatch_size": 9000}, "minibatch_size"),
        ({"iterations": 1, "hidden": []}, "hidden"),
        ({"iterations": 1, "gamma": 1.5}, "gamma"),
        ({"iterations": 1, "activation": "gelu"}, "activation"),
        ({"iterations": 1, "eval_opponents": ["heuristic:nerve=2"]}, "eval_opponents"),
    ],
)
def test_bad_values_name_the_key(data, match):
    with pytest.raises(InvalidConfigError, match=match):
        from_dict(data)


def test_address_is_the_only_switch_to_a_cluster():
    args = parse_args(["--config", "rllib_tiny", "--address", "auto"])
    assert args.address == "auto" and not args.resume
    assert parse_args(["--config", "rllib_tiny"]).address is None
