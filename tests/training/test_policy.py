"""training/policy.py: the factored action head (``ppo.action_head: factored``) — its
factor groups follow the action table (docs/actions.md), its logits are the per-id term
plus exactly the group terms of each id — the shared first layer (``ppo.shared_layers``),
the mask-reading actor (``ppo.mask_input``) and the fixed observation normalisation
(``ppo.obs_norm``); models with any of them save and play as ``ppo:<path>``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from perikles_env.engine import actions as A
from perikles_env.training.policy import FactoredActionHead, action_factors


def test_place_ids_share_slot_side_city_type_and_class_terms():
    groups = action_factors()
    athens_h3 = 0 * 8 + 0 * 4 + 2  # class = city * 8 + type * 4 + strength - 1
    sparta_t1 = 1 * 8 + 1 * 4 + 0
    a = A.place(athens_h3, 2, 0)
    b = A.place(sparta_t1, 2, 0)
    c = A.place(athens_h3, 5, 1)
    assert groups["place_slot_side"][a] == groups["place_slot_side"][b] == 2 * 2 + 0
    assert groups["place_slot_side"][c] == 5 * 2 + 1
    assert groups["place_city_slot_side"][a] == (0 * 7 + 2) * 2
    assert groups["place_city_slot_side"][b] == (1 * 7 + 2) * 2
    assert groups["place_type_slot_side"][a] == 2 * 2
    assert groups["place_type_slot_side"][b] == (1 * 7 + 2) * 2
    assert groups["place_class"][a] == groups["place_class"][c] == athens_h3
    # other ranges are outside the PLACE groups; PROPOSE splits into city and nominee
    assert groups["place_slot_side"][A.END_STEP] == -1
    propose = A.city_player(A.PROPOSE, 3, 2)
    assert (groups["propose_city"][propose], groups["propose_target"][propose]) == (3, 2)
    assert groups["propose_city"][A.place(athens_h3, 2, 0)] == -1


def test_every_group_index_is_dense():
    for name, indices in action_factors().items():
        used = {i for i in indices if i >= 0}
        assert used == set(range(max(used) + 1)), name


def test_logits_are_per_id_term_plus_the_ids_group_terms():
    torch.manual_seed(0)
    head = FactoredActionHead(8)
    with torch.no_grad():
        for layer in (head.per_id, head.shared):
            layer.weight.normal_()
            layer.bias.normal_()
    latent = torch.randn(2, 8)
    logits = head(latent)
    per_id = head.per_id(latent)
    shared = head.shared(latent)
    offsets, total = {}, 0
    for name, indices in action_factors().items():
        offsets[name] = total
        total += max(indices) + 1
    groups = action_factors()
    for action in (0, A.PROPOSE + 7, A.place(13, 4, 1), A.ASSASSINATE + 40, A.END_STEP):
        expected = per_id[:, action].clone()
        for name, indices in groups.items():
            if indices[action] >= 0:
                expected += shared[:, offsets[name] + indices[action]]
        assert torch.allclose(logits[:, action], expected, atol=1e-5), A.decode(action)
    # an id in no group (END_STEP) is the per-id term alone
    assert torch.allclose(logits[:, A.END_STEP], per_id[:, A.END_STEP])


def _tiny_model(features=(), **ppo):
    from perikles_env.training.config import config_from_dict
    from perikles_env.training.train import make_model, make_vec_env

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
    from perikles_env.engine import Game, GameConfig

    model.save(tmp_path / "m.zip")
    agent = make_agent(f"ppo:{tmp_path / 'm.zip'}")
    game = Game.new(GameConfig(num_players=4), seed=1)
    rng = np.random.default_rng(0)
    for _ in range(decisions):  # a stretch of a game, the model playing every seat
        action = agent.act_state(game.clone(), game.current_player, rng)
        assert game.is_legal(action)
        game.apply_action(action)


def test_factored_model_saves_and_plays_as_ppo_agent(tmp_path):
    model = _tiny_model(action_head="factored")
    assert isinstance(model.policy.action_net, FactoredActionHead)
    # the optimizer trains the new head, not the replaced one
    optimised = {id(p) for group in model.policy.optimizer.param_groups for p in group["params"]}
    assert all(id(p) in optimised for p in model.policy.action_net.parameters())
    assert len(optimised) == len(list(model.policy.parameters()))
    _assert_saved_model_plays_legally(model, tmp_path)


def test_shared_first_layer_model_saves_and_plays_as_ppo_agent(tmp_path):
    from perikles_env.training.policy import SharedMlp

    model = _tiny_model(shared_layers=1)
    assert isinstance(model.policy.features_extractor, SharedMlp)
    assert model.policy.mlp_extractor.policy_net[0].in_features == 32  # after the shared layer
    _assert_saved_model_plays_legally(model, tmp_path)


def test_mask_input_actor_reads_the_mask_and_critic_does_not(tmp_path):
    from perikles_env.training.policy import MaskInputPolicy

    model = _tiny_model(mask_input=True)
    policy = model.policy
    assert isinstance(policy, MaskInputPolicy)
    n_obs, n_actions = policy.observation_space.shape[0], int(policy.action_space.n)
    first = policy.mlp_extractor.policy_net[0]
    assert first.in_features == n_obs + n_actions  # observation + mask
    assert policy.mlp_extractor.value_net[0].in_features == n_obs
    optimised = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert id(first.weight) in optimised and len(optimised) == len(list(policy.parameters()))

    torch.manual_seed(0)
    obs = torch.rand(1, n_obs)
    mask_a = torch.zeros(1, n_actions, dtype=torch.bool)
    mask_a[0, [3, 5, A.END_STEP]] = True
    mask_b = mask_a.clone()
    mask_b[0, 100:400] = True  # more legal actions elsewhere
    actions = torch.tensor([5])
    with torch.no_grad():
        v_a, logp_a, _ = policy.evaluate_actions(obs, actions, mask_a)
        v_b, logp_b, _ = policy.evaluate_actions(obs, actions, mask_b)
        logits_a = policy.get_distribution(obs, mask_a).distribution.logits
        logits_b = policy.get_distribution(obs, mask_b).distribution.logits
    assert torch.equal(v_a, v_b)  # the critic never sees the mask
    assert torch.equal(v_a, policy.predict_values(obs))
    # the same three legal ids get different logits because the mask is an actor input
    kept = [3, 5, A.END_STEP]
    raw_a = logits_a[0, kept] - logits_a[0, kept].logsumexp(0)
    raw_b = logits_b[0, kept] - logits_b[0, kept].logsumexp(0)
    assert not torch.allclose(raw_a, raw_b)
    assert logp_a.item() == logits_a[0, 5].item()
    assert torch.isfinite(logp_b).all() and logp_b.item() < logp_a.item()
    _assert_saved_model_plays_legally(model, tmp_path)


def test_observation_statistics_match_the_layout_of_random_play():
    """The one-hot blocks of the layout give exact statistics: a 4-player game always sets
    ``num_players[1]``, and exactly one of the three turns is set per decision."""
    from perikles_env.analysis.observation import OFFSETS
    from perikles_env.training.policy import observation_statistics

    mean, std = observation_statistics([4], decisions=2_000, seed=3)
    a = OFFSETS["num_players"][0]
    assert mean[a : a + 3] == [0.0, 1.0, 0.0] and std[a + 1] == 0.0
    t0, t1 = OFFSETS["turn"]
    assert sum(mean[t0:t1]) == pytest.approx(1.0)
    assert mean[t0] > 0.2  # random games spend a good share of decisions in turn 1
    assert observation_statistics([4], decisions=500, seed=3) != observation_statistics(
        [4], decisions=500, seed=4
    )


def test_normalized_obs_standardises_with_a_floor_and_clips():
    import gymnasium as gym

    from perikles_env.training.policy import NormalizedObs

    space = gym.spaces.Box(-1.0, 4.0, shape=(3,), dtype=np.float32)
    layer = NormalizedObs(space, mean=[0.5, 0.0, 1.0], std=[0.25, 0.0, 2.0])
    out = layer(torch.tensor([[1.0, 0.05, 2.0], [0.5, 1.0, -1.0]]))
    # (x - mean) / max(std, 0.1), clipped to +-5: 0.5 / 0.25, 0.05 / 0.1, 1 / 2; 0, 10 -> 5, -1
    assert torch.allclose(out, torch.tensor([[2.0, 0.5, 0.5], [0.0, 5.0, -1.0]]))


def test_obs_norm_model_keeps_its_statistics_in_the_saved_model(tmp_path):
    from stable_baselines3.common.save_util import load_from_zip_file

    from perikles_env.training.policy import NormalizedObs

    model = _tiny_model(obs_norm=True)
    extractor = model.policy.features_extractor
    assert isinstance(extractor, NormalizedObs)
    assert extractor.mean.shape == model.policy.observation_space.shape
    _assert_saved_model_plays_legally(model, tmp_path)
    _, params, _ = load_from_zip_file(tmp_path / "m.zip")
    assert torch.equal(params["policy"]["features_extractor.mean"], extractor.mean)


def test_battle_gain_columns_point_at_the_placements_gains():
    from perikles_env.analysis.battle_features import FEATURES, PER_SLOT
    from perikles_env.analysis.observation import observation_size
    from perikles_env.engine import data as D
    from perikles_env.training.policy import battle_gain_columns

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
    from perikles_env.analysis.encoding import default_encoder
    from perikles_env.engine import Game, GameConfig
    from perikles_env.engine.phases import Phase
    from perikles_env.training.policy import BattleGainPolicy

    model = _tiny_model(features=["battle"], action_head="battle")
    policy = model.policy
    assert isinstance(policy, BattleGainPolicy)
    optimised = {id(p) for group in policy.optimizer.param_groups for p in group["params"]}
    assert id(policy.gain_weights) in optimised
    encode = default_encoder(["battle"]).encode
    rng = np.random.default_rng(0)
    game = Game.new(GameConfig(num_players=4), seed=2)
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
