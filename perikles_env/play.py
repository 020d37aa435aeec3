"""Play Perikles in the terminal against agents.

    python -m perikles_env.play --opponents heuristic
    python -m perikles_env.play --opponents heuristic,random,ppo:runs/default/model.zip --seat 2
    python -m perikles_env.play --players 3 --opponents random --seed 7

You sit at ``--seat`` (default 0); the other seats get the ``--opponents`` specs in order,
the last one repeated (agent registry names: random, heuristic, ismcts, ppo:<path>). At each
of your decisions the board is shown as you may see it, then your legal actions, numbered:
type a number (or ``?`` to show the board again, ``q`` to quit). Opponents' moves appear as
public events. ``--auto`` lets an agent play your seat too (a demo, or a test).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import numpy as np

from .agents import Agent, AgentError, make_agent, split_specs
from .engine import Game, GameConfig
from .engine import data as D

Reader = Callable[[str], str]


def board_text(game: Game, seat: int) -> str:
    """What ``seat`` may see: the environment's leak-free text board, and its own special."""
    from .environment.render import render_text

    text = render_text(game, seat)
    own = game.special[seat]
    if own >= 0 and D.SPECIAL_NAMES[own] not in text:
        played = " (played)" if game.special_played[own] >= 0 else ""
        text += f"\nyour special tile: {D.SPECIAL_NAMES[own]}{played}"
    return text


def event_text(event: tuple) -> str:
    return " ".join(str(x) for x in event)


def choose(game: Game, seat: int, read: Reader, write: Callable[[str], None]) -> int | None:
    """Ask for one of the legal actions; None means quit."""
    legal = game.legal_actions()
    write(board_text(game, seat))
    write("your options:")
    for i, a in enumerate(legal):
        write(f"  {i:3d}: {game.action_to_str(a)}")
    while True:
        answer = read(f"choice [0-{len(legal) - 1}, ? board, q quit]: ").strip().lower()
        if answer in ("q", "quit", "exit"):
            return None
        if answer == "?":
            write(board_text(game, seat))
            continue
        if answer.isdigit() and int(answer) < len(legal):
            return legal[int(answer)]
        write(f"please type a number from 0 to {len(legal) - 1}")


def play(
    players: int,
    seat: int,
    opponents: Sequence[str],
    seed: int,
    read: Reader = input,
    write: Callable[[str], None] = print,
    auto: Agent | None = None,
) -> list[int] | None:
    """Play one game; returns the final scores (None if the human quit)."""
    others = list(opponents) + [opponents[-1]] * (players - 1 - len(opponents))
    agents: dict[int, Agent] = {}
    for p in range(players):
        if p != seat:
            agents[p] = make_agent(others.pop(0))
    game = Game.new(GameConfig(num_players=players), seed=seed)
    rng = np.random.default_rng(seed)
    write(f"Perikles, {players} players, seed {seed}. You are p{seat}; "
          + ", ".join(f"p{p}={a.describe()}" for p, a in agents.items()))
    seen = 0
    while not game.is_terminal:
        p = game.current
        if p == seat:
            for event in game.event_log[seen:]:
                write("  · " + event_text(event))
            seen = len(game.event_log)
            if auto is not None:
                action: int | None = auto.act_state(game.clone(), p, rng)
            else:
                action = choose(game, seat, read, write)
            if action is None:
                write("bye")
                return None
            write(f"p{seat} (you): {game.action_to_str(action)}")
        else:
            action = agents[p].act_state(game.clone(), p, rng)
        game.apply_action_checked(action)
    for event in game.event_log[seen:]:
        write("  · " + event_text(event))
    scores = game.scores()
    winners = game.winners()
    write(board_text(game, seat))
    write(f"game over: scores {scores}; winner(s): {', '.join(f'p{w}' for w in winners)}"
          + (" — you win!" if seat in winners else ""))
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perikles_env.play", description="Play Perikles against agents."
    )
    parser.add_argument("--players", type=int, default=4, choices=range(3, 6))
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1")
    parser.add_argument(
        "--opponents", default="heuristic",
        help="comma-separated agent specs for the other seats (last one repeated)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--auto", metavar="SPEC", help="let this agent play your seat")
    args = parser.parse_args(argv)
    if not 0 <= args.seat < args.players:
        parser.error(f"--seat must be in 0..{args.players - 1}")
    try:
        specs = split_specs(args.opponents)
        if not specs:
            raise AgentError("--opponents is empty")
        auto = make_agent(args.auto) if args.auto else None
        play(args.players, args.seat, specs, args.seed, auto=auto)
    except AgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        print("\nbye")
    return 0


if __name__ == "__main__":
    sys.exit(main())
