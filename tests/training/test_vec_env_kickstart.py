"""The batched subprocess vec env (training/vec_env.py) and teacher labels for kickstarting
(training/kickstart.py, the wrapper's ``teacher_action``)."""

from __future__ import annotations

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from perikles_env.agents import register_agent
from perikles_env.agents.base import Agent
from perikles_env.single_agent import PeriklesSingleAgentEnv, make_env_fn
from perikles_env.training.config import config_from_dict
from perikles_env.training.kickstart import KickstartCallback
from perikles_env.training.train import make_model
from perikles_env.training.vec_env import BatchedSubprocVecEnv


class FirstLegal(Agent):
    """Deterministic test teacher: always the lowest legal action id."""

    name = "first_legal"
    uses_state = True

    def act_state(self, game, player, rng):
        return game.legal_actions()[0]


register_agent("first_legal", lambda **kw: FirstLegal())


def _fns(n, **kw):
    kw.setdefault("opponents", {"random": 1, "heuristic": 1})
    return [make_env_fn(i, num_players=[3, 4, 5], **kw) for i in range(n)]


def _run(vec, steps, seed=7):
    vec.seed(seed)
    obs = [vec.reset()]
    masks = [np.stack(vec.env_method("action_masks"))]
    rewards, dones = [], []
    rng = np.random.default_rng(0)
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks[-1]])
        o, r, d, infos = vec.step(actions)
        obs.append(o)
        rewards.append(r)
        dones.append(d)
        masks.append(np.stack(vec.env_method("action_masks")))
    return obs, masks, rewards, dones


def test_batched_vec_env_matches_dummy_vec_env_step_for_step():
    """Same seeds, same actions: identical observations, masks, rewards and episode ends,
    including automatic resets (5 envs over 2 worker processes)."""
    dummy = DummyVecEnv(_fns(5))
    batched = BatchedSubprocVecEnv(_fns(5), workers=2)
    try:
        a, b = _run(dummy, 150), _run(batched, 150)
        for x, y in zip(a, b, strict=True):
            for u, v in zip(x, y, strict=True):
                np.testing.assert_array_equal(u, v)
        assert np.any(a[3])  # some episode ended and was reset inside the run
        assert batched.get_attr("player_counts")[0] == (3, 4, 5)
        batched.env_method("set_opponents", "random")
        assert batched.get_attr("pool")[4].specs == ("random",)
    finally:
        dummy.close()
        batched.close()


def test_has_attr_is_answered_in_the_workers_without_shipping_the_attribute(monkeypatch):
    """MaskablePPO checks ``has_attr("action_masks")`` before every rollout; fetching the
    bound method would pickle each env with its loaded opponents (a 4x slowdown)."""
    batched = BatchedSubprocVecEnv(_fns(3), workers=2)
    try:
        def no_fetch(*args, **kwargs):
            raise AssertionError("has_attr must not fetch attributes")

        monkeypatch.setattr(batched, "get_attr", no_fetch)
        assert batched.has_attr("action_masks") is True
        assert batched.has_attr("no_such_attribute") is False
        from sb3_contrib.common.maskable.utils import is_masking_supported

        assert is_masking_supported(batched)
    finally:
        batched.close()


def test_teacher_action_is_the_teachers_choice_and_does_not_change_the_episode():
    plain = PeriklesSingleAgentEnv(opponents="heuristic")
    taught = PeriklesSingleAgentEnv(opponents="heuristic", teacher="heuristic")
    o1, _ = plain.reset(seed=3)
    o2, _ = taught.reset(seed=3)
    assert plain.teacher_action() == -1
    for _ in range(30):
        label = taught.teacher_action()
        assert taught.action_masks()[label]  # a legal action
        assert taught.teacher_action() == label  # asked twice, same answer
        action = int(np.flatnonzero(plain.action_masks())[-1])
        o1, r1, d1, _, _ = plain.step(action)
        o2, r2, d2, _, _ = taught.step(action)
        np.testing.assert_array_equal(o1, o2)  # the teacher draws from its own generator
        assert r1 == r2 and d1 == d2
        if d1:
            break


@pytest.mark.parametrize("kind", ["dummy", "batched"])
def test_kickstart_labels_line_up_with_the_rollout(kind):
    """Each stored label is the teacher's choice for the observation in that buffer row:
    with the 'first legal action' teacher, the label is the first allowed action of the
    row's mask; after distillation the policy agrees with the teacher more often."""
    config = config_from_dict(
        {
            "train": {"n_envs": 3, "vec_env": "dummy"},
            "ppo": {"n_steps": 64, "batch_size": 64, "net_arch": [32]},
            "teacher": {"spec": "first_legal", "until": 10_000, "epochs": 3,
                        "learning_rate": 3e-3},
        }
    )
    fns = _fns(3, teacher="first_legal", opponents="random")
    if kind == "dummy":
        vec = DummyVecEnv(fns)
    else:
        vec = BatchedSubprocVecEnv(fns, workers=2, start_method="fork")
    try:
        model = make_model(config, vec, None)
        kick = KickstartCallback(10_000, 3, 64, 3e-3)
        model.learn(total_timesteps=64 * 3 * 3, callback=kick)
        buf = model.rollout_buffer
        assert buf.generator_ready  # PPO's update flattened the buffer env-major: [env, step]
        first = buf.action_masks.argmax(axis=1)
        np.testing.assert_array_equal(kick.labels.T.reshape(-1), first)
        assert kick.last["teacher_weight"] < 1.0
        assert kick.last["teacher_agreement"] > 0.3
    finally:
        vec.close()
