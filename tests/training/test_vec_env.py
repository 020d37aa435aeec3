"""The batched subprocess vec env (training/vec_env.py): same steps as DummyVecEnv, masks
answered from its cache."""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from perikles_env.single_agent import make_env_fn
from perikles_env.training.ppo.vec_env import BatchedSubprocVecEnv


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
