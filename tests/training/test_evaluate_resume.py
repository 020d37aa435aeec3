"""``perikles-evaluate --resume``: an interrupted evaluation finishes in its own folder,
plays only the games it had not kept, and ends with the numbers of an uninterrupted run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import perikles_env.evaluation.eval_report as report
import perikles_env.evaluation.runner as runner
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.cli import main
from perikles_env.evaluation.tournament import evaluate, resume
from perikles_env.jobs.run_folder import write_status
from tests.training.test_evaluate_e2e import _numbers

LINEUP = ["heuristic", "random"]


def _interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: int) -> Path:
    """A run of 12 games (3 seeds x 4 rotations) stopped by an interrupt after ``keep``."""
    written = report.append_game

    def interrupt_after(run_dir: Path, record: runner.GameRecord) -> None:
        if report.recorded_games(run_dir) == keep:
            raise KeyboardInterrupt("SIGTERM")
        written(run_dir, record)

    with monkeypatch.context() as m:
        m.setattr(report, "append_game", interrupt_after)
        with pytest.raises(KeyboardInterrupt) as caught:
            evaluate(LINEUP, players=4, games=12, seed=3, out=str(tmp_path), name="cut",
                     plots=False)
    run_dir = tmp_path / "cut"
    assert f"perikles-evaluate --resume {run_dir}" in "".join(caught.value.__notes__)
    return run_dir


def _count_games(monkeypatch: pytest.MonkeyPatch) -> list[runner.Job]:
    played: list[runner.Job] = []
    play = runner.play_job

    def counting(job: runner.Job) -> runner.GameRecord:
        played.append(job)
        return play(job)

    monkeypatch.setattr(runner, "play_job", counting)
    return played


def test_a_resumed_run_plays_only_the_rest_and_equals_an_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = _interrupted(tmp_path, monkeypatch, keep=5)
    status = json.loads((run_dir / "status.json").read_text())
    assert status["status"] == "interrupted" and status["games"] == 5 and status["of"] == 12
    assert status["resume"] == f"perikles-evaluate --resume {run_dir}"
    kept = [json.loads(line) for line in (run_dir / report.PARTIAL).read_text().splitlines()]
    assert all(len(row["cpu_seconds"]) == 4 for row in kept)  # timings are kept for a resume

    played = _count_games(monkeypatch)
    result = resume(run_dir)
    assert len(played) == 7
    assert {(j.seed_index, j.rotation) for j in played}.isdisjoint(
        {(row["seed_index"], row["rotation"]) for row in kept}
    )
    assert len(result.records) == 12 and all(t.timed_games == 12
                                              for t in result.matchups[0].timing.values())
    assert json.loads((run_dir / "status.json").read_text())["status"] == "complete"
    assert not (run_dir / report.PARTIAL).exists()

    whole = evaluate(LINEUP, players=4, games=12, seed=3, out=str(tmp_path), name="whole",
                     plots=False)
    assert _numbers(run_dir) == _numbers(whole.run_dir)
    assert (run_dir / "games.jsonl").read_bytes() == (whole.run_dir / "games.jsonl").read_bytes()
    assert "resume" not in (run_dir / "report.md").read_text()


def test_a_torn_last_line_is_cut_and_its_game_played_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = _interrupted(tmp_path, monkeypatch, keep=3)
    partial = run_dir / report.PARTIAL
    lines = partial.read_bytes().splitlines(keepends=True)
    partial.write_bytes(b"".join(lines[:2]) + lines[2][:40])  # killed while writing game 3
    played = _count_games(monkeypatch)
    assert main(["--resume", str(run_dir), "--quiet"]) == 0
    assert len(played) == 10
    whole = evaluate(LINEUP, players=4, games=12, seed=3, plots=False)
    games = [json.loads(x) for x in (run_dir / "games.jsonl").read_text().splitlines()]
    assert [g["actions"] for g in games] == [r.actions for r in whole.records]


def test_games_kept_without_timings_count_and_the_report_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines written before partial files held timings: the games count, the timing table
    covers the others and the report says how many."""
    run_dir = _interrupted(tmp_path, monkeypatch, keep=4)
    partial = run_dir / report.PARTIAL
    rows = [json.loads(x) for x in partial.read_text().splitlines()]
    for row in rows:
        for key in runner.TIMING_KEYS:
            row.pop(key)
    partial.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = resume(run_dir)
    assert len(result.records) == 12
    assert {t.timed_games for t in result.matchups[0].timing.values()} == {8}
    assert "The timings cover 8 of the 12 games" in (run_dir / "report.md").read_text()


