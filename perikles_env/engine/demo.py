"""Play one random game and print what happened: ``python -m perikles_env.engine.demo``."""

from __future__ import annotations

import argparse
import random

from . import Game, GameConfig


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--events", action="store_true", help="print the public event log")
    args = parser.parse_args(argv)
    game = Game.new(GameConfig(num_players=args.players), seed=args.seed)
    chooser = random.Random(args.seed)
    decisions = 0
    while not game.is_terminal:
        game.apply_action(chooser.choice(game.legal_actions()))
        decisions += 1
    if args.events:
        for event in game.event_log:
            print(*event)
    print(f"{args.players} players, seed {args.seed}: {decisions} decisions, turn {game.turn}")
    print("scores:", game.scores(), "winners:", game.winners())


if __name__ == "__main__":
    main()
