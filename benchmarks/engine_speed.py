"""Engine speed: uniform random play over ``legal_actions()`` for 3, 4 and 5 players.

Prints decisions/s, games/s and clones/s (minimum and median of the repeats) and the mean
number of decisions per game, in one small table. Single process, standard library only.
Targets: >= 20,000 decisions/s at 4 players and >= 50,000 clones/s.

    python benchmarks/engine_speed.py [--games N] [--repeats R] [--players 3,4,5]

The Python engine, the reference (``benchmarks/native_speed.py`` measures the C++ core
beside it). A "decision" is one ``legal_actions()`` + policy choice + ``apply_action()``; a
clone is one ``Game.clone()`` of a state met during that play (every 8th state is kept).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perikles_env.engine import Game, GameConfig, new_game  # noqa: E402
from perikles_env.engine.rng import Rng  # noqa: E402

CLONE_SAMPLE_EVERY = 8
CLONES_PER_STATE = 4


def play(
    n: int, games: int, seed0: int, record_events: bool, backend: str = "python"
) -> tuple[float, int, list[Game]]:
    """Play ``games`` seeded random games on ``backend``; returns (seconds, decisions,
    the state after every ``CLONE_SAMPLE_EVERY``-th decision, cloned outside the timing)."""
    config = GameConfig(num_players=n, record_events=record_events)
    decisions = 0
    kept: list[Game] = []
    elapsed = 0.0
    for seed in range(seed0, seed0 + games):
        g = new_game(config, seed=seed, backend=backend)
        policy = Rng(seed)
        start = time.perf_counter()
        while not g.is_terminal:
            legal = g.legal_actions()
            g.apply_action(legal[policy.randrange(len(legal))])
            decisions += 1
            if decisions % CLONE_SAMPLE_EVERY == 0:
                elapsed += time.perf_counter() - start
                kept.append(g.clone())
                start = time.perf_counter()
        elapsed += time.perf_counter() - start
    return elapsed, decisions, kept


def time_clones(states: list[Game]) -> float:
    start = time.perf_counter()
    for g in states:
        for _ in range(CLONES_PER_STATE):
            g.clone()
    return len(states) * CLONES_PER_STATE / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Perikles engine speed (random play).")
    parser.add_argument("--games", type=int, default=160, help="games per repeat and count")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default="3,4,5", help="comma-separated player counts")
    parser.add_argument(
        "--no-events", action="store_true", help="GameConfig(record_events=False), as rollouts"
    )
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.players.split(",")]
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{args.games} games x {args.repeats} repeats per player count, "
        f"events {'off' if args.no_events else 'on'}"
    )
    header = (
        f"{'players':>7} {'dec/game':>9} {'decisions/s min':>16} {'median':>9} "
        f"{'games/s min':>12} {'median':>8} {'clones/s min':>13} {'median':>9}"
    )
    print(header)
    print("-" * len(header))
    for n in counts:
        dec_rates, game_rates, clone_rates, lengths = [], [], [], []
        for r in range(args.repeats):
            seconds, decisions, kept = play(n, args.games, r * args.games, not args.no_events)
            dec_rates.append(decisions / seconds)
            game_rates.append(args.games / seconds)
            clone_rates.append(time_clones(kept))
            lengths.append(decisions / args.games)
        print(
            f"{n:>7} {statistics.mean(lengths):>9.1f} "
            f"{min(dec_rates):>16,.0f} {statistics.median(dec_rates):>9,.0f} "
            f"{min(game_rates):>12.1f} {statistics.median(game_rates):>8.1f} "
            f"{min(clone_rates):>13,.0f} {statistics.median(clone_rates):>9,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
