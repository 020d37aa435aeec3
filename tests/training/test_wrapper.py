"""The single-agent wrapper (perikles_env/single_agent): env checkers, illegal actions, rewards from
the learner's point of view, seeding, seats and player counts."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import perikles_env.single_agent.env as single_agent_module
from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game
from perikles_env.engine import data as D
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool, PeriklesSingleAgentEnv, RewardConfig


def play_random(env: PeriklesSingleAgentEnv, seed: int, steps: int | None = None):
    """Reset with ``seed`` and take uniformly random legal actions (own generator)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace = [obs]
    total, done, t = 0.0, False, 0
    while not done and (steps is None or t < steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append(obs)
        total += reward
        done = terminated or truncated
        t += 1
    return trace, total, info, t


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_gymnasium_env_checker_passes_with_mixed_pool_and_player_counts():
    env = PeriklesSingleAgentEnv(
        num_players=[3, 4, 5],
        opponents={"random": 1.0, "heuristic": 1.0},
        reward={"vp_margin": 0.5, "shaping": 1.0},
        render_mode="ansi",
    )
    gym_check_env(env)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sb3_env_checker_passes_although_it_samples_unmasked_actions():
    sb3_check_env(PeriklesSingleAgentEnv(), warn=True)


def test_illegal_action_ends_episode_with_penalty_and_changes_nothing():
    env = PeriklesSingleAgentEnv(illegal_action_penalty=-2.5)
    env.reset(seed=3)
    before = env.game.clone()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] is True and "illegal_action_str" in info
    assert env.game == before  # nothing applied, nothing substituted
    assert not env.action_masks().any()
    with pytest.raises(Exception, match="reset"):
        env.step(int(np.flatnonzero(before.legal_actions())[0]))


@pytest.mark.parametrize(
    "bad",
    [-1, NUM_ACTIONS, 3.0, 3.7, "1", "5", None, True, np.True_, np.array([1, 2]),
     np.array([1.0]), np.float64(2.0)],
)
def test_out_of_range_and_wrongly_typed_actions_are_illegal(bad):
    env = PeriklesSingleAgentEnv()
    env.reset(seed=1)
    before = env.game.clone()
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -1.0 and info["illegal_action"]
    assert env.game == before


@pytest.mark.parametrize("wrap", [np.int64, np.int32, np.uint16, np.array, lambda a: np.array([a])])
def test_numpy_integer_actions_are_accepted(wrap):
    """Numpy integers and integer arrays of shape () or (1,) are the
    same action as the plain int (a shape-(1,) array used to raise TypeError)."""
    plain, wrapped = PeriklesSingleAgentEnv(), PeriklesSingleAgentEnv()
    plain.reset(seed=2)
    wrapped.reset(seed=2)
    action = int(np.flatnonzero(plain.action_masks())[0])
    a = plain.step(action)
    b = wrapped.step(wrap(action))
    assert not b[4].get("illegal_action") and not b[2]
    np.testing.assert_array_equal(a[0], b[0])
    assert plain.game == wrapped.game


def test_same_seed_same_episode_and_other_seed_differs():
    env_a = PeriklesSingleAgentEnv(opponents={"random": 1, "heuristic": 1}, num_players=[3, 4, 5])
    env_b = PeriklesSingleAgentEnv(opponents={"random": 1, "heuristic": 1}, num_players=[3, 4, 5])
    trace_a, total_a, info_a, len_a = play_random(env_a, seed=11)
    trace_b, total_b, info_b, len_b = play_random(env_b, seed=11)
    assert len_a == len_b and total_a == total_b and info_a["scores"] == info_b["scores"]
    assert all(np.array_equal(x, y) for x, y in zip(trace_a, trace_b, strict=True))
    trace_c, *_ = play_random(env_b, seed=12, steps=len_a)
    assert any(not np.array_equal(x, y) for x, y in zip(trace_a, trace_c, strict=False))


def test_learner_acts_only_at_its_own_seat_and_episode_has_about_a_quarter_of_decisions():
    env = PeriklesSingleAgentEnv(num_players=4, learner_seat=2)
    env.reset(seed=5)
    steps = decisions = 0
    done = False
    while not done:
        assert env.game.current_player == 2
        a = int(np.flatnonzero(env.action_masks())[0])
        _, _, terminated, truncated, info = env.step(a)
        steps += 1
        decisions += info["decisions"]
        done = terminated or truncated
    assert env.game.is_terminal and terminated
    assert 0.15 < steps / decisions < 0.4  # one seat of four decides ~1/4 of the time


