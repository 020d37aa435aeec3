"""Cost of the learner's observation: the base encoder against the optional battle block
(``env.features: [battle]``, ``perikles_env/analysis/battle_features.py``).

Both are timed on the same decision points: seat 0's decisions in seeded random 4-player
games, in game order, as the single-agent wrapper meets its learner's (one encoder kept
across calls, so its incremental cache works as in training). Alternating rounds let a
noisy machine affect both alike. Prints microseconds per call and
the battle block's cost as a multiple of the base observation's (docs/training.md cites it).

Usage: ``python benchmarks/feature_speed.py [--games 20] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from perikles_env.analysis.battle_features import battle_features
from perikles_env.analysis.observation import ObservationEncoder
from perikles_env.engine import Game, GameConfig, new_game


def decision_points(games: int, players: int) -> list[tuple[Game, int]]:
    """A copy of the game at every seat-0 decision of ``games`` seeded random games."""
    rng = random.Random(0)
    out = []
    for seed in range(games):
        game = new_game(GameConfig(num_players=players), seed=seed)
        while not game.is_terminal:
            if game.current == 0:
                out.append((game.clone(), 0))
            game.apply_action(rng.choice(game.legal_actions()))
    return out


def microseconds_per_call(states: list[tuple[Game, int]], call) -> float:
    start = time.perf_counter()
    for game, player in states:
        call(game, player)
    return (time.perf_counter() - start) / len(states) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    states = decision_points(args.games, args.players)
    base, battle = [], []
    for _ in range(args.rounds):
        base.append(microseconds_per_call(states, ObservationEncoder().encode))
        battle.append(microseconds_per_call(states, battle_features))
    b, f = statistics.median(base), statistics.median(battle)
    games = f"{args.games} random {args.players}-player games"
    print(f"{len(states)} seat-0 decision points from {games}")
    print(f"base observation   {b:8.1f} us/call")
    print(f"battle block       {f:8.1f} us/call   ({f / b:.1f}x the base observation)")


if __name__ == "__main__":
    main()
