"""Seeded rollouts of every adapter over the shared step semantics (environment/rewards.py,
single_agent/learner_table.py) against fixed digests: the same seeds must keep giving the same
actions, rewards, ends, decision counts and outcomes, on both engines. A digest covers no
observation, so a change of the observation layout leaves them alone; a change of the rules,
the opponent loop, the rewards or a seed stream does not. ``python -m
tests.env.test_adapter_rollouts`` prints the digests of the current code."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pytest

from perikles_env.engine.backend import native_available

BACKENDS = ["python", pytest.param("native", marks=pytest.mark.skipif(
    not native_available(), reason="C++ core not built"))]

AEC = {"win": "3b4a81e7b0b52b42", "rank": "2da87febd35eed2d", "vp": "4997cfd1fd47793d",
       "penalize": "487c12a110b01821"}
SINGLE_AGENT = {"win_random": "21f04f4cbe442ccf", "mixed": "e3d3d6bd713780b8",
                "seatless": "fcfbbb39799d1043"}
NATIVE_VEC = {"shaped": "eeb207b6dadd9c33", "win": "4f3ed0e96391f071",
              "cut": "4a92ee955c852c38"}
RLLIB = {"all": "8b8407a34c655af9", "opp": "399708dbd058ed3f", "cut": "49e194b01a0ff118"}


def digest(items: Any) -> str:
    text = json.dumps(items, default=lambda o: o.tolist() if hasattr(o, "tolist") else repr(o))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def aec_digests(backend: str) -> dict[str, str]:
    from perikles_env.environment import env

    out = {}
    for mode in ("win", "rank", "vp"):
        e = env(num_players=4, reward=mode, backend=backend)
        rng = np.random.default_rng(5)
        trace: list[Any] = []
        for episode in range(2):
            e.reset(seed=11 + episode)
            for agent in e.agent_iter():
                obs, reward, terminated, truncated, _ = e.last()
                trace.append((agent, reward, terminated, truncated))
                if terminated or truncated:
                    e.step(None)
                    continue
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                trace.append(action)
                e.step(action)
        out[mode] = digest(trace)
    e = env(num_players=3, illegal_action="penalize", illegal_penalty=-3.0, backend=backend)
    e.reset(seed=2)
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    out["penalize"] = digest([(a, e.rewards[a], e.terminations[a]) for a in e.agents])
    return out


SINGLE_AGENT_CONFIGS: dict[str, dict[str, Any]] = {
    "win_random": {"num_players": 4},
    "mixed": {"num_players": [3, 4, 5], "opponents": {"random": 1.0, "heuristic": 1.0},
              "reward": {"win": 1.0, "vp_margin": 0.5, "shaping": 1.0}},
    "seatless": {"num_players": 3, "learner_seat": None, "opponents": "heuristic",
                 "reward": "vp_margin", "max_decisions": 150},
}


def single_agent_digests(backend: str) -> dict[str, str]:
    from perikles_env.single_agent import PeriklesSingleAgentEnv

    out = {}
    for name, kwargs in SINGLE_AGENT_CONFIGS.items():
        e = PeriklesSingleAgentEnv(backend=backend, **kwargs)
        rng = np.random.default_rng(7)
        trace: list[Any] = []
        for episode in range(3):
            _, info = e.reset(seed=100 + episode)
            trace.append((info["learner_seat"], info["num_players"], info["opponent_decisions"]))
            done = False
            while not done:
                action = int(rng.choice(np.flatnonzero(e.action_masks())))
                _, reward, terminated, truncated, info = e.step(action)
                done = terminated or truncated
                trace.append((action, reward, terminated, truncated, info["decisions"]))
            keys = ("scores", "winners", "win_share", "truncated", "opponents")
            trace.append({k: info[k] for k in keys})
        out[name] = digest(trace)
    return out


NATIVE_VEC_CONFIGS: dict[str, dict[str, Any]] = {
    "shaped": {"num_players": [3, 4, 5], "learner_seat": None,
               "reward": {"win": 1.0, "vp_margin": 0.5, "shaping": 1.0}},
    "win": {"num_players": 4},
    "cut": {"num_players": 4, "max_decisions": 80, "reward": {"win": 1.0, "shaping": 0.5}},
}


def native_vec_digests() -> dict[str, str]:
    from perikles_env.training.ppo.native_vec_env import NativeVecEnv

    out = {}
    for name, kwargs in NATIVE_VEC_CONFIGS.items():
        vec = NativeVecEnv(4, seed=3, **kwargs)
        vec.reset()
        rng = np.random.default_rng(1)
        trace = []
        for _ in range(400):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()])
            vec.step_async(actions)
            _, rewards, dones, infos = vec.step_wait()
            shown = [sorted((k, v) for k, v in i.items() if k != "terminal_observation")
                     for i in infos]
            trace.append((actions, rewards, dones, shown))
        out[name] = digest(trace)
    return out


RLLIB_CONFIGS: dict[str, dict[str, Any]] = {
    "all": {"num_players": 3},
    "opp": {"num_players": 4, "opponent_seats": 2, "opponents": {"random": 1, "heuristic": 1},
            "reward": "rank"},
    "cut": {"num_players": 4, "opponent_seats": 3, "max_decisions": 120},
}


def rllib_digests() -> dict[str, str]:
    from perikles_env.training.rllib.env import PeriklesMultiAgentEnv

    out = {}
    for name, config in RLLIB_CONFIGS.items():
        e = PeriklesMultiAgentEnv(config)
        rng = np.random.default_rng(4)
        trace: list[Any] = []
        for episode in range(3):
            obs, _ = e.reset(seed=20 + episode)
            trace.append((sorted(obs), e.seat_specs, e.decisions))
            while True:
                ((agent, o),) = obs.items()
                action = int(rng.choice(np.flatnonzero(o["action_mask"])))
                obs, rewards, terminateds, truncateds, _ = e.step({agent: action})
                trace.append((action, sorted(rewards.items()), sorted(terminateds.items()),
                              sorted(truncateds.items())))
                if terminateds["__all__"] or truncateds["__all__"]:
                    break
            trace.append(e.decisions)
        out[name] = digest(trace)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_aec_env_rollouts_are_unchanged(backend):
    assert aec_digests(backend) == AEC


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_agent_env_rollouts_are_unchanged(backend):
    assert single_agent_digests(backend) == SINGLE_AGENT


def test_native_vec_env_rollouts_are_unchanged():
    from perikles_env.training.ppo.native_vec_env import native_vec_available

    if not native_vec_available():
        pytest.skip("the C++ vector env is not built")
    assert native_vec_digests() == NATIVE_VEC


def test_rllib_env_rollouts_are_unchanged():
    pytest.importorskip("ray.rllib")
    assert rllib_digests() == RLLIB


if __name__ == "__main__":
    print(json.dumps({"aec": aec_digests("python"), "single_agent": single_agent_digests("python"),
                      "native_vec": native_vec_digests()}, indent=1))
