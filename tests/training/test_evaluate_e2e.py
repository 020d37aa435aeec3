"""End-to-end evaluator runs: files written, numbers reproducible, illegal actions counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perikles_env.agents import RandomAgent, register_agent
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.cli import main
from perikles_env.evaluation.runner import Job, play_job
from perikles_env.evaluation.tournament import evaluate


def _numbers(run_dir: Path) -> dict:
    data = json.loads((run_dir / "results.json").read_text())
    data.pop("timing")
    data.pop("command")
    data["config"].pop("name")
    return data


def test_cli_writes_report_json_and_plots(tmp_path: Path) -> None:
    args = [
        "--agents",
        "heuristic,random",
        "--players",
        "3",
        "--games",
        "3",
        "--seed",
        "7",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert main(args + ["--name", "a"]) == 0
    run = tmp_path / "a"
    for name in ("report.md", "results.json", "games.jsonl", "ratings.png", "winrate_by_seat.png"):
        assert (run / name).stat().st_size > 0, name
    assert (run / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((run / "results.json").read_text())
    m = data["matchups"][0]
    assert m["players"] == 3 and m["games"] == 3 and data["illegal_actions"] == 0
    assert set(m["agents"]) == {"heuristic", "random"}
    assert m["agents"]["heuristic"]["seats_played"] == 3
    assert m["agents"]["random"]["seats_played"] == 6
    assert sum(m["agents"]["heuristic"]["games_by_seat"]) == 3
    report = (run / "report.md").read_text()
    assert "## 3 players" in report and "OpenSkill" in report and "Head to head" in report
    timing = data["timing"]["0"]["heuristic"]
    assert 0 < timing["p95_cpu_ms"] <= timing["max_cpu_ms"]
    assert "95th pct. CPU ms" in report
    # Same arguments, same numbers (timings aside).
    assert main(args + ["--name", "b"]) == 0
    assert _numbers(run) == _numbers(tmp_path / "b")
    lines = (run / "games.jsonl").read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["seats"][0] in ("heuristic", "random")


def test_every_decision_s_cpu_time_is_recorded_for_the_percentile() -> None:
    game = play_job(Job(matchup=0, lineup=("heuristic", "random", "random"), seed_index=0,
                        seed=7, rotation=1))
    assert [len(t) for t in game.decision_cpu_ms] == game.decisions
    for seat, times in enumerate(game.decision_cpu_ms):
        assert max(times) == pytest.approx(1000 * game.max_cpu_seconds[seat], abs=1e-3)
        assert sum(times) == pytest.approx(1000 * game.cpu_seconds[seat], abs=1e-3 * len(times))


def test_config_file_and_workers_give_the_same_numbers(tmp_path: Path) -> None:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(
        "name: cfg\ngames: 3\nseed: 7\nworkers: 2\nplots: false\n"
        "matchups:\n  - agents: [heuristic, random]\n    players: [3]\n"
    )
    assert main(["--config", str(cfg), "--out", str(tmp_path), "--quiet"]) == 0
    serial = evaluate(["heuristic", "random"], players=3, games=3, seed=7, workers=1)
    parallel = _numbers(tmp_path / "cfg")
    assert parallel["matchups"] == json.loads(json.dumps([m.numbers() for m in serial.matchups]))
    assert not (tmp_path / "cfg" / "ratings.png").exists()


def test_bad_arguments_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["--agents", "heuristic,nonsense", "--players", "3", "--quiet"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert main(["--players", "4", "--quiet"]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("gamez: 3\n")
    assert main(["--config", str(bad), "--quiet"]) == 2
    with pytest.raises(InvalidConfigError):
        evaluate(["random"], players=7, games=1)


class _Cheater(RandomAgent):
    """Plays randomly but answers the first phase-2 pick with an illegal action."""

    name = "cheater"

    def act_state(self, game, player, rng):  # noqa: ANN001, ANN201
        if game.phase.name == "INFLUENCE_PICK":
            return 956  # a casualty choice: never legal here
        return super().act_state(game, player, rng)


def test_illegal_actions_are_counted_and_forfeit(tmp_path: Path) -> None:
    register_agent("cheater", lambda **kw: _Cheater())
    result = evaluate(["cheater", "random"], players=3, games=3, seed=1)
    cheater = result.matchups[0].agents["cheater"]
    assert result.illegal_actions == 3 and cheater.illegal_actions == 3
    assert cheater.forfeits == 3 and cheater.win_rate == 0.0 and cheater.mean_rank == 3.0
    assert result.win_rate("random") == pytest.approx(1 / 2)


def test_a_run_folder_is_never_reused_or_escaped(tmp_path: Path, capsys) -> None:
    """The same ``--name`` twice gives ``name`` and ``name-2`` (the
    first untouched); a name leaving ``out`` is refused before any game."""
    args = ["--agents", "random", "--players", "3", "--games", "3", "--out", str(tmp_path),
            "--quiet", "--no-plots", "--name", "same"]
    assert main(args) == 0
    first = (tmp_path / "same" / "results.json").read_bytes()
    stamp = (tmp_path / "same" / "results.json").stat().st_mtime_ns
    assert main(args + ["--seed", "9"]) == 0
    assert (tmp_path / "same" / "results.json").read_bytes() == first
    assert (tmp_path / "same" / "results.json").stat().st_mtime_ns == stamp
    assert json.loads((tmp_path / "same-2" / "results.json").read_text())["config"]["seed"] == 9
    for folder in ("same", "same-2"):
        status = json.loads((tmp_path / folder / "status.json").read_text())
        assert status["status"] == "complete"
        assert not (tmp_path / folder / "games.partial.jsonl").exists()
    assert main(args[:-1] + ["../../escaped"]) == 2
    assert "plain folder name" in capsys.readouterr().err
    assert not (tmp_path.parent.parent / "escaped").exists()
    same_second = [evaluate(["random"], players=3, games=3, out=str(tmp_path / "t"), plots=False)
                   for _ in range(2)]
    assert same_second[0].run_dir != same_second[1].run_dir


def test_killed_evaluation_is_marked_interrupted_and_keeps_its_games(tmp_path: Path) -> None:
    """The kill test for the evaluator: SIGTERM mid-run leaves ``status.json`` saying
    ``interrupted``, the games played so far in ``games.partial.jsonl`` and no report that
    could pass for a finished one; running it again gives a new, complete folder."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[2]
    args = ["--agents", "heuristic,random", "--players", "4", "--games", "200", "--out",
            str(tmp_path), "--name", "killed", "--quiet", "--no-plots"]
    process = subprocess.Popen([sys.executable, "-m", "perikles_env.evaluation.cli", *args],
                               cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    partial = tmp_path / "killed" / "games.partial.jsonl"
    deadline = time.time() + 120
    while process.poll() is None and time.time() < deadline:
        if partial.exists() and len(partial.read_text().splitlines()) >= 2:
            break
        time.sleep(0.1)
    os.kill(process.pid, signal.SIGTERM)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 143, output[-2000:]
    status = json.loads((tmp_path / "killed" / "status.json").read_text())
    assert status["status"] == "interrupted" and status["games"] >= 2
    assert len(partial.read_text().splitlines()) == status["games"]
    resume = f"perikles-evaluate --resume {tmp_path / 'killed'}"
    assert status["resume"] == resume and f"resume with: {resume}" in output
    assert not (tmp_path / "killed" / "report.md").exists()
    assert not (tmp_path / "killed" / "results.json").exists()
    assert main(args[:5] + ["8"] + args[6:]) == 0
    again = tmp_path / "killed-2"
    assert json.loads((again / "status.json").read_text())["status"] == "complete"
    assert (again / "report.md").is_file()


def test_a_game_past_the_decision_limit_is_recorded_as_truncated(tmp_path: Path) -> None:
    """The evaluator stops a game at MAX_GAME_DECISIONS and records it
    (it used to raise RuntimeError and write nothing)."""
    from tests.training.stalling import register

    result = evaluate([register()], players=5, games=5, seed=0, out=str(tmp_path), plots=False)
    assert result.truncated_games > 0
    truncated = [r for r in result.records if r.truncated]
    assert all(sum(r.decisions) == 1000 and r.win_share == [0.0] * 5 for r in truncated)
    assert all(r.ranks == [3.0] * 5 for r in truncated)
    data = json.loads((result.run_dir / "results.json").read_text())
    assert data["truncated_games"] == result.truncated_games
    assert data["matchups"][0]["agents"]["never_place"]["truncated_games"] == len(truncated)


@pytest.mark.slow
def test_soak_permission_denying_policy_finishes_and_reports_truncations(tmp_path: Path) -> None:
    """A legal policy that asks every permission, denies every request
    and never places drags most games past MAX_GAME_DECISIONS; the evaluation finishes at
    3, 4 and 5 players and counts them as truncated (results.json and report.md)."""
    from tests.training.stalling import register

    name = register()
    result = evaluate([name], players=[3, 4, 5], games=15, seed=0, workers=1,
                      out=str(tmp_path), name="soak", plots=False)
    data = json.loads((result.run_dir / "results.json").read_text())
    assert data["truncated_games"] == result.truncated_games > 0
    by_players = {m["players"]: m["truncated_games"] for m in data["matchups"]}
    assert by_players[4] > 0 and by_players[5] > 0
    for record in result.records:
        if record.truncated:
            assert record.win_share == [0.0] * len(record.seats)
            assert len(set(record.ranks)) == 1
    report = (result.run_dir / "report.md").read_text()
    expected = f"(no winner, all seats ranked equal): **{result.truncated_games}**"
    assert "games truncated at 1000 decisions" in report and expected in report


def test_an_interrupt_between_a_game_and_its_line_counts_the_lines(tmp_path, monkeypatch) -> None:
    """A signal that lands after a game ends but before its line is written leaves
    ``status.json``'s count equal to the lines kept, not to the games finished."""
    import perikles_env.evaluation.eval_report as report

    written = report.append_game

    def interrupt_before_the_fourth(run_dir, record):
        if report.recorded_games(run_dir) == 3:
            raise KeyboardInterrupt
        written(run_dir, record)

    monkeypatch.setattr(report, "append_game", interrupt_before_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        evaluate(["random"], players=3, games=9, out=str(tmp_path), name="cut", plots=False)
    status = json.loads((tmp_path / "cut" / "status.json").read_text())
    lines = (tmp_path / "cut" / report.PARTIAL).read_text().splitlines()
    assert status["status"] == "interrupted" and status["games"] == len(lines) == 3
