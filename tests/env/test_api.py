"""PettingZoo conformance, seeding, action types, illegal actions and rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from perikles_env import env, raw_env
from perikles_env.analysis.observation import OBS_SIZE
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game
from perikles_env.environment import ENV_ID, final_rewards
from perikles_env.errors import IllegalActionError, InvalidConfigError


def play_random(e, seed: int, max_steps: int = 10_000, numpy_ints: bool = False) -> list[int]:
    rng = np.random.default_rng(seed)
    actions = []
    for _agent in e.agent_iter(max_steps):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert np.array_equal(legal, np.flatnonzero(info["action_mask"]))
        a = rng.choice(legal)
        actions.append(int(a))
        e.step(a if numpy_ints else int(a))
    return actions


@pytest.mark.parametrize("n", [3, 4, 5])
def test_pettingzoo_api_test(n: int) -> None:
    api_test(env(num_players=n, seed=n), num_cycles=400)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_pettingzoo_seed_test(n: int) -> None:
    seed_test(lambda: env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_spaces_identical_for_every_player_count(n: int) -> None:
    e = env(num_players=n)
    assert e.possible_agents == [f"player_{i}" for i in range(n)]
    for agent in e.possible_agents:
        assert e.action_space(agent).n == NUM_ACTIONS
        assert e.observation_space(agent)["observation"].shape == (OBS_SIZE,)
        assert e.observation_space(agent)["action_mask"].shape == (NUM_ACTIONS,)


def test_same_seed_plays_identically_with_python_and_numpy_ints() -> None:
    a, b = env(num_players=4), env(num_players=4)
    a.reset(seed=11)
    b.reset(seed=11)
    actions_a = play_random(a, seed=3)
    actions_b = play_random(b, seed=3, numpy_ints=True)
    assert actions_a == actions_b
    assert a.unwrapped.game.to_dict() == b.unwrapped.game.to_dict()
    c = env(num_players=4)
    c.reset(seed=12)
    assert play_random(c, seed=3) != actions_a


def test_agent_selection_follows_engine_current_player() -> None:
    e = env(num_players=5)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(300):
        game = e.unwrapped.game
        if game.is_terminal:
            break
        assert e.agent_selection == f"player_{game.current_player}"
        for agent in e.agents:
            mask = e.observe(agent)["action_mask"]
            assert mask.any() == (agent == e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))


def test_registered_with_pettingzoo() -> None:
    from pettingzoo import aec_registry, make

    assert ENV_ID in aec_registry
    made = make("aec", ENV_ID, num_players=3)
    made.reset(seed=0)
    assert made.num_agents == 3


def test_illegal_action_raises_typed_error_and_changes_nothing() -> None:
    e = env(num_players=4)
    e.reset(seed=5)
    before = e.unwrapped.game.to_dict()
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad in (illegal, NUM_ACTIONS, -1, "3", 2.0, None):
        with pytest.raises(IllegalActionError) as info:
            e.step(bad)
        assert "SETUP_PLACE" in str(info.value)
        assert e.unwrapped.game.to_dict() == before
    assert info.value.player == e.unwrapped.game.current_player


def test_penalize_mode_ends_game_with_penalty_for_offender() -> None:
    e = env(num_players=3, illegal_action="penalize", illegal_penalty=-2.5)
    e.reset(seed=1)
    offender = e.agent_selection
    e.step(NUM_ACTIONS - 1)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -2.5
    assert all(r == 0 for a, r in e.rewards.items() if a != offender)
    assert e.infos[offender]["illegal_action"]["agent"] == offender


def test_stepping_before_reset_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="reset"):
        env(num_players=3).step(0)


def test_wrapper_last_matches_raw_env_and_needs_reset() -> None:
    """env()'s wrapper answers last() in one call to raw_env (a speed-up): same values,
    and the order-enforcing check before reset() still holds."""
    e = env(num_players=4)
    with pytest.raises(AttributeError, match="reset"):
        e.last()
    e.reset(seed=5)
    for _ in range(40):
        wrapped, raw = e.last(), e.unwrapped.last()
        np.testing.assert_array_equal(wrapped[0]["observation"], raw[0]["observation"])
        np.testing.assert_array_equal(wrapped[0]["action_mask"], raw[0]["action_mask"])
        assert wrapped[1:4] == raw[1:4]
        assert e.last(observe=False)[0] is None
        e.step(int(np.flatnonzero(wrapped[0]["action_mask"])[0]))


def test_bad_options_raise_invalid_config() -> None:
    with pytest.raises(InvalidConfigError):
        raw_env(num_players=6)
    with pytest.raises(InvalidConfigError):
        raw_env(reward="money")
    with pytest.raises(InvalidConfigError):
        raw_env(illegal_action="ignore")


def _finished_game(scores_by_seat: dict[int, int], n: int = 4) -> Game:
    """A terminal game whose scores are exactly the given cube counts (B.10)."""
    g = new_game(GameConfig(num_players=n), seed=0, backend="python")
    g.cubes = [0] * len(g.cubes)
    g.statues = [0] * len(g.statues)
    g.loc_claim = [0] * len(g.loc_claim)
    for p in range(n):
        g.cubes[p] = scores_by_seat[p]  # all in Athens
        g.supply[p] = 30 - scores_by_seat[p]
    return g


def test_win_reward_splits_between_tied_winners_and_sums_to_zero() -> None:
    g = _finished_game({0: 20, 1: 20, 2: 10, 3: 5})
    assert g.winners() == [0, 1]
    assert final_rewards(g, "win") == [0.5, 0.5, -0.5, -0.5]
    g = _finished_game({0: 9, 1: 20, 2: 10, 3: 5})
    assert final_rewards(g, "win") == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])
    g = _finished_game({0: 7, 1: 7, 2: 7, 3: 7})
    assert final_rewards(g, "win") == [0.0] * 4


def test_rank_reward_averages_tied_ranks() -> None:
    g = _finished_game({0: 20, 1: 10, 2: 10, 3: 5})
    assert final_rewards(g, "rank") == pytest.approx([1.0, 0.0, 0.0, -1.0])
    assert sum(final_rewards(g, "rank")) == pytest.approx(0.0)


def test_vp_reward_is_margin_over_mean() -> None:
    g = _finished_game({0: 20, 1: 10, 2: 10, 3: 0})
    assert final_rewards(g, "vp") == pytest.approx([0.5, 0.0, 0.0, -0.5])


def test_rewards_arrive_only_at_the_end() -> None:
    e = env(num_players=3, reward="vp")
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if not (term or trunc):
            assert reward == 0.0
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    assert any(v != 0 for v in totals.values())


def test_render_ansi_shows_the_board() -> None:
    e = env(num_players=3, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "athens" in text and "turn 1" in text and "Setup: place cubes" in text
    assert e.unwrapped.action_to_str(0) == "setup_cube(athens)"
