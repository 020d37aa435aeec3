"""Microseconds per rule query (``Game``'s query methods: the Python reference in
engine/queries.py, answered in C++ on a NativeGame), the Python engine against the C++
core, in one run on the same states.

States: every 3rd decision of seeded uniform random games at 4 players (every field
already read once, so the Python side pays no copy out of C++: its best case). Prints
microseconds per call (best of the repeats) and the ratio.

    python benchmarks/query_speed.py [--games N] [--repeats R]
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
from perikles_env.engine.rng import Rng  # noqa: E402

QUERIES: dict[str, Callable[[Any], Any]] = {
    "placement_targets (all slots)": lambda g: g.placement_targets(1, 2),
    "placement_status": lambda g: g.placement_status(1, 2, 3, 1),
    "class_placement_status": lambda g: g.class_placement_status(1, 17, 3, 1),
    "military_knowledge": lambda g: g.military_knowledge(1),
    "proposals": lambda g: g.proposals(1),
    "assassination_targets": lambda g: g.assassination_targets(1),
    "plague_losses": lambda g: g.plague_losses(2),
    "election_outcome": lambda g: g.election_outcome(2),
    "statue_vp": lambda g: g.statue_vp(1),
    "location_vp": lambda g: g.location_vp(1),
    "cube_vp": lambda g: g.cube_vp(1),
    "statue_count": lambda g: g.statue_count(1),
    "round_strengths": lambda g: g.round_strengths(2, 0),
    "predicted_rounds": lambda g: g.predicted_rounds(2),
    "ranking_keys": lambda g: g.ranking_keys(),
}


def twin_states(games: int) -> tuple[list[Game], list[Game]]:
    pys, cpps = [], []
    for seed in range(games):
        config = GameConfig(num_players=4)
        py = new_game(config, seed=seed, backend="python")
        cpp = new_game(config, seed=seed, backend="native")
        policy, step = Rng(seed), 0
        while not py.is_terminal:
            if step % 3 == 0:
                pys.append(py.clone())
                cpps.append(cpp.clone())
            legal = py.legal_actions()
            action = legal[policy.randrange(len(legal))]
            py.apply_action(action)
            cpp.apply_action(action)
            step += 1
    return pys, cpps


def micros(query: Callable[[Any], Any], games: list[Game], repeats: int) -> float:
    for g in games:  # warm: fields read once (cached on a NativeGame)
        query(g)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for g in games:
            query(g)
        best = min(best, (time.perf_counter() - start) / len(games) * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pys, cpps = twin_states(args.games)
    print(
        f"rule query speed, {len(pys)} states at 4 players, "
        f"{platform.python_implementation()} {platform.python_version()}, one core"
    )
    print(f"{'query':36s} {'Python us':>10s} {'native us':>10s} {'ratio':>7s}")
    for name, query in QUERIES.items():
        py, cpp = micros(query, pys, args.repeats), micros(query, cpps, args.repeats)
        print(f"{name:36s} {py:10.2f} {cpp:10.2f} {py / cpp:6.1f}x")


if __name__ == "__main__":
    main()
