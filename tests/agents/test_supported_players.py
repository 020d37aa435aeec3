"""An agent that plays only some player counts (a network made for 4 players, here put in
the shipped network's place) is refused up front, in one line, by every tool that seats
it: the table loop, a single decision, the evaluator's config and the terminal game. The
shipped network itself plays every count."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import AgentError, TableLoop, check_plays, decide, make_agent
from perikles_env.engine import GameConfig, new_game
from perikles_env.evaluation.config import EvalConfig


@pytest.fixture
def net(four_player_network):
    return make_agent("net")


def test_the_shipped_network_plays_every_count() -> None:
    for spec in ("net", "search"):
        assert make_agent(spec).supported_players == (3, 4, 5)


def test_the_network_says_which_counts_it_plays(net) -> None:
    assert net.supported_players == (4,)
    assert make_agent("heuristic").supported_players == (3, 4, 5)
    check_plays(net, 4)  # no error
    with pytest.raises(AgentError, match=r"^agent 'net' plays only 4-player games, not 5$"):
        check_plays(net, 5)


@pytest.mark.parametrize("players", [3, 5])
def test_the_table_loop_refuses_before_any_move(net, players: int) -> None:
    game = new_game(GameConfig(num_players=players), seed=1)
    before = game.to_dict()
    seats = [net] + [make_agent("random") for _ in range(players - 1)]
    with pytest.raises(AgentError, match=f"not {players}$"):
        TableLoop(game, seats, np.random.default_rng(0))
    with pytest.raises(AgentError, match=f"not {players}$"):
        decide(net, game, game.current, np.random.default_rng(0))
    assert game.to_dict() == before


def test_the_evaluator_refuses_the_lineup_at_config_time(four_player_network) -> None:
    with pytest.raises(ValueError, match="agent 'net' plays only 4-player games, not 3"):
        EvalConfig(lineups=[("net", "heuristic", "heuristic")])
    assert EvalConfig(lineups=[("net", "heuristic", "heuristic", "heuristic")]).lineups


def test_the_terminal_game_refuses_before_the_board(capsys, four_player_network) -> None:
    from perikles_env.play import main

    for argv in (["--opponents", "net"], ["--opponents", "random", "--auto", "net"]):
        with pytest.raises(SystemExit) as exit_:
            main(["--players", "3", "--seed", "1", *argv])
        err = capsys.readouterr().err.strip().splitlines()
        assert exit_.value.code == 2
        assert err and "plays only 4-player games, not 3" in err[-1]
