"""The console scripts outside a clone: one-line hints for a missing extra, commands recorded
as the installed scripts, --help quoting the defaults the code uses, one-line errors for
files where folders belong and for evaluations that cannot fill a table."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from perikles_env.cli import TOOLS, CliParser, command_line

ROOT = Path(__file__).resolve().parents[2]


def _script(entry: str, block: str | None, *args: str) -> subprocess.CompletedProcess:
    """Run console-script function ``entry`` of perikles_env.cli as its script would, with
    the module ``block`` made unimportable (as if its extra were not installed)."""
    code = "import sys\n"
    if block:
        code += f"sys.modules[{block!r}] = None\n"
    code += f"from perikles_env.cli import {entry}\nsys.exit({entry}())\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "entry,block,extra",
    [
        ("train", "pydantic", "train"),
        ("train", "yaml", "train"),
        ("evaluate", "pydantic", "train"),
        ("train_rllib", "ray", "rllib"),
    ],
)
def test_a_missing_extra_is_one_line_even_for_help(entry, block, extra) -> None:
    done = _script(entry, block, "--help")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert f"pip install 'perikles_env[{extra}]'" in lines[0]
    assert f"{block} is not installed" in lines[0]
    assert done.stdout == ""


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed")
def test_rllib_help_without_ray_names_the_extra() -> None:
    done = _script("train_rllib", None, "--help")
    assert done.returncode == 2 and "perikles_env[rllib]" in done.stderr


def test_installed_tools_help_works() -> None:
    for entry in ("train", "evaluate"):
        done = _script(entry, None, "--help")
        assert done.returncode == 0 and done.stdout.startswith("usage: perikles-"), done.stderr


def test_scripts_in_pyproject_start_in_cli() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["perikles-train"] == "perikles_env.cli:train"
    assert scripts["perikles-evaluate"] == "perikles_env.cli:evaluate"
    assert scripts["perikles-train-rllib"] == "perikles_env.cli:train_rllib"
    assert scripts["perikles-search-train"] == "perikles_env.cli:search_train"
    assert scripts["perikles-bench"] == "perikles_env.cli:bench"
    assert set(TOOLS) == {
        "perikles-train", "perikles-evaluate", "perikles-train-rllib", "perikles-search-train",
        "perikles-bench",
    }


def test_recorded_commands_are_the_installed_scripts(tmp_path: Path) -> None:
    from perikles_env.evaluation.cli import main

    assert command_line("perikles-train", ["--resume", "runs/a b"]) == (
        "perikles-train --resume 'runs/a b'"
    )
    args = ["--agents", "random,random,random", "--games", "3", "--out", str(tmp_path),
            "--name", "e", "--quiet", "--no-plots"]
    assert main(args) == 0
    status = json.loads((tmp_path / "e" / "status.json").read_text())
    assert status["command"].startswith("perikles-evaluate --agents random,random,random")
    results = json.loads((tmp_path / "e" / "results.json").read_text())
    assert results["command"] == status["command"]


def _parser_of(main, monkeypatch) -> CliParser:
    """The CliParser ``main`` builds (captured as it parses)."""
    seen: list[CliParser] = []

    def capture(self, args=None, namespace=None):
        seen.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(CliParser, "parse_args", capture)
    with pytest.raises(SystemExit):
        main([])
    return seen[0]


def _tools():
    from perikles_env import config_schema_export as schema_export
    from perikles_env.bench import cli as bench
    from perikles_env.evaluation import cli as evaluate
    from perikles_env.launch import ppo as train
    from perikles_env.training import agreement, convert_model, war_profile

    return [train.main, evaluate.main, war_profile.main, agreement.main, convert_model.main,
            schema_export.main, bench.main]


@pytest.mark.parametrize("index", range(7))
def test_help_quotes_the_defaults_the_code_uses(index, monkeypatch) -> None:
    parser = _parser_of(_tools()[index], monkeypatch)
    text = " ".join(parser.format_help().split())
    for action in parser._actions:
        if action.default not in (None, False, [], "==SUPPRESS=="):
            assert f"(default: {action.default})" in text, (action.dest, text)


def test_evaluate_help_quotes_the_schema_defaults(monkeypatch) -> None:
    """--games, --seed, --workers, --out and --backend leave the value to the config, so
    their help quotes the schema's default; the engine's is auto (Game.new's)."""
    from perikles_env.engine.backend import use_native
    from perikles_env.evaluation import cli
    from perikles_env.evaluation.config import EvalConfig

    parser = _parser_of(cli.main, monkeypatch)
    text = " ".join(parser.format_help().split())
    fields = EvalConfig.model_fields
    for key in ("games", "seed", "workers", "out"):
        assert f"(default: {fields[key].default})" in text, key
    assert fields["backend"].default is None and "else auto" in text
    monkeypatch.delenv("PERIKLES_BACKEND", raising=False)
    assert use_native(None) == use_native("auto")


def _fails_in_one_line(done: subprocess.CompletedProcess, *words: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    for word in words:
        assert word in lines[0], lines[0]


def test_two_agents_are_told_how_to_fill_the_table(tmp_path: Path) -> None:
    done = _script("evaluate", None, "--agents", "heuristic,random", "--out", str(tmp_path))
    _fails_in_one_line(done, "2 agents", "3..5", "--players", "random")
    assert list(tmp_path.iterdir()) == []


def test_players_default_is_the_number_of_agents() -> None:
    from perikles_env.evaluation.cli import config_from_args, parse_args

    config = config_from_args(parse_args(["--agents", "heuristic,random,random,random"]))
    assert config.lineups == (("heuristic", "random", "random", "random"),)


def test_files_where_folders_belong_are_one_line(tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("x")
    done = _script("evaluate", None, "--agents", "random,random,random", "--out", str(file))
    _fails_in_one_line(done, "is a file, not a folder", "taken")
    done = _script("evaluate", None, "--agents", "random,random,random", "--out",
                   str(file / "sub"))
    _fails_in_one_line(done, "is a file, not a folder")
    done = _script("evaluate", None, "--config", str(tmp_path))
    _fails_in_one_line(done, "is a directory")
    done = _script("train", None, "--resume", str(file))
    _fails_in_one_line(done, "--resume", "is not a run folder")
    assert file.read_text() == "x"
    for target, words in ((tmp_path, "is a folder, not a file"),
                          (tmp_path / "no" / "m.zip", "does not exist")):
        done = subprocess.run(
            [sys.executable, "-m", "perikles_env.training.convert_model", str(file),
             str(target), "--activation", "relu"], capture_output=True, text=True, timeout=120,
        )
        _fails_in_one_line(done, words)
