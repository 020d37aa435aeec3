"""The battle-gain policy (``ppo.action_head: battle``, ``agents/ppo_policy.py``): its
columns point at each placement's gains, its PLACE logits add the weighted gains, and a
model with it saves and plays as ``ppo:<path>``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from perikles_env.agents.ppo_file import save_model
from perikles_env.engine import actions as A


def _tiny_model(features=(), **ppo):
    from perikles_env.training.ppo.config import config_from_dict
    from perikles_env.training.ppo.train import make_model, make_vec_env

    config = config_from_dict(
        {
            "train": {"n_envs": 1, "vec_env": "dummy"},
            "ppo": {"net_arch": [32, 16], **ppo},
            "env": {"features": list(features)},
        }
    )
    env = make_vec_env(config, "random")
    try:
        return make_model(config, env, None)
    finally:
        env.close()


def _assert_saved_model_plays_legally(model, tmp_path, decisions=60):
    from perikles_env.agents import make_agent
    from perikles_env.engine import GameConfig, new_game

    features = ["battle"] if model.policy.__class__.__name__ == "BattleGainPolicy" else []
    save_model(tmp_path / "m.zip", model.policy, features, model.num_timesteps)
    agent = make_agent(f"ppo:{tmp_path / 'm.zip'}")
    assert type(agent.policy) is type(model.policy)
    game = new_game(GameConfig(num_players=4), seed=1)
    rng = np.random.default_rng(0)
    for _ in range(decisions):  # a stretch of a game, the model playing every seat
        action = agent.act_state(game.clone(), game.current_player, rng)
        assert game.is_legal(action)
        game.apply_action(action)


def test_battle_gain_columns_point_at_the_placements_gains():
    from perikles_env.agents.ppo_policy import battle_gain_columns
    from perikles_env.analysis.battle_features import FEATURES, PER_SLOT
    from perikles_env.analysis.observation import observation_size
    from perikles_env.engine import data as D

    columns, weights, is_place = battle_gain_columns()
    assert len(columns) == A.NUM_ACTIONS
    hoplite = D.class_id(D.MILITARY_CITY_NAMES.index("argos"), D.HOPLITE, 2)
    trireme = D.class_id(D.MILITARY_CITY_NAMES.index("athens"), D.TRIREME, 3)
    base = observation_size()
    for klass, slot, side, names, weight in (
        (hoplite, 3, A.ATTACK, ("gain_att_H_1", "gain_att_H_2"), 0),
        (trireme, 6, A.DEFEND, ("gain_def_T_1", "gain_def_T_2"), 3),
    ):
        action = A.place(klass, slot, side)
        assert columns[action] == [base + slot * PER_SLOT + FEATURES.index(n) for n in names]
        assert weights[action] == weight and is_place[action] == 1
    assert is_place[A.END_STEP] == 0
    assert sum(is_place) == sum(1 for a in range(A.NUM_ACTIONS) if A.decode(a)[0] == "PLACE")


def test_battle_head_adds_weighted_gains_to_place_logits_only(tmp_path):
    """``logit = flat head + w[side, type] · 7 · (gain_1, gain_2)`` for PLACE ids; every other
    id keeps the flat head's logit. Checked on a real commit observation with nonzero gains."""
    from perikles_env.agents.ppo_policy import BattleGainPolicy
    from perikles_env.analysis.encoding import default_encoder
    from perikles_env.engine import GameConfig, new_game
    from perikles_env.engine.phases import Phase

    model = _tiny_model(features=["battle"], action_head="battle")
    policy = model.policy
    assert isinstance(policy, BattleGainPolicy)
    optimised = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert id(policy.gain_weights) in optimised
    encode = default_encoder(["battle"]).encode
    rng = np.random.default_rng(0)
    game = new_game(GameConfig(num_players=4), seed=2)
    obs = None
    while obs is None or not any(
        o != 0 for o in obs[policy.gain_columns[policy.is_place.bool()].flatten()]
    ):
        legal = game.legal_actions()
        game.apply_action(legal[int(rng.integers(len(legal)))])
        if game.phase == Phase.COMMIT:
            obs = torch.as_tensor(encode(game, game.current))
    with torch.no_grad():
        policy.gain_weights.copy_(torch.arange(8, dtype=torch.float32).view(4, 2))
        logits = policy.get_distribution(obs[None]).distribution.logits[0]
        flat = policy.action_net(policy.mlp_extractor.forward_actor(obs[None]))[0]
        flat = torch.log_softmax(flat, -1)
        logits = torch.log_softmax(logits, -1)
    columns, weights, is_place = (policy.gain_columns, policy.gain_weight_index, policy.is_place)
    extra = torch.zeros(A.NUM_ACTIONS)
    for a in range(A.NUM_ACTIONS):
        if is_place[a]:
            w = policy.gain_weights[weights[a]]
            extra[a] = 7.0 * (w[0] * obs[columns[a][0]] + w[1] * obs[columns[a][1]])
    assert extra.abs().sum() > 0
    shift = torch.logsumexp(flat + extra, -1) - torch.logsumexp(flat, -1)
    assert torch.allclose(logits, flat + extra - shift, atol=1e-5)
    _assert_saved_model_plays_legally(model, tmp_path)