def test_player_counts_and_seats_are_sampled_from_the_seeded_generator():
    env = PeriklesSingleAgentEnv(num_players=[3, 5])
    seen = set()
    for seed in range(40):
        _, info = env.reset(seed=seed)
        assert info["num_players"] in (3, 5) and 0 <= info["learner_seat"] < info["num_players"]
        assert env.game.current_player == info["learner_seat"]
        seen.add((info["num_players"], info["learner_seat"]))
    assert {n for n, _ in seen} == {3, 5} and len(seen) >= 6


def test_opponents_are_drawn_per_seat_from_the_pool():
    pool = OpponentPool(("random", "heuristic"), (1.0, 3.0))
    env = PeriklesSingleAgentEnv(num_players=5, opponents=pool)
    drawn = []
    for seed in range(30):
        env.reset(seed=seed)
        assert env.seat_specs[env.learner] == "learner"
        drawn += [s for i, s in enumerate(env.seat_specs) if i != env.learner]
    share = drawn.count("heuristic") / len(drawn)
    assert len(drawn) == 120 and 0.6 < share < 0.9  # expected 0.75


def test_same_table_share_seats_one_spec_at_every_opponent_seat():
    """``same_table=1``: every episode's opponents are one spec (drawn by weight);
    ``same_table=0`` draws exactly the stream of per-seat draws it always did."""
    specs, weights = ("random", "heuristic", "heuristic:spite=1.5"), (1.0, 2.0, 1.0)
    whole = OpponentPool(specs, weights, same_table=1.0)
    tables = [whole.sample(np.random.default_rng(seed), 4) for seed in range(200)]
    assert all(len(t) == 4 and len(set(t)) == 1 for t in tables)
    share = sum(t[0] == "heuristic" for t in tables) / len(tables)
    assert 0.38 < share < 0.62  # expected 0.5
    plain = OpponentPool(specs, weights)
    for seed in range(20):
        picks = np.random.default_rng(seed).choice(3, size=4, p=plain.probabilities)
        assert plain.sample(np.random.default_rng(seed), 4) == [specs[int(i)] for i in picks]
    half = OpponentPool(specs, weights, same_table=0.5)
    uniform = sum(len(set(half.sample(np.random.default_rng(s), 3))) == 1 for s in range(400))
    # 0.5 whole tables + 0.5 x P(three independent draws agree) = 0.5 + 0.5 x 0.1875
    assert 0.52 < uniform / 400 < 0.68


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", True, float("nan")])
def test_same_table_outside_zero_to_one_is_refused(bad):
    with pytest.raises(InvalidConfigError, match="same_table"):
        OpponentPool(("random", "heuristic"), (1.0, 1.0), same_table=bad)


def test_the_config_hands_same_table_to_the_training_pool():
    pytest.importorskip("yaml")
    from perikles_env.training.ppo.config import config_from_dict
    from perikles_env.training.ppo.self_play_pool import SelfPlayPool

    config = config_from_dict({}, ["opponents.same_table=0.3"])
    assert SelfPlayPool(config.opponents).pool().same_table == 0.3
    with pytest.raises(InvalidConfigError, match="opponents.same_table"):
        config_from_dict({}, ["opponents.same_table=2"])


def test_game_over_before_learner_decides_deals_a_new_game(monkeypatch):
    finished = new_game(GameConfig(num_players=4), seed=0)
    rng = np.random.default_rng(0)
    while not finished.is_terminal:
        finished.apply_action(int(rng.choice(finished.legal_actions())))
    calls = []
    real_new = single_agent_module.new_game

    def fake_new(config, seed, backend=None):
        calls.append(seed)
        return finished.clone() if len(calls) == 1 else real_new(config, seed=seed, backend=backend)

    monkeypatch.setattr(single_agent_module, "new_game", fake_new)
    env = PeriklesSingleAgentEnv()
    env.reset(seed=0)
    assert len(calls) == 2 and not env.game.is_terminal
    assert env.game.current_player == env.learner and env.action_masks().any()


def _last_learner_step(env, seed):
    """Number of learner steps in the seeded random episode (replayed by play_random)."""
    _, _, _, length = play_random(env, seed)
    return length


