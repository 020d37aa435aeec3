"""Determinizations per second (``engine.determinize``, the sampler of IS-MCTS): the Python
engine, the C++ core (sampled in C++, ``Game::determinize``), and the core's former path
(convert to a Python game, determinize there, load back) - all in one run, same states.

States: every 5th decision of seeded uniform random games at 3, 4 and 5 players; every
player of each. Prints determinizations/s (best of the repeats) and the ratios.

    python benchmarks/determinize_speed.py [--games N] [--repeats R]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perikles_env.engine import Game, GameConfig, new_game  # noqa: E402
from perikles_env.engine.determinize import determinize  # noqa: E402
from perikles_env.engine.native import from_python  # noqa: E402
from perikles_env.engine.rng import Rng  # noqa: E402


def twin_states(games: int) -> list[tuple[Game, Game, int]]:
    """(Python game, native game, player) at sampled decisions, the same states twice."""
    out = []
    for n in (3, 4, 5):
        for seed in range(games):
            config = GameConfig(num_players=n)
            py = new_game(config, seed=seed, backend="python")
            cpp = new_game(config, seed=seed, backend="native")
            policy, step = Rng(seed), 0
            while not py.is_terminal:
                if step % 5 == 0:
                    out += [(py.clone(), cpp.clone(), p) for p in range(n)]
                legal = py.legal_actions()
                action = legal[policy.randrange(len(legal))]
                py.apply_action(action)
                cpp.apply_action(action)
                step += 1
    return out


def round_trip(game: Any, player: int, seed: int) -> Game:
    """What a NativeGame's determinize did before the C++ sampler."""
    return from_python(determinize(game.to_python(), player, seed))


def rate(run: Callable[[Any, int, int], Any], items: list[tuple[Any, int]], repeats: int) -> float:
    """Best determinizations per second over ``repeats`` passes."""
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        for i, (game, player) in enumerate(items):
            run(game, player, i)
        best = max(best, len(items) / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per player count")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    states = twin_states(args.games)
    py_items = [(py, p) for py, _cpp, p in states]
    cpp_items = [(cpp, p) for _py, cpp, p in states]
    python = rate(determinize, py_items, args.repeats)
    native = rate(determinize, cpp_items, args.repeats)
    core = rate(lambda g, p, s: g.core.determinize(p, s), cpp_items, args.repeats)
    trip = rate(round_trip, cpp_items, 1)
    print(
        f"determinize speed, {len(states)} (state, player) pairs at 3-5 players, "
        f"{platform.python_implementation()} {platform.python_version()}, one core"
    )
    print(f"{'path':46s} {'determinizations/s':>20s}")
    print(f"{'Python engine':46s} {python:20,.0f}")
    print(f"{'C++ core via determinize() (NativeGame out)':46s} {native:20,.0f}")
    print(f"{'  of which the C++ call alone (core.determinize)':46s} {core:20,.0f}")
    print(f"{'former NativeGame path (to_python, from_python)':46s} {trip:20,.0f}")
    print(f"native / Python: {native / python:.1f}x   native / former path: {native / trip:.1f}x")


if __name__ == "__main__":
    main()