def test_masked_probs_are_the_distributions_probabilities_for_every_head():
    """The agents' fast path (``masked_probs``) gives, bit for bit, the probabilities of
    ``get_distribution`` and the action ``predict(deterministic=True)`` picks, for the
    flat, battle and scoring heads, on many observations from real games."""
    from perikles_env.agents.ppo_policy import masked_probs
    from perikles_env.analysis.encoding import default_encoder
    from perikles_env.engine import GameConfig, new_game

    heads = {"flat": (), "battle": ("battle",), "scoring": ("battle", "actions")}
    for head, features in heads.items():
        policy = _tiny_model(features=features, action_head=head).policy
        policy.set_training_mode(False)
        encode = default_encoder(list(features)).encode
        rng = np.random.default_rng(3)
        observations, masks = [], []
        for seed in range(3):
            game = new_game(GameConfig(num_players=4), seed=seed)
            for _ in range(40):
                legal = game.legal_actions()
                mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
                mask[legal] = True
                observations.append(encode(game, game.current))
                masks.append(mask)
                game.apply_action(legal[int(rng.integers(len(legal)))])
        obs, mask = torch.as_tensor(np.stack(observations)), torch.as_tensor(np.stack(masks))
        with torch.no_grad():
            expected = policy.get_distribution(obs, action_masks=mask).distribution.probs
            fast = masked_probs(policy, obs, mask)
        assert torch.equal(fast, expected), head
        predicted, _ = policy.predict(obs.numpy(), action_masks=mask.numpy(), deterministic=True)
        assert fast.argmax(dim=1).tolist() == np.asarray(predicted).tolist(), head
        assert bool(mask[torch.arange(len(mask)), fast.argmax(dim=1)].all()), head


def test_a_shared_trunk_is_computed_once_and_its_model_file_plays_the_same(tmp_path):
    """``ppo.trunk``: the policy and the value read one shared first network (its layers
    are in the optimizer once); the model file records the trunk and rebuilds the same
    policy (same probabilities); a trunk with another head is refused."""
    import gymnasium as gym

    from perikles_env.agents.ppo_file import load_policy, save_model
    from perikles_env.agents.ppo_policy import ActionScoringPolicy, TrunkMlpExtractor, masked_probs
    from perikles_env.analysis.encoding import default_encoder
    from perikles_env.engine import NUM_ACTIONS
    from perikles_env.errors import InvalidConfigError
    from perikles_env.training.ppo.config import load_config

    features = ["battle", "actions"]
    torch.manual_seed(0)
    policy = ActionScoringPolicy(
        default_encoder(features).space, gym.spaces.Discrete(NUM_ACTIONS), lambda _: 1e-3,
        net_arch={"pi": [24], "vf": [8]}, activation_fn=torch.nn.ReLU, trunk=[32],
    )
    extractor = policy.mlp_extractor
    assert isinstance(extractor, TrunkMlpExtractor)
    assert (extractor.latent_dim_pi, extractor.latent_dim_vf) == (24, 8)
    assert extractor.policy_net[0].in_features == extractor.value_net[0].in_features == 32
    params = [id(p) for group in policy.optimizer.param_groups for p in group["params"]]
    assert len(params) == len(set(params)) == len(list(policy.parameters()))
    obs = torch.rand(5, default_encoder(features).space.shape[0])
    masks = torch.rand(5, NUM_ACTIONS) < 0.3
    with torch.no_grad():
        pi, vf = extractor(policy.extract_features(obs))
        torch.testing.assert_close(pi, extractor.forward_actor(policy.extract_features(obs)))
        torch.testing.assert_close(vf, extractor.forward_critic(policy.extract_features(obs)))
        path = save_model(tmp_path / "trunk.zip", policy, features, num_timesteps=1)
        loaded, model = load_policy(path)
        assert model.meta["policy"]["trunk"] == [32]
        assert torch.equal(masked_probs(loaded, obs, masks), masked_probs(policy, obs, masks))
    smoke = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
    with pytest.raises(InvalidConfigError, match="ppo.trunk"):
        load_config(smoke, ["ppo.trunk=[16]", "ppo.action_head=flat"])
