"""End-to-end evaluator runs: files written, numbers reproducible, illegal actions counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perikles_env.agents import RandomAgent, register_agent
from perikles_env.errors import InvalidConfigError
from perikles_env.training.evaluate import evaluate, main


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
    # Same arguments, same numbers (timings aside).
    assert main(args + ["--name", "b"]) == 0
    assert _numbers(run) == _numbers(tmp_path / "b")
    lines = (run / "games.jsonl").read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["seats"][0] in ("heuristic", "random")


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
