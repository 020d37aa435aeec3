"""C++ engine core vs the Python engine: raw random play and clones, measured in one run.

Rows (4 players by default, one core, uniform random policy ``legal[Rng(seed).randrange]``,
the same games on both engines):

* ``python``: the Python engine, ``legal_actions()`` + ``apply_action()`` per decision;
* ``native, C++ loop``: the same games played entirely in C++ (``_native.random_games``: the
  legal list is built and one action applied every decision, no Python in the loop); this
  is the figure for search rollouts (``NativeGame.random_playout``);
* ``native via Python API``: the C++ core driven decision by decision from Python (each
  decision builds a Python list of the legal ids).

Clones/s: ``Game.clone()`` of states met during that play (every 8th decision state), on
each engine, and the same states copied in C++ (``clone_repeatedly``: what a C++ search
does per simulation, no Python object made). Targets: C++ loop >= 1,000,000
decisions/s and >= 20x Python; clone >= 1,000,000/s.

    python benchmarks/native_speed.py [--games 200] [--players 4] [--no-events]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine_speed  # noqa: E402  (this folder: the script's own)

from perikles_env.engine import Game  # noqa: E402


def play(backend: str, n: int, games: int, record: bool) -> tuple[float, int, list[Game]]:
    """Random play timed as ``engine_speed.py`` times it, seeds 0 .. games-1."""
    return engine_speed.play(n, games, 0, record, backend)


def clones_per_second(states: list[Game], repeats: int = 4) -> float:
    start = time.perf_counter()
    for g in states:
        for _ in range(repeats):
            g.clone()
    return len(states) * repeats / (time.perf_counter() - start)


def cpp_clones_per_second(states: list[Game], repeats: int = 50) -> float:
    start = time.perf_counter()
    for g in states:
        g.core.clone_repeatedly(repeats)  # type: ignore[attr-defined]
    return len(states) * repeats / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--no-events", action="store_true", help="record_events=False")
    args = parser.parse_args()
    from perikles_env.engine import native

    n, games, record = args.players, args.games, not args.no_events
    py_time, py_dec, py_states = play("python", n, games, record)
    api_time, api_dec, cpp_states = play("native", n, games, record)
    assert api_dec == py_dec, "the engines played different games"
    loop_games = games * 20
    start = time.perf_counter()
    loop_dec = native.extension.random_games(n, loop_games, 0, record)
    loop_time = time.perf_counter() - start
    py_rate, api_rate, loop_rate = py_dec / py_time, api_dec / api_time, loop_dec / loop_time
    print(f"{platform.python_implementation()} {platform.python_version()}, {n} players, "
          f"record_events={record}, one core")
    print(f"{'engine':<26}{'decisions/s':>14}{'vs python':>11}{'clones/s':>13}")
    print(f"{'python':<26}{py_rate:>14,.0f}{1:>10.1f}x{clones_per_second(py_states):>13,.0f}")
    print(f"{'native via Python API':<26}{api_rate:>14,.0f}{api_rate / py_rate:>10.1f}x"
          f"{clones_per_second(cpp_states):>13,.0f}")
    print(f"{'native, C++ loop':<26}{loop_rate:>14,.0f}{loop_rate / py_rate:>10.1f}x"
          f"{cpp_clones_per_second(cpp_states):>13,.0f}  ({loop_games} games)")


if __name__ == "__main__":
    main()
