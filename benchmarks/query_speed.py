"""Microseconds per rule query (engine/queries.py and Game's query methods): the Python
engine against the C++ core (``queries.py`` dispatches a NativeGame's queries to C++), in
one run on the same states, and the queries left in Python on both.

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
from perikles_env.engine import queries as Q  # noqa: E402
from perikles_env.engine.rng import Rng  # noqa: E402

QUERIES: dict[str, Callable[[Any], Any]] = {
    "placement_targets (all slots)": lambda g: Q.placement_targets(g, 1, 2),
    "placement_status": lambda g: Q.placement_status(g, 1, 2, 3, 1),
    "class_placement_status": lambda g: Q.class_placement_status(g, 1, 17, 3, 1),
    "military_knowledge": lambda g: Q.military_knowledge(g, 1),
    "proposals": lambda g: Q.proposals(g.cubes, g.cand, 1, g.n),
    "assassination_targets": lambda g: Q.assassination_targets(g.cubes, g.cand, g.n, 1),
    "plague_losses": lambda g: Q.plague_losses(g.cubes, g.cand, 2, g.n),
    "statue_vp": lambda g: Q.statue_vp(g.statues, g.defeats, 1),
    "location_vp": lambda g: Q.location_vp(g.loc_claim, 1),
    "Game.location_vp": lambda g: g.location_vp(1),
    "Game.statue_count": lambda g: g.statue_count(1),
    "Game.round_strengths": lambda g: g.round_strengths(2, 0),
    "Game.predicted_rounds": lambda g: g.predicted_rounds(2),
    "Game.ranking_keys": lambda g: g.ranking_keys(),
    "cube_vp (Python on both)": lambda g: Q.cube_vp(g.cubes, g.cand, 1),
    "election_outcome (Python on both)": lambda g: Q.election_outcome(g.cubes, g.cand, 2),
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
