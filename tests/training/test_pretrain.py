"""Behaviour-cloning warm start (training/pretrain.py): demonstration contents and cloning."""

from __future__ import annotations

import numpy as np

from perikles_env.engine import NUM_ACTIONS
from perikles_env.single_agent import OpponentPool, RewardConfig
from perikles_env.training.ppo.pretrain import (
    DemoJob,
    clone_policy,
    collect_demos,
    imitation_accuracy,
    play_demo_game,
)


def test_demo_game_records_teacher_decisions_with_win_returns():
    """With the win reward only and gamma = 1, every recorded decision's return is the
    teacher seat's final win reward: +1 for a win, -1/3 for a loss at 4 players (B.10)."""
    job = DemoJob(5, (4,), "heuristic", OpponentPool.of("random"), RewardConfig(win=1.0), 1.0)
    demos = play_demo_game(job)
    obs, masks, actions, returns = demos.observations(), demos.masks, demos.actions, demos.returns
    wins, seats, best = demos.wins, demos.seats, demos.best
    assert seats == 1 and len(actions) > 30
    assert obs.shape == (len(actions), obs.shape[1]) and obs.dtype == np.float16
    assert masks.shape == (len(actions), NUM_ACTIONS)
    assert masks[np.arange(len(actions)), actions].all()  # every action was legal
    expected = 1.0 if wins == 1.0 else -1.0 / 3
    np.testing.assert_allclose(returns, expected, atol=1e-6)
    assert best[np.arange(len(actions)), actions].all()  # the teacher's pick is a best one
    assert not (best & ~masks).any() and (best.sum(1) > 1).any()  # legal, with some ties


def test_collect_demos_is_deterministic_and_reaches_the_count():
    kw = dict(seed=3, player_counts=(3, 5), teacher="heuristic",
              opponents=OpponentPool.of({"random": 3, "heuristic": 1}),
              reward=RewardConfig(win=1.0, shaping=1.0), gamma=0.99)
    a = collect_demos(100, **kw)
    b = collect_demos(100, **kw)
    assert len(a) >= 100 and a.games >= 1 and a.seats >= a.games
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.returns, b.returns)


def test_cloning_lowers_the_imitation_loss():
    from perikles_env.training.ppo.config import config_from_dict
    from perikles_env.training.ppo.train import make_model, make_vec_env

    demos = collect_demos(300, 1, (4,), "heuristic", OpponentPool.of("random"),
                          RewardConfig(), 0.99)
    config = config_from_dict({"train": {"n_envs": 1, "vec_env": "dummy"},
                               "ppo": {"net_arch": [64]}})
    env = make_vec_env(config, "random")
    try:
        model = make_model(config, env, None)
        before = imitation_accuracy(model.policy, demos)
        history = clone_policy(model.policy, demos, epochs=6, batch_size=64,
                               learning_rate=3e-3, value_weight=0.5, seed=0)
    finally:
        env.close()
    assert history[-1]["policy_loss"] < history[0]["policy_loss"]
    assert history[-1]["value_loss"] < history[0]["value_loss"]
    # the sampled per-epoch accuracy is noisy; the exact one over all demos must rise
    assert imitation_accuracy(model.policy, demos) > before


def test_the_shipped_network_as_teacher_records_its_own_moves():
    """The shipped search network as an imitation teacher (``pretrain.teacher: net``).
    Every seat it plays is recorded, and each recorded action is its highest legal logit on the
    recorded observation, alone in its best set (no ties to learn)."""
    from perikles_env.agents import make_agent

    net = make_agent("net").net
    job = DemoJob(11, (4,), "net", OpponentPool.of({"heuristic": 1, "net": 1}),
                  RewardConfig(), 0.99, net.features)
    demos = play_demo_game(job)
    obs, masks, actions, seats, best = (
        demos.observations(), demos.masks, demos.actions, demos.seats, demos.best
    )
    assert seats >= 1 and len(actions) > 30 * seats
    logits, _ = net.evaluate(obs.astype(np.float32), masks)
    np.testing.assert_array_equal(logits.argmax(axis=1), actions)
    assert (best.sum(axis=1) == 1).all() and best[np.arange(len(actions)), actions].all()


def test_sparse_demos_rebuild_the_encoders_observations_and_clone_alike(monkeypatch):
    """With the per-action block last, a decision keeps its state columns and its scored
    entries only: the dense observation rebuilt from them is the encoder's (float16), and
    the scoring policy's log-probabilities from the sparse entries match the dense path's."""
    import torch

    from perikles_env.agents.ppo_policy import ActionScoringPolicy
    from perikles_env.analysis.encoding import Encoder
    from perikles_env.training.ppo import pretrain
    from perikles_env.training.ppo.config import config_from_dict
    from perikles_env.training.ppo.pretrain import masked_log_probs_of
    from perikles_env.training.ppo.train import make_model, make_vec_env

    features = ("battle", "actions")
    seen: list[np.ndarray] = []
    real = pretrain.game_encoder

    def recording(names):
        encoder = real(names)

        def encode(game, player):
            seen.append(encoder.encode(game, player))
            return seen[-1]

        return Encoder(encode, encoder.space, encoder.features)

    monkeypatch.setattr(pretrain, "game_encoder", recording)
    job = DemoJob(7, (4,), "heuristic", OpponentPool.of("random"), RewardConfig(), 0.99,
                  features)
    demos = play_demo_game(job)  # one teacher seat: decisions in the order encoded
    assert demos.action_block and demos.seats == 1 and len(demos) == len(seen) > 30
    assert demos.entry_counts.sum() > 5 * len(demos)
    dense = demos.observations()
    assert dense.dtype == np.float16
    np.testing.assert_array_equal(dense, np.stack(seen).astype(np.float16))
    assert demos.states.nbytes + demos.entry_features.nbytes < dense.nbytes / 3

    config = config_from_dict({"train": {"n_envs": 1, "vec_env": "dummy"},
                               "env": {"features": list(features)},
                               "ppo": {"net_arch": [32], "action_head": "scoring"}})
    env = make_vec_env(config, "random")
    try:
        policy = make_model(config, env, None).policy
    finally:
        env.close()
    assert isinstance(policy, ActionScoringPolicy)
    index = np.arange(0, len(demos), 3)
    with torch.no_grad():
        sparse, values = masked_log_probs_of(policy, demos, index)
        obs = torch.as_tensor(dense[index], dtype=torch.float32)
        masks = torch.as_tensor(demos.masks[index])
        expected = policy.get_distribution(obs, action_masks=masks).distribution.logits
        expected_values = policy.predict_values(obs).flatten()
    legal = masks.numpy()
    np.testing.assert_allclose(sparse.numpy()[legal], expected.numpy()[legal], atol=1e-5)
    np.testing.assert_allclose(values.numpy(), expected_values.numpy(), atol=1e-6)
