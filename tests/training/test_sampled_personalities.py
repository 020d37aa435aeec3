"""The ``personalities`` league key (``analysis/params.py``): the heuristic with its knobs
drawn anew for every seat of every game, in the opponent pool of the single-agent env, in the
C++ vector env's league (its draws replayed in Python: tests/native/test_vector_league.py) and
in the PPO config; the same key expert iteration's league uses."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import make_agent
from perikles_env.analysis.params import (
    PERSONALITIES,
    SAMPLED_KNOBS,
    HeuristicParams,
    personality_range,
)
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool, PeriklesSingleAgentEnv
from perikles_env.training.ppo.config import config_from_dict as train_config
from perikles_env.vector.league import HEURISTIC, League, heuristic_params


def test_the_range_spans_the_sampled_knobs_and_fixes_the_others() -> None:
    low, high = personality_range()
    for name in HeuristicParams.names():
        if name in SAMPLED_KNOBS:
            assert (getattr(low, name), getattr(high, name)) == (0.0, 2.0)
        else:
            assert getattr(low, name) == getattr(high, name) == getattr(HeuristicParams(), name)


def test_the_league_hands_c_plus_plus_each_knob_s_two_ends() -> None:
    league = League.of({PERSONALITIES: 1.0, "heuristic:spite=1.5": 1.0, "random": 1.0})
    sampled, fixed, random = league.native()
    low, high = personality_range()
    assert sampled == (HEURISTIC, *low.values(), *high.values())
    spite = heuristic_params("heuristic:spite=1.5").values()
    assert fixed == (HEURISTIC, *spite, *spite)
    assert random[0] == -1 and len(random) == len(sampled)
    with pytest.raises(InvalidConfigError, match="controller names"):
        League.of({PERSONALITIES: 1.0}, controllers=[PERSONALITIES])


def test_the_pool_seats_a_new_personality_in_every_seat() -> None:
    pool = OpponentPool.of({PERSONALITIES: 3.0, "random": 1.0})
    specs = [s for _ in range(50) for s in pool.sample(np.random.default_rng(_), 4)]
    drawn = [s for s in specs if s != "random"]
    assert "random" in specs and PERSONALITIES not in specs
    assert len(set(drawn)) == len(drawn) > 100  # a different player each time
    for spec in drawn:
        params = heuristic_params(spec)
        assert params.noise == 0.0
        assert all(0.0 <= getattr(params, k) <= 2.0 for k in SAMPLED_KNOBS)
        make_agent(spec)  # each one an agent the env can seat
    values = np.array([[getattr(heuristic_params(s), k) for k in SAMPLED_KNOBS] for s in drawn])
    assert (values.min(axis=0) < 0.3).all() and (values.max(axis=0) > 1.7).all()
    again = [s for _ in range(50) for s in pool.sample(np.random.default_rng(_), 4)]
    assert again == specs  # seeded


def test_the_single_agent_env_plays_them() -> None:
    env = PeriklesSingleAgentEnv(num_players=3, opponents=PERSONALITIES)
    tables = []
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        tables.append(tuple(env.seat_specs))
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(legal[0]))
            done = terminated or truncated
        opponents = env.outcome()["opponents"]
        assert len(opponents) == 2 and all(s.startswith("heuristic:aggression=") for s in opponents)
    assert len({s for t in tables for s in t if s != "learner"}) == 6


def test_the_ppo_config_takes_the_key_and_refuses_a_typo() -> None:
    config = train_config({"opponents": {"weights": {PERSONALITIES: 1.0, "heuristic": 1.0}}})
    assert config.opponents.weights[PERSONALITIES] == 1.0
    staged = {"curriculum": [{"until": 10, "weights": {PERSONALITIES: 1.0}}],
              "weights": {"heuristic": 1.0}}
    assert train_config({"opponents": staged}).opponents.curriculum[0].weights == {
        PERSONALITIES: 1.0}
    with pytest.raises(InvalidConfigError, match="personality"):
        train_config({"opponents": {"weights": {"personality": 1.0}}})


def test_the_native_vector_env_seats_them() -> None:
    pytest.importorskip("perikles_env.vector.env")
    from perikles_env.training.ppo.native_vec_env import NativeVecEnv

    env = NativeVecEnv(8, [3, 5], opponents={PERSONALITIES: 1.0, "random": 0.2}, seed=4)
    env.reset()
    seen: set[str] = set()
    for _ in range(400):
        actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        _, _, dones, infos = env.step(actions)
        for done, info in zip(dones, infos, strict=True):
            if done:
                seen.update(info["opponents"])
    assert PERSONALITIES in seen
    env.close()
