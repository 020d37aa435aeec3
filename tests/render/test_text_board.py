"""The ANSI text board (perikles_env/environment/render.py): at most 100 columns in every
state of seeded 3/4/5-player games, and the cube columns line up under their header."""

from __future__ import annotations

import random

import pytest

from perikles_env.engine import GameConfig, new_game
from perikles_env.engine import data as D
from perikles_env.environment.render import WIDTH, city_lines, render_text


@pytest.mark.parametrize("players,seed", [(3, 1), (4, 2), (5, 3)])
def test_every_line_fits_in_100_columns(players: int, seed: int) -> None:
    game = new_game(GameConfig(num_players=players), seed=seed)
    chooser = random.Random(seed)
    widest = 0
    decision = 0
    while not game.is_terminal:
        text = render_text(game, decision % players)  # each viewer in turn
        widest = max(widest, *(len(line) for line in text.splitlines()))
        game.apply_action(chooser.choice(game.legal_actions()))
        decision += 1
    assert WIDTH == 100 and 80 < widest <= 100


@pytest.mark.parametrize("players", [3, 4, 5])
def test_cube_columns_line_up_with_their_header(players: int) -> None:
    game = new_game(GameConfig(num_players=players), seed=players)
    chooser = random.Random(players)
    for _ in range(60):
        game.apply_action(chooser.choice(game.legal_actions()))
    header, *rows = city_lines(game)[: 1 + D.NUM_CITIES]
    for p in range(players):
        end = header.index(f"p{p}") + 2  # seat labels are right-aligned over the numbers
        for c, row in enumerate(rows):
            assert row.startswith(D.CITY_NAMES[c])
            assert row[:end].split()[-1] == str(game.cubes[c * 5 + p]), (header, row)
    for title in ("leader", "defeats", "statue"):
        column = header.index(title)
        assert all(row[column - 1] == " " for row in rows)
