"""Play one random game and print what happened: ``python -m perikles_env.demo``
(``--events``: every public event, in words)."""

from __future__ import annotations

import random

from .cli import CliParser, player_count, seed
from .engine import GameConfig, new_game


def main(argv: list[str] | None = None) -> None:
    parser = CliParser(prog="python -m perikles_env.demo", description=__doc__)
    parser.add_argument("--players", type=player_count, default=4, help="3 to 5")
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--events", action="store_true", help="print the public event log")
    args = parser.parse_args(argv)
    game = new_game(GameConfig(num_players=args.players), seed=args.seed)
    chooser = random.Random(args.seed)
    decisions = 0
    while not game.is_terminal:
        game.apply_action(chooser.choice(game.legal_actions()))
        decisions += 1
    if args.events:
        # the words live with the other phrasings of the game (render.narrate, stdlib only)
        from perikles_env.render.narrate import describe_events

        for text in describe_events(game.event_log):
            print(text)
    print(f"{args.players} players, seed {args.seed}: {decisions} decisions, turn {game.turn}")
    print("scores:", game.scores(), "winners:", game.winners())


if __name__ == "__main__":
    main()
