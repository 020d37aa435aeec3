"""OpenSpiel's own IS-MCTS bot plays full games of ``python_perikles`` against the
project's agents. Needs the ``openspiel`` extra; skipped without it."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
ismcts = pytest.importorskip("open_spiel.python.algorithms.ismcts")

from perikles_env.agents import make_agent  # noqa: E402
from perikles_env.environment import final_rewards  # noqa: E402
from perikles_env.openspiel import SHORT_NAME, PeriklesAgentBot  # noqa: E402
from perikles_env.openspiel.bots import LeafValueEvaluator, ismcts_bot, play_game  # noqa: E402


class CountingResampler:
    """Calls the state's own ``resample_from_infostate`` and checks each sample keeps the
    searching player's information state (what IS-MCTS relies on)."""

    def __init__(self) -> None:
        self.calls = 0
        self.sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)

    def __call__(self, state, player):
        sample = state.resample_from_infostate(player, self.sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        self.calls += 1
        return sample


def decisions_by_seat(state) -> list[int]:
    counts = [0] * state.num_players()
    for item in state.full_history():
        if item.player >= 0:
            counts[item.player] += 1
    return counts


def test_openspiel_ismcts_plays_a_full_game_against_the_project_agents() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": 3})
    bot = ismcts_bot(game, max_simulations=8, seed=1)
    assert isinstance(bot, ismcts.ISMCTSBot)
    resampler = CountingResampler()
    bot.set_resampler(resampler)
    bots = [PeriklesAgentBot("heuristic", seed=2), bot, PeriklesAgentBot("ismcts:sims=4", seed=3)]
    state = play_game(game, bots, seed=11)
    assert state.is_terminal() and not state.is_truncated()
    assert state.returns() == final_rewards(state.engine_game, "win")
    counts = decisions_by_seat(state)
    assert all(c > 20 for c in counts), counts
    assert sum(counts) == state.engine_game.decisions
    assert resampler.calls >= 8  # at least one full search over resampled worlds


@pytest.mark.parametrize("n", [4, 5])
def test_openspiel_ismcts_with_random_rollouts_and_random_agents(n: int) -> None:
    """OpenSpiel's IS-MCTS with OpenSpiel's own random-rollout evaluator (rollouts cut at
    40 decisions to stay cheap) in a 4- and 5-player game of project agents."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(SHORT_NAME, {"players": n})
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0), max_length=40),
        uct_c=2.0,
        max_simulations=3,
        random_state=np.random.RandomState(1),
    )
    bots = [PeriklesAgentBot("random", seed=10 + s) for s in range(n)]
    bots[n - 1] = bot
    state = play_game(game, bots, seed=n)
    assert state.is_terminal()
    assert decisions_by_seat(state)[n - 1] > 20


def test_agent_bot_plays_what_the_agent_would_play() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": 4})
    state = game.new_initial_state()
    for byte in range(8):
        state.apply_action(byte)
    rng = np.random.default_rng(0)
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    expected = make_agent("heuristic").act_state(
        state.engine_game.clone(), player, np.random.default_rng(5)
    )
    before = str(state)
    assert PeriklesAgentBot("heuristic", seed=5).step(state) == expected
    assert str(state) == before  # the bot decided on a copy


def test_leaf_value_evaluator_is_on_the_win_reward_scale() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": 5})
    state = game.new_initial_state()
    for byte in range(8):
        state.apply_action(byte)
    values = LeafValueEvaluator().evaluate(state)
    assert values.shape == (5,) and np.all(values > -1) and np.all(values < 1)
    assert values.sum() == pytest.approx(0.0)  # win chances sum to 1: zero-sum rescaled
    prior = LeafValueEvaluator().prior(state)
    assert [a for a, _ in prior] == state.legal_actions()


def test_play_game_needs_one_bot_per_seat() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": 3})
    with pytest.raises(ValueError, match="need 3 bots"):
        play_game(game, [PeriklesAgentBot("random")], seed=0)


@pytest.mark.slow
def test_openspiel_ismcts_beats_random_players() -> None:
    """24 three-player games, IS-MCTS (20 simulations, project leaf values) in every seat
    in turn against two random agents: a random player's expected win share is 1/3."""
    game = pyspiel.load_game(SHORT_NAME, {"players": 3})
    shares = []
    for i in range(24):
        seat = i % 3
        bots = [PeriklesAgentBot("random", seed=100 + 3 * i + k) for k in range(3)]
        bots[seat] = ismcts_bot(game, max_simulations=20, seed=i)
        state = play_game(game, bots, seed=i)
        shares.append(state.engine_game.win_shares()[seat])
    assert np.mean(shares) > 0.5, shares


def test_openspiel_example_in_the_docs_runs_as_written() -> None:
    from tests.ecosystem_examples import run_example

    last = run_example("openspiel").strip().splitlines()[-1]
    assert last.startswith("returns [") and len(last.split(",")) == 3, last
