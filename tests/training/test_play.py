"""Terminal play (perikles_env/play.py): a scripted human finishes a game; quitting works;
the board shows only what the human may see."""

from __future__ import annotations

import re

import pytest

from perikles_env.engine import GameConfig, new_game
from perikles_env.engine import data as D
from perikles_env.play import main, phase_view, play
from perikles_env.render.narrate import special_title


def test_scripted_human_plays_a_whole_game_against_agents():
    answers = iter(["x", "99", "?", "²", "0"])  # bad inputs are asked again
    out: list[str] = []

    def read(prompt: str) -> str:  # then the first choice of each menu
        first = next(line for line in reversed(out) if re.match(r"^\s+\w+\. ", line))
        return next(answers, first.split(".")[0].strip())

    scores = play(3, 1, ["random"], seed=4, read=read, write=out.append)
    assert scores is not None and len(scores) == 3
    text = "\n".join(out)
    assert "'²' is not a choice here" in text and "'0' is not a choice" in text
    assert "game over" in text and "How to answer" in text
    assert "p1 (you): " in text


def test_quit_returns_none():
    out: list[str] = []
    assert play(4, 0, ["random"], seed=1, read=lambda p: "q", write=out.append) is None
    assert out[-1] == "bye"


def test_board_shows_own_special_but_not_others():
    g = new_game(GameConfig(num_players=4), seed=2)
    text = phase_view(g, 0)
    body = text.split("\n", 1)[1]  # below the header line ("Perikles  turn 1 ...")
    assert f"your special tile: {special_title(D.SPECIAL_NAMES[g.special[0]])};" in body
    for p in (1, 2, 3):
        if g.special[p] != g.special[0]:
            assert special_title(D.SPECIAL_NAMES[g.special[p]]) not in body


def test_auto_mode_and_bad_opponent(capsys):
    assert main(["--opponents", "random", "--auto", "random", "--players", "3"]) == 0
    assert "game over" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["--opponents", "nobody"])
    assert exit_.value.code == 2
