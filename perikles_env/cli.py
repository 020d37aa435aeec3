"""Command-line helpers shared by the project's tools: bad input ends the program with one
line naming the problem and exit code 2, never a traceback or a usage dump."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class CliParser(argparse.ArgumentParser):
    """``argparse`` whose errors are one line: ``prog: error: message`` (exit code 2)."""

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


def stderr_line(message: str) -> None:
    print(" ".join(str(message).split()), file=sys.stderr)
