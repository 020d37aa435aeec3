"""The terminal game through a real pseudo-terminal (pexpect): a person's keystrokes, from
the first prompt to the end of a game against agents. Help, the whole board, bad input
('²', out-of-range numbers) and going back all work; events are told in words; the game
record it writes replays to the final scores it printed."""

from __future__ import annotations

import random
import re
import sys

import pexpect

from perikles_env.records import read_records, replay

PROMPT = r"choice \(\? help\): "
OPTION = re.compile(r"^\s+(\d+)\. (.*?)(?: \.\.\.)?\r?$", re.M)


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable, ["-m", "perikles_env.play", *args], encoding="utf-8", timeout=60,
        dimensions=(50, 100),
    )


def test_a_person_plays_a_whole_game_in_the_terminal(tmp_path) -> None:
    record_path = tmp_path / "game.jsonl"
    child = spawn("--players", "3", "--seat", "1", "--opponents", "random,heuristic",
                  "--seed", "5", "--record", str(record_path))
    child.expect(PROMPT)
    first_screen = child.before
    assert "You are p1" in first_screen and "Setup: " not in first_screen
    child.sendline("?")
    child.expect("How to answer")
    child.expect(PROMPT)
    child.sendline("u")
    child.expect("influence display:")
    child.expect(PROMPT)
    whole_board = child.before
    assert max(len(line) for line in whole_board.splitlines()) <= 100
    child.sendline("²")
    child.expect("'²' is not a choice here")
    child.expect(PROMPT)
    child.sendline("99")
    child.expect("'99' is not a choice here")  # the menu is asked again: the loop reads it

    chooser = random.Random(5)
    screens: list[str] = []
    went_back = False
    for _ in range(3000):
        if child.expect([PROMPT, r"game over: scores (\[[\d, ]+\])"]) == 1:
            break
        screen = child.before
        screens.append(screen)
        options = OPTION.findall(screen.split("\n\n")[-1] if "\n\n" in screen else screen)
        assert options, screen[-500:]
        if not went_back and " > " in screen.splitlines()[-len(options) - 1]:
            child.sendline("b")  # one step back from a sub-menu, then on
            went_back = True
            continue
        child.sendline(str(chooser.randint(1, len(options))))
    else:
        raise AssertionError("the game did not end")
    final_scores = [int(x) for x in re.findall(r"\d+", child.match.group(1))]
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = "\n".join(screens)
    assert went_back
    # events in words, the reader marked as '(you)'
    assert "p1 (you) adds 1 cube to" in text and "takes the" in text
    assert re.search(r"p\d( \(you\))? proposes p\d( \(you\))? as (alpha|beta) candidate", text)
    # the commit phase is asked in steps: location, then side, then counter
    assert "commit to location" in text and re.search(r"commit to location .* > (attack|defend)",
                                                      text)
    [record] = read_records(record_path)
    *_, (final, _) = replay(record)
    assert final.is_terminal and final.scores() == final_scores == record.scores


def test_quitting_and_typing_several_steps_at_once(tmp_path) -> None:
    child = spawn("--players", "4", "--opponents", "random", "--seed", "2")
    child.expect(PROMPT)
    child.sendline("u 1")  # two commands in one line: the whole board, then a setup cube
    child.expect("influence display:")
    child.expect(r"p0 \(you\): a cube to")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
