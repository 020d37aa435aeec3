"""The decision counter and ``Game.is_truncated`` and seed checking
(finding 7): ``0 <= seed < 2**64``, ints only."""

from __future__ import annotations

import pytest

from perikles_env.engine import MAX_GAME_DECISIONS, Game, GameConfig, new_game
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidConfigError


def _random_game(players: int, seed: int, steps: int) -> Game:
    g = new_game(GameConfig(num_players=players), seed=seed)
    rng = Rng(seed + 100)
    for _ in range(steps):
        if g.is_terminal:
            break
        legal = g.legal_actions()
        g.apply_action(legal[rng.randrange(len(legal))])
    return g


@pytest.mark.parametrize("players", [3, 4, 5])
def test_decisions_count_every_applied_action_and_round_trip(players):
    g = _random_game(players, seed=players, steps=120)
    assert g.decisions == 120 and not g.is_truncated
    assert Game.from_dict(g.to_dict()).decisions == 120
    assert g.to_dict()["decisions"] == 120
    copy = g.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert copy.decisions == 121 and g.decisions == 120


def test_is_truncated_only_for_an_unfinished_game_at_the_limit():
    g = _random_game(4, seed=3, steps=50)
    state = g.to_dict()
    state["decisions"] = MAX_GAME_DECISIONS - 1
    near = Game.from_dict(state)
    assert not near.is_truncated
    near.apply_action(near.legal_actions()[0])
    assert near.is_truncated and near.decisions == MAX_GAME_DECISIONS
    done = _random_game(3, seed=1, steps=10_000)
    assert done.is_terminal and not done.is_truncated


@pytest.mark.parametrize("seed", [1.5, -1, 2**64, True, "3", [1]])
def test_bad_seeds_are_typed_errors(seed):
    with pytest.raises(InvalidConfigError, match="seed"):
        new_game(GameConfig(num_players=3), seed=seed)


def test_seed_range_ends_are_accepted():
    for seed in (0, 2**64 - 1, None):
        assert not new_game(GameConfig(num_players=3), seed=seed).is_terminal
    assert new_game(seed=5).to_dict() == new_game(seed=5).to_dict()
