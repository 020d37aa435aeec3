"""Every command-line tool of this area fails cleanly:
bad input gives exit code 2 and one line on stderr naming the problem, never a traceback."""

from __future__ import annotations

import subprocess

import pytest

from tests.cli import assert_clean_failure, run_module

from .helpers import random_record


def run(module: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return run_module(module, *args, cwd=cwd, timeout=120)


@pytest.mark.parametrize(
    "args,words",
    [
        (["--players", "7"], ["--players", "3 to 5", "7"]),
        (["--players", "two"], ["--players", "'two'"]),
        (["--seed", "-5"], ["--seed", "-5"]),
        (["--seed", "²"], ["--seed", "'²'"]),
        (["--seat", "4"], ["--seat", "0..3"]),
        (["--opponents", "nosuch"], ["unknown agent 'nosuch'"]),
        (["--opponents", ","], ["empty"]),
        (["--opponents", "ppo:missing.zip"], ["missing.zip"]),
        (["--auto", "nosuch"], ["unknown agent 'nosuch'"]),
        (["--record", "/nonexistent/folder/g.jsonl"], ["--record", "does not exist"]),
        (["--record", "/tmp"], ["--record", "'/tmp' is a folder"]),
        (["--record", "/proc/perikles.jsonl"], ["--record", "'/proc' is not writable"]),
        (["--bogus"], ["unrecognized arguments: --bogus"]),
    ],
)
def test_play_fails_cleanly(args, words) -> None:
    assert_clean_failure(run("perikles_env.play", *args), *words)


def test_play_fails_cleanly_on_a_corrupt_model_file(tmp_path) -> None:
    bad = tmp_path / "model.zip"
    bad.write_text("not a zip")
    assert_clean_failure(run("perikles_env.play", "--opponents", f"ppo:{bad}"), "model.zip")


@pytest.mark.parametrize(
    "args,words",
    [
        (["--players", "7"], ["--players", "7"]),
        (["--players", "2"], ["3 to 5"]),
        (["--seed", "-5"], ["--seed", "-5"]),
        (["--seed", "1.5"], ["--seed", "'1.5'"]),
        (["--seed", str(2**64)], ["below 2**64"]),
    ],
)
def test_engine_demo_fails_cleanly(args, words) -> None:
    assert_clean_failure(run("perikles_env.demo", *args), *words)


def test_replay_fails_cleanly(tmp_path) -> None:
    missing = tmp_path / "missing.jsonl"
    assert_clean_failure(run("perikles_env.replay", str(missing)), "no such record file")
    assert_clean_failure(run("perikles_env.replay", str(tmp_path)), "is a folder")
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text('{"seed": 1, "players": 3, "agents": ["a", "b", "c"], "actions": [')
    assert_clean_failure(run("perikles_env.replay", str(corrupt)), "corrupt.jsonl:1", "not JSON")
    record, final = random_record(3, 2)
    good = tmp_path / "good.jsonl"
    from perikles_env.records import append_record

    append_record(good, record, final)
    assert_clean_failure(run("perikles_env.replay", str(good), "--game", "3"), "--game", "1..1")
    nowhere = str(tmp_path / "no" / "x.html")
    assert_clean_failure(run("perikles_env.replay", str(good), "-o", nowhere), "does not exist")
    assert_clean_failure(run("perikles_env.replay", str(good), "--game", "-1"), "--game")
    edited = tmp_path / "edited.jsonl"
    edited.write_text(good.read_text().replace('"actions":[', '"actions":[956,'))
    assert_clean_failure(run("perikles_env.replay", str(edited)), "action 1 of", "not legal")


def test_a_folder_or_unwritable_output_is_refused_before_any_work(tmp_path) -> None:
    """``replay -o DIR --force`` and an unwritable folder: one line, exit code 2, and no
    stray temporary file beside the target."""
    record, final = random_record(3, 2)
    good = tmp_path / "good.jsonl"
    from perikles_env.records import append_record

    append_record(good, record, final)
    folder = tmp_path / "out"
    folder.mkdir()
    before = sorted(tmp_path.iterdir())
    assert_clean_failure(
        run("perikles_env.replay", str(good), "-o", str(folder), "--force"), "is a folder"
    )
    assert_clean_failure(
        run("perikles_env.replay", str(good), "-o", "/proc/game.html"), "not writable"
    )
    assert sorted(tmp_path.iterdir()) == before and not any(folder.iterdir())