@pytest.mark.parametrize("learner_wins", [True, False])
@pytest.mark.parametrize("seat", [0, 3])
def test_final_reward_is_the_learners_win_or_loss(learner_wins, seat):
    """B.10: the learner gets +1 when it wins and -1/(n-1) when it loses, whoever moves last.

    The game is replayed to the learner's last decision; then the VP are made lopsided by
    giving the learner (or every opponent) 60 extra cubes in Athens, and the episode ends."""
    kwargs = {"num_players": 4, "learner_seat": seat, "reward": RewardConfig(win=1.0)}
    env = PeriklesSingleAgentEnv(**kwargs)
    length = _last_learner_step(env, seed=21)
    env = PeriklesSingleAgentEnv(**kwargs)
    play_random(env, seed=21, steps=length - 1)
    if hasattr(env.game, "to_python"):  # the native engine's state is read-only
        env.game = env.game.to_python()
    g = env.game
    for p in range(4):
        if (p == seat) == learner_wins:
            g.cubes[D.ATHENS * 5 + p] += 60
    rng = np.random.default_rng(0)
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(env.action_masks())))
        )
        assert not truncated
    assert g.is_terminal
    assert (seat in info["winners"]) == learner_wins
    assert reward == pytest.approx(1.0 if learner_wins else -1.0 / 3)
    assert info["win_share"] == (1.0 if learner_wins else 0.0)


def test_vp_margin_and_shaping_rewards_follow_the_learners_vp():
    cfg = RewardConfig(win=0.0, vp_margin=1.0, shaping=1.0, vp_scale=10.0)
    env = PeriklesSingleAgentEnv(num_players=3, learner_seat=1, reward=cfg)
    _, total, info, _ = play_random(env, seed=4)
    scores = info["scores"]
    margin = max(-1.0, min(1.0, (scores[1] - max(scores[0], scores[2])) / 10.0))
    # shaping telescopes to -phi(first decision) (phi(terminal) = 0)
    env.reset(seed=4)
    start = env.game.scores()
    phi0 = (start[1] - (start[0] + start[2]) / 2) / 10.0
    assert total == pytest.approx(margin - phi0)


def test_win_reward_is_zero_sum_over_seats():
    g = new_game(GameConfig(num_players=5), seed=9)
    rng = np.random.default_rng(1)
    while not g.is_terminal:
        g.apply_action(int(rng.choice(g.legal_actions())))
    from perikles_env.environment.rewards import win_reward

    assert sum(win_reward(g, p) for p in range(5)) == pytest.approx(0.0)


def test_action_masks_work_through_subproc_vec_env():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from perikles_env.single_agent import make_env_fn

    vec = SubprocVecEnv([make_env_fn(i, num_players=4) for i in range(2)])
    try:
        vec.seed(0)
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, NUM_ACTIONS) and masks.dtype == bool
        assert masks.any(axis=1).all()
        obs, *_ = vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        assert obs.shape[0] == 2
    finally:
        vec.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 6},
        {"num_players": []},
        {"num_players": "4"},
        {"learner_seat": 3, "num_players": [3, 4]},
        {"opponents": "nobody"},
        {"opponents": {"random": -1.0}},
        {"reward": {"win": 0.0, "vp_margin": 0.0}},
        {"reward": {"bonus": 1.0}},
        {"max_decisions": 0},
        {"max_decisions": 2.5},
        {"illegal_action_penalty": "x"},
        {"illegal_action_penalty": float("nan")},
        {"illegal_action_penalty": True},
        {"render_mode": "human"},
    ],
)
def test_bad_wrapper_options_raise_invalid_config(kwargs):
    with pytest.raises(InvalidConfigError):
        PeriklesSingleAgentEnv(**kwargs)


def test_truncation_after_max_decisions():
    env = PeriklesSingleAgentEnv(max_decisions=30)
    env.reset(seed=0)
    done = truncated = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert truncated and not terminated and not env.game.is_terminal
    assert info["terminal"] is False and info["truncated"] is True and info["winners"] == []


def test_engine_decision_limit_is_a_truncation_not_an_error():
    """Opponents that drag a game past MAX_GAME_DECISIONS end the episode as truncated
    (the engine's ``Game.is_truncated``), with no exception."""
    from perikles_env.engine import MAX_GAME_DECISIONS
    from tests.training.stalling import register, stalling_action

    truncations = 0
    for seed in range(3):
        env = PeriklesSingleAgentEnv(num_players=5, opponents=register())
        env.reset(seed=seed)
        done = False
        while not done:
            action = stalling_action(env.game)
            assert env.action_masks()[action]
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        if truncated:
            truncations += 1
            assert env.game.is_truncated and env.game.decisions >= MAX_GAME_DECISIONS
            assert info["truncated"] and info["win_share"] == 0.0
    assert truncations > 0
