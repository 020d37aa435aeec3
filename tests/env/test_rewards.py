"""environment/rewards.py, the one home of every env's rewards: the table's modes and the
learner's tracker agree with each other, and a tracker fed VP and winners (the native
vector env) pays what one fed the game pays, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.environment.rewards import (
    REWARD_MODES,
    RewardConfig,
    RewardTracker,
    final_rewards,
    potential_of_scores,
)
from perikles_env.errors import InvalidConfigError


def _random_game(n: int, seed: int) -> tuple[Game, list[Game]]:
    """A finished random game on the Python engine and its state after every decision."""
    game = new_game(GameConfig(num_players=n, record_events=False), seed=seed, backend="python")
    rng = np.random.default_rng(seed)
    states = [game.clone()]
    while not game.is_terminal:
        game.apply_action(int(rng.choice(game.legal_actions())))
        states.append(game.clone())
    return game, states


@pytest.mark.parametrize("n", [3, 4, 5])
def test_table_modes_are_zero_sum_and_the_learner_win_term_is_the_table_win(n):
    game, _ = _random_game(n, seed=n)
    for mode in REWARD_MODES:
        rewards = final_rewards(game, mode)
        assert len(rewards) == n and sum(rewards) == pytest.approx(0.0)
    ranks, winners = game.ranks(), game.winners()
    assert final_rewards(game, "rank") == pytest.approx([1 - 2 * (r - 1) / (n - 1) for r in ranks])
    win = final_rewards(game, "win")
    for seat in range(n):
        assert (win[seat] > 0) == (seat in winners)
        tracker = RewardTracker(RewardConfig(win=1.0), game, seat)
        assert tracker.step(game) == win[seat]


def test_a_tracker_fed_scores_pays_what_a_tracker_fed_the_game_pays():
    """Every decision of a game, shaping, margin and win all on: bit-identical rewards."""
    config = RewardConfig(win=1.0, vp_margin=0.5, shaping=1.0, vp_scale=10.0)
    game, states = _random_game(4, seed=21)
    for seat in range(4):
        from_game = RewardTracker(config, states[0], seat)
        from_scores = RewardTracker.from_scores(config, states[0].scores(), seat)
        total = 0.0
        for state in states[1:]:
            terminated = state.is_terminal
            winners = state.winners() if terminated else ()
            paid = from_game.step(state)
            assert paid == from_scores.step_scores(state.scores(), terminated, winners)
            total += paid
        start, end = states[0].scores(), game.scores()
        best_other = max(s for p, s in enumerate(end) if p != seat)
        margin = max(-1.0, min(1.0, (end[seat] - best_other) / 10.0))
        phi0 = potential_of_scores(start, seat, 10.0)
        win = final_rewards(game, "win")[seat]
        assert total == pytest.approx(win + 0.5 * margin - phi0)  # shaping telescopes


def test_terminal_pays_the_win_share_and_the_clipped_margin():
    win_only = RewardConfig(win=1.0)
    scores = [20, 20, 10, 5]
    assert RewardTracker.from_scores(win_only, scores, 0).step_scores(scores, True, [0, 1]) == 0.5
    assert RewardTracker.from_scores(win_only, scores, 3).step_scores(scores, True, [0, 1]) == -0.5
    everyone = RewardTracker.from_scores(win_only, [7] * 4, 2)
    assert everyone.step_scores([7] * 4, True, [0, 1, 2, 3]) == 0.0  # an all-way tie: a draw
    margin = RewardConfig(win=0.0, vp_margin=1.0, vp_scale=10.0)
    assert RewardTracker.from_scores(margin, scores, 0).step_scores(scores, True, [0, 1]) == 0.0
    assert RewardTracker.from_scores(margin, scores, 3).step_scores([0, 40, 0, 0], True, [1]) == -1
    assert RewardTracker.from_scores(margin, scores, 2).step_scores([0, 0, 14, 9], True, [2]) == (
        pytest.approx(0.5)
    )


def test_a_cut_game_pays_no_win_or_margin_but_its_shaping():
    config = RewardConfig(win=1.0, vp_margin=1.0)
    tracker = RewardTracker.from_scores(config, [5, 5, 5], 0)
    assert not tracker.pays(False) and tracker.pays(True)
    assert tracker.step_scores([30, 0, 0], False, ()) == 0.0
    shaped = RewardConfig(win=1.0, shaping=2.0, vp_scale=10.0)
    tracker = RewardTracker.from_scores(shaped, [5, 5, 5], 0)
    assert tracker.pays(False)
    assert tracker.step_scores([9, 5, 5], False, ()) == pytest.approx(2.0 * 0.4)
    assert tracker.step_scores([11, 5, 5], False, ()) == pytest.approx(2.0 * 0.2)
    # the game ends: phi drops to 0 and the win is paid on top
    assert tracker.step_scores([11, 5, 5], True, [0]) == pytest.approx(2.0 * -0.6 + 1.0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"win": "1"}, "reward.win"),
        ({"shaping": float("nan")}, "reward.shaping"),
        ({"vp_scale": 0}, "reward.vp_scale"),
        ({"win": 0, "vp_margin": 0}, "cannot both be 0"),
        ({"wins": 1}, "unknown reward key"),
        ("money", "reward must be"),
    ],
)
def test_bad_reward_configs_are_refused_by_name(value, message):
    with pytest.raises(InvalidConfigError, match=message):
        RewardConfig.from_value(value)


def test_reward_config_names():
    assert RewardConfig.from_value(None) == RewardConfig.from_value("win") == RewardConfig()
    assert RewardConfig.from_value("vp_margin") == RewardConfig(win=0.0, vp_margin=1.0)
    assert RewardConfig.from_value({"shaping": 0.5}) == RewardConfig(shaping=0.5)