def test_what_cannot_be_resumed_is_refused_and_left_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    run_dir = _interrupted(tmp_path, monkeypatch, keep=2)
    partial = run_dir / report.PARTIAL
    original = partial.read_bytes()

    def refused(match: str) -> None:
        with pytest.raises(InvalidConfigError, match=match):
            resume(run_dir)
        assert partial.read_bytes() == original

    # a game of another run: its seats (or seed) are not this config's
    row = json.loads(original.splitlines()[0])
    row["seats"] = row["seats"][::-1]
    partial.write_bytes(json.dumps(row).encode() + b"\n" + original.split(b"\n", 1)[1])
    with pytest.raises(InvalidConfigError, match="game 1 .*not one of this run's games"):
        resume(run_dir)
    partial.write_bytes(original + original.splitlines(keepends=True)[0])
    with pytest.raises(InvalidConfigError, match="game 3 .*played twice"):
        resume(run_dir)
    row = json.loads(original.splitlines()[1])
    row["win_share"][0] = "1"
    partial.write_bytes(original.splitlines(keepends=True)[0] + json.dumps(row).encode() + b"\n")
    with pytest.raises(InvalidConfigError, match="game 2 .*not one of this run's games"):
        resume(run_dir)
    row = json.loads(original.splitlines()[1])
    row["decision_cpu_ms"][0] = "fast"  # each decision's time must be a list of numbers
    partial.write_bytes(original.splitlines(keepends=True)[0] + json.dumps(row).encode() + b"\n")
    with pytest.raises(InvalidConfigError, match="game 2 .*not one of this run's games"):
        resume(run_dir)
    partial.write_bytes(original + b'["not", "a", "game"]\n')
    with pytest.raises(InvalidConfigError, match="line 3: not a game record"):
        resume(run_dir)
    torn = original + b'{"matchup": 0, "seed_in'  # killed while writing a line
    partial.write_bytes(torn)
    write_status(run_dir, "running", command="")  # this live process
    with pytest.raises(InvalidConfigError, match="still running"):
        resume(run_dir)
    assert partial.read_bytes() == torn  # a refused resume cuts nothing
    partial.write_bytes(original)

    status = json.loads((run_dir / "status.json").read_text())
    write_status(run_dir, "running", command=status["command"])  # this live process
    refused("still running")
    write_status(run_dir, "interrupted", command=status["command"])
    config = (run_dir / report.CONFIG).read_text()
    (run_dir / report.CONFIG).write_text(config.replace('"games": 12', '"games": -1'))
    refused("config.json: games")
    (run_dir / report.CONFIG).unlink()
    refused("has no config.json")
    (run_dir / report.CONFIG).write_text(config)

    assert main(["--resume", str(run_dir), "--games", "40", "--no-plots"]) == 2
    assert "--games, --no-plots cannot change them" in capsys.readouterr().err
    assert partial.read_bytes() == original
    assert main(["--resume", str(tmp_path / "missing")]) == 2
    assert "not an evaluation run folder" in capsys.readouterr().err

    assert main(["--resume", str(run_dir), "--quiet", "--workers", "2"]) == 0
    assert main(["--resume", str(run_dir)]) == 2
    assert "already complete" in capsys.readouterr().err
