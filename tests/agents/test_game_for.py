"""``game_for``: an agent that only reads the game (``Agent.read_only``) is handed the live
game, every other agent a copy, so that no agent can change the real game. The read-only
claim is checked here: each such agent decides at every decision of seeded games on both
engines and the state (read back from the engine itself, not from cached copies) must not
move."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import game_for, make_agent
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine.backend import native_available

BACKENDS = ["python", "native"] if native_available() else ["python"]
READ_ONLY = [
    "random",
    "heuristic",
    "heuristic:aggression=1.5,caution=0.2",
    "heuristic:politics=1.8,aggression=0.2",
    "heuristic:spite=1.5",
]


def _state(game: Game) -> dict:
    """The full state as the engine holds it (a clone has no cached field copies)."""
    return game.clone().to_dict()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("players", [3, 5])
def test_read_only_agents_leave_the_live_game_unchanged(backend: str, players: int) -> None:
    agents = [make_agent(spec) for spec in READ_ONLY]
    assert all(agent.read_only for agent in agents)
    game = new_game(GameConfig(num_players=players), seed=players, backend=backend)
    rng = np.random.default_rng(players)
    decisions = 0
    while not game.is_terminal:
        p = game.current
        before = _state(game)
        choices = []
        for agent in agents:
            live = game_for(agent, game)
            assert live is game
            choices.append(agent.act_state(live, p, rng))
            assert _state(game) == before, f"{agent.describe()} changed the game"
        assert all(game.is_legal(a) for a in choices)
        game.apply_action(choices[decisions % len(choices)])
        decisions += 1
    assert decisions > 200


def test_other_agents_get_an_equal_copy() -> None:
    agent = make_agent("ismcts:sims=2")
    assert not agent.read_only
    game = new_game(GameConfig(num_players=4), seed=1)
    copy = game_for(agent, game)
    assert copy is not game and copy.to_dict() == game.to_dict()
    copy.apply_action(copy.legal_actions()[0])
    assert copy.to_dict() != game.to_dict()
