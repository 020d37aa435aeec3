"""Command-line helpers shared by the project's tools: bad input ends the program with one
line naming the problem and exit code 2, never a traceback or a usage dump.

The console scripts of ``pyproject.toml`` start here (``train``, ``evaluate``,
``train_rllib``, ``search_train``): each imports its tool by name only when called, so a
missing optional extra (``train``, ``rllib``) is one line saying what to install, even for
``--help``.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn


class CliParser(argparse.ArgumentParser):
    """``argparse`` whose errors are one line: ``prog: error: message`` (exit code 2), and
    whose ``--help`` quotes each option's default from the value the code uses (never a
    copy that could drift)."""

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        text = action.help or ""
        quoted = action.default not in (None, False, [], argparse.SUPPRESS)
        if quoted and text != argparse.SUPPRESS and "default" not in text:
            action.help = f"{text} (default: %(default)s)".lstrip()
        return action

    def error(self, message: str) -> NoReturn:
        one_line = " ".join(str(message).split())
        self.exit(2, f"{self.prog}: error: {one_line}\n")


def non_negative_int(text: str) -> int:
    """An ``argparse`` type: a decimal integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_int(text: str) -> int:
    """An ``argparse`` type: a decimal integer >= 1."""
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def positive_float(text: str) -> float:
    """An ``argparse`` type: a finite number > 0 (minutes, say)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text}")
    return value


def seed(text: str) -> int:
    """An ``argparse`` type: a game seed, 0 to 2**64 - 1 (the engine's RNG state)."""
    value = non_negative_int(text)
    if value >= 2**64:
        raise argparse.ArgumentTypeError(f"must be below 2**64, got {value}")
    return value


def player_count(text: str) -> int:
    """An ``argparse`` type: a player count, 3 to 5."""
    value = non_negative_int(text)
    if not 3 <= value <= 5:
        raise argparse.ArgumentTypeError(f"Perikles is played by 3 to 5 players, got {value}")
    return value


def output_file(text: str) -> str:
    """An ``argparse`` type: a file to write, checked before any work: not a folder, and
    in a folder that exists."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"the folder of {text!r} does not exist")
    return text


def stderr_line(message: str) -> None:
    print(" ".join(str(message).split()), file=sys.stderr)


def command_line(prog: str, argv: Sequence[str] | None) -> str:
    """How to run this again, as recorded in run folders: the installed console script
    (``perikles-train --config smoke``), which works outside a clone too."""
    args = sys.argv[1:] if argv is None else argv
    return " ".join([prog, *(shlex.quote(a) for a in args)])


# console script -> (module with main(), the extra it needs)
TOOLS = {
    "perikles-train": ("perikles_env.launch.ppo", "train"),
    "perikles-evaluate": ("perikles_env.evaluation.cli", "train"),
    "perikles-train-rllib": ("perikles_env.launch.rllib", "rllib"),
    "perikles-search-train": ("perikles_env.launch.expert", "train"),
    "perikles-bench": ("perikles_env.bench.cli", "train"),
}


def run_tool(prog: str, argv: Sequence[str] | None = None) -> int:
    """``main(argv)`` of the tool ``prog``; exit 2 with one line naming the extra to install
    when a package it needs is missing."""
    module, extra = TOOLS[prog]
    try:
        main = importlib.import_module(module).main
    except ModuleNotFoundError as exc:
        missing = (exc.name or "?").split(".")[0]
        if missing == "perikles_env":
            raise
        stderr_line(
            f"{prog}: error: needs the {extra!r} extra ({missing} is not installed): "
            f"pip install 'perikles_env[{extra}]'"
        )
        return 2
    return int(main(argv) or 0)


def train() -> int:
    return run_tool("perikles-train")


def evaluate() -> int:
    return run_tool("perikles-evaluate")


def train_rllib() -> int:
    return run_tool("perikles-train-rllib")


def search_train() -> int:
    return run_tool("perikles-search-train")


def bench() -> int:
    return run_tool("perikles-bench")
