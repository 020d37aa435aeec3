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

from .agents import Agent, AgentError, make_agent
from .engine import Game, GameConfig
from .engine import data as D

Reader = Callable[[str], str]


def board_text(game: Game, seat: int) -> str:
    """What ``seat`` may see (public state and its own special tile), as text."""
    n = game.n
    scores = game.scores()
    lines = [
        f"=== turn {game.turn}/{D.NUM_TURNS} · phase {game.phase.name} · you are P{seat} ===",
        "scores: " + "  ".join(f"P{p}{'*' if p == seat else ''}={scores[p]}" for p in range(n)),
        "",
        f"{'city':9s} " + " ".join(f"P{p:<2d}" for p in range(n))
        + "  candidates   leader  statues  defeats",
    ]
    for c, name in enumerate(D.CITY_NAMES):
        cubes = " ".join(f"{game.cubes[c * 5 + p]:<3d}" for p in range(n))
        cands = [game.cand[c * 2 + s] for s in range(2)]
        cand = " ".join("-" if q < 0 else f"P{q}" for q in cands)
        leader = "-" if game.leader[c] < 0 else f"P{game.leader[c]}"
        statues = ",".join(
            f"P{p}x{game.statues[c * 5 + p]}" for p in range(n) if game.statues[c * 5 + p]
        )
        lines.append(
            f"{name:9s} {cubes}  {cand:11s}  {leader:6s}  {statues or '-':7s}  "
            f"{game.defeats[c]}"
        )
    display = [D.influence_name(t) if t >= 0 else "(taken)" for t in game.display]
    lines += ["", "influence display: " + ", ".join(f"{i}:{t}" for i, t in enumerate(display))]
    locs = []
    for slot, t in enumerate(game.loc_display):
        tile = D.LOCATION_TILES[t]
        state = " done" if game.loc_done[t] else ""
        locs.append(f"{slot}:{tile.name}({D.CITY_NAMES[tile.city]},{tile.vp}VP{state})")
    lines.append("locations: " + ", ".join(locs))
    lines += forces_text(game)
    own = game.special[seat]
    if own >= 0:
        played = " (played)" if game.special_played[own] >= 0 else ""
        lines.append(f"your special tile: {D.SPECIAL_NAMES[own]}{played}")
    return "\n".join(lines)


def forces_text(game: Game) -> list[str]:
    """Counters at each location by side, city and type (strengths hidden: face down)."""
    lines = []
    for slot, t in enumerate(game.loc_display):
        sides = []
        for side, label in ((0, "attack"), (1, "defend")):
            main = game.main[slot * 2 + side]
            counts: dict[str, int] = {}
            for part in (0, 1):
                base = ((slot * 2 + side) * 2 + part) * D.NUM_CLASSES
                for k in range(D.NUM_CLASSES):
                    if game.at[base + k]:
                        city = D.MILITARY_CITY_NAMES[D.CLASS_CITY[k]]
                        key = f"{city}-{D.UNIT_TYPE_NAMES[D.CLASS_TYPE[k]]}"
                        counts[key] = counts.get(key, 0) + game.at[base + k]
            if main >= 0 or counts:
                who = f"P{main}" if main >= 0 else "-"
                forces = ", ".join(f"{v}x{k}" for k, v in sorted(counts.items())) or "none"
                sides.append(f"{label} {who}: {forces}")
        if sides:
            lines.append(f"  {D.LOCATION_TILES[t].name}: " + "; ".join(sides))
    return (["forces:"] + lines) if lines else []


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
    write(f"Perikles, {players} players, seed {seed}. You are P{seat}; "
          + ", ".join(f"P{p}={a.describe()}" for p, a in agents.items()))
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
            write(f"P{seat} (you): {game.action_to_str(action)}")
        else:
            action = agents[p].act_state(game.clone(), p, rng)
        game.apply_action_checked(action)
    for event in game.event_log[seen:]:
        write("  · " + event_text(event))
    scores = game.scores()
    winners = game.winners()
    write(board_text(game, seat))
    write(f"game over: scores {scores}; winner(s): {', '.join(f'P{w}' for w in winners)}"
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
        specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
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
