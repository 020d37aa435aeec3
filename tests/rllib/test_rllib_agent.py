"""The ``rllib:<checkpoint>`` agent: registry spec, pickle-free policy files, masked play."""

import json

import numpy as np
import pytest
import torch

from perikles_env.agents import AgentError, make_agent, parse_spec
from perikles_env.agents.rllib import RLlibAgent
from perikles_env.agents.rllib_policy import META_FILE, WEIGHTS_FILE
from perikles_env.engine import GameConfig, new_game
from perikles_env.errors import InvalidConfigError


def test_spec_takes_a_path_then_options():
    assert parse_spec("rllib:runs/x/checkpoints/iter_000002,deterministic=false") == (
        "rllib",
        {"path": "runs/x/checkpoints/iter_000002", "deterministic": False},
    )
    with pytest.raises(AgentError, match="checkpoint folder"):
        make_agent("rllib:")
    with pytest.raises(AgentError, match="not found"):
        make_agent("rllib:/no/such/folder")
    with pytest.raises(AgentError, match="deterministic"):
        RLlibAgent(".", deterministic="yes")


def test_registry_builds_the_agent_and_describe_round_trips(policy_dir):
    agent = make_agent(f"rllib:{policy_dir},deterministic=false")
    assert isinstance(agent, RLlibAgent) and not agent.deterministic
    assert make_agent(agent.describe()).describe() == agent.describe()


def test_plays_only_legal_actions_and_argmax_when_deterministic(policy_dir):
    agent = make_agent(f"rllib:{policy_dir}")
    sampler = make_agent(f"rllib:{policy_dir},deterministic=false")
    game = new_game(GameConfig(num_players=4, record_events=False), seed=7)
    rng = np.random.default_rng(0)
    for _ in range(60):
        legal = game.legal_actions()
        player = game.current
        choice = agent.act_state(game, player, rng)
        assert choice in legal
        obs = agent._encode(game, player)
        mask = np.zeros(agent.module.action_space.n, dtype=np.int8)
        mask[legal] = 1
        probs = agent.probabilities(obs, mask)
        assert probs.sum() == pytest.approx(1.0)
        assert probs[mask == 0].max() == 0.0
        assert choice == int(np.argmax(probs))
        sampled = sampler.act_state(game, player, rng)
        assert sampled in legal
        game.apply_action(sampled)


def test_sampling_is_reproducible_for_a_seed(policy_dir):
    agent = make_agent(f"rllib:{policy_dir},deterministic=false")
    game = new_game(GameConfig(num_players=3, record_events=False), seed=1)
    first = [agent.act_state(game, game.current, np.random.default_rng(s)) for s in range(5)]
    again = [agent.act_state(game, game.current, np.random.default_rng(s)) for s in range(5)]
    assert first == again


def test_missing_or_foreign_policy_files_raise(policy_dir, tmp_path):
    with pytest.raises(AgentError, match="no exported policy"):
        make_agent(f"rllib:{tmp_path}")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / WEIGHTS_FILE).write_bytes((policy_dir / WEIGHTS_FILE).read_bytes())
    meta = json.loads((policy_dir / META_FILE).read_text())
    meta["layout"]["fingerprint"] = "0" * 64  # trained on another observation layout
    (bad / META_FILE).write_text(json.dumps(meta))
    game = new_game(GameConfig(num_players=4, record_events=False), seed=0)
    with pytest.raises(InvalidConfigError, match="another observation layout"):
        RLlibAgent(str(bad)).act_state(game, game.current, np.random.default_rng(0))


def test_weights_are_read_without_unpickling_code(policy_dir):
    # weights_only=True refuses anything but tensors and plain containers
    state = torch.load(policy_dir / WEIGHTS_FILE, weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in state.values())


def test_agent_sees_what_the_training_env_showed(policy_dir):
    """act_state (the evaluator's path) encodes exactly the RLlib env's observation and mask,
    so a policy plays as it was trained; act on the env's observation agrees."""
    from perikles_env.training.rllib.env import MASK_KEY, OBS_KEY, PeriklesMultiAgentEnv

    env = PeriklesMultiAgentEnv({"num_players": 4})
    obs, _ = env.reset(seed=5)
    agent = make_agent(f"rllib:{policy_dir}")
    rng = np.random.default_rng(0)
    for _ in range(40):
        ((name, o),) = obs.items()
        game = env._aec.game
        seat = env.possible_agents.index(name)
        choice = agent.act_state(game, seat, rng)
        assert np.array_equal(agent._encode(game, seat), o[OBS_KEY])
        assert agent.act(o, o[MASK_KEY], rng) == choice
        obs, _, terms, _, _ = env.step({name: choice})
        assert not terms["__all__"]  # never penalized: the choice is legal
