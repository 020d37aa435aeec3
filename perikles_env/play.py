"""Play Perikles in the terminal against agents.

    python -m perikles_env.play --opponents heuristic
    python -m perikles_env.play --opponents heuristic,random,ppo:runs/default/model.zip --seat 2
    python -m perikles_env.play --players 3 --opponents random --seed 7 --record games.jsonl

You sit at ``--seat`` (default 0); the other seats get the ``--opponents`` specs in order,
the last one repeated (agent registry names: random, heuristic, ismcts, ppo:<path>).

At each of your decisions you see what happened since your last one, in words, then the
part of the board that matters now (the cities while influence is placed, the locations
and your hand while forces are committed, the battle while it is fought) and a short menu.
Choices come in steps: in the commit phase, location, then side, then counter. Type the
numbers one at a time or all at once (``3 2 1``); ``b`` goes back a step, ``u`` shows the
whole board, ``?`` explains, ``q`` quits. ``--record FILE`` appends the game to a JSONL
record that ``python -m perikles_env.replay`` turns into an HTML viewer. ``--auto SPEC``
lets an agent play your seat too (a demo, or a test).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .agents import Agent, AgentError, game_for, make_agent, split_specs
from .cli import CliParser, non_negative_int, player_count, seed
from .engine import Game, GameConfig, Phase
from .engine import actions as A
from .engine import data as D
from .environment.render import (
    city_lines,
    hand_lines,
    header_lines,
    influence_lines,
    location_lines,
    render_text,
)
from .records import GameRecord, RecordError, append_record
from .render.words import ROUND_NAMES, event_text, special_title, who

Reader = Callable[[str], str]
Writer = Callable[[str], None]

HELP = """\
How to answer: each menu lists numbered choices. Type a number and Enter; a choice with
'...' opens the next step (in the commit phase: location, then side, then counter). You can
type several numbers at once, e.g. '3 2 1'. Other keys:
  b  back one step        u  the whole board       e  all events so far
  ?  this help            q  quit the game
Counters: H = hoplite, T = trireme, then the strength; '?' marks a face-down counter whose
strength you cannot know. Player seats are p0..p4; you are marked '(you)'."""


# ---- what to show now ----------------------------------------------------------------------

_INFLUENCE_PHASES = (
    Phase.SETUP_PLACE, Phase.INFLUENCE_PICK, Phase.ALKIBIADES_CUBE, Phase.ALKIBIADES_DEST,
    Phase.ANY_CITY, Phase.CANDIDATE_TILE, Phase.ASSASSIN_TILE, Phase.POST_PICK_SPECIAL,
)
_POLITICS_PHASES = (Phase.PROPOSE, Phase.SPARTA_CHOICE)


def phase_view(game: Game, seat: int) -> str:
    """The part of the board that matters for the decision at hand (leak-free)."""
    g = game
    parts = [header_lines(g, seat)]
    if g.phase in _INFLUENCE_PHASES:
        parts += [city_lines(g), influence_lines(g, seat)]
    elif g.phase in _POLITICS_PHASES:
        parts += [city_lines(g)]
    elif g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY):
        parts += [location_lines(g, seat, [g.b_slot]), [_battle_line(g)]]
    else:  # dead pool, commit, permission
        parts += [location_lines(g, seat), hand_lines(g, seat)]
    return "\n\n".join("\n".join(lines) for lines in parts if lines)


def _battle_line(g: Game) -> str:
    tile = D.LOCATION_TILES[g.loc_display[g.b_slot]]
    rounds = tile.rounds
    now = ""
    if 0 <= g.b_round < len(rounds):
        now = f"{ROUND_NAMES[D.UNIT_TYPE_NAMES[rounds[g.b_round]]]} round; "
    return f"battle at {tile.name}: {now}tokens attacker {g.b_tokens[0]}, defender {g.b_tokens[1]}"


# ---- menus ---------------------------------------------------------------------------------

_PLAIN = {
    "PLAY_PERIKLES": "play Perikles (2 cubes in any city)",
    "END_PICK": "no special now",
    "END_STEP": "end my commit step",
    "GRANT": "grant permission",
    "DENY": "deny permission",
    "BATTLE_PASS": "pass (no special)",
    "BATTLE_DOUBLE": "play my special: double the dice",
}


def _city(c: int) -> str:
    return D.MILITARY_CITY_NAMES[c].capitalize()


def action_path(game: Game, action: int) -> list[str]:
    """The menu steps that lead to ``action``: one label per step."""
    kind, a1, a2, a3 = A.decode(action)
    g = game
    me = g.current

    def seat(offset: int) -> str:
        return who((me + offset) % g.n, you=me)

    if kind == "PLACE":
        tile = D.LOCATION_TILES[g.loc_display[a2]]
        unit = ROUND_NAMES[D.UNIT_TYPE_NAMES[D.CLASS_TYPE[a1]]]
        return [
            f"commit to location {a2 + 1}: {tile.name.capitalize()} "
            f"({_city(tile.city)}, {tile.vp} VP)",
            ("attack", "defend")[a3],
            f"{_city(D.CLASS_CITY[a1])} {unit} {D.CLASS_STRENGTH[a1]} "
            f"(you hold {g.pool[a1]})",
        ]
    if kind == "PROPOSE":
        return [f"propose in {_city(a1)}", seat(a2)]
    if kind == "ASSASSINATE":
        target = "the alpha candidate" if a2 == A.ASSASSIN_ALPHA else (
            "the beta candidate" if a2 == A.ASSASSIN_BETA else f"a cube of {seat(a2)}"
        )
        return [f"assassinate in {_city(a1)}", target]
    if kind == "ALKIBIADES_CUBE":
        return ["play Alkibiades / move a cube", f"from {_city(a1)}", f"a cube of {seat(a2)}"]
    if kind == "PLAY_PLAGUE":
        return ["play Plague", _city(a1)]
    if kind == "SPEND_CUBE":
        return ["spend a cube for extra forces", f"from {_city(a1)}"]
    if kind == "SLAVE_REVOLT":
        return ["play Slave Revolt", "Sparta's hand" if a1 == 0 else f"location {a1}"]
    if kind == "TAKE_TILE":
        return [f"take tile {a1 + 1}: {D.influence_name(g.display[a1])}"]
    if kind in ("SETUP_CUBE", "ANY_CITY", "ALKIBIADES_DEST"):
        return [f"a cube to {_city(a1)}"]
    if kind == "SPARTA_FIRST":
        return [f"{seat(a1)} commits first"]
    if kind == "DEAD_POOL":
        return [f"recover a {('hoplite', 'trireme')[a1]}"]
    if kind == "CASUALTY":
        return [f"lose the {_city(a1)} counter"]
    if kind == "BATTLE_TOKEN":
        name = special_title(D.SPECIAL_NAMES[g.special[me]]) if g.special[me] >= 0 else "token"
        return [f"play {name} for the {('attacker', 'defender')[a1]}"]
    return [_PLAIN.get(kind, g.action_to_str(action))]


@dataclass
class Menu:
    """Legal actions as a tree of labelled steps; ``prefix`` is the path chosen so far."""

    paths: list[tuple[list[str], int]]
    prefix: tuple[str, ...] = ()

    def options(self) -> list[tuple[str, int | None]]:
        """(label, action if this choice completes one) at the current step, in order."""
        depth = len(self.prefix)
        out: list[tuple[str, int | None]] = []
        seen: dict[str, int] = {}
        for path, action in self.paths:
            if tuple(path[:depth]) != self.prefix:
                continue
            label = path[depth]
            leaf = action if len(path) == depth + 1 else None
            if label not in seen:
                seen[label] = len(out)
                out.append((label, leaf))
        return out


def choose(game: Game, seat: int, read: Reader, write: Writer) -> int | None:
    """Ask for one legal action through the menus; ``None`` means quit."""
    menu = Menu([(action_path(game, a), a) for a in game.legal_actions()])
    write(phase_view(game, seat))
    pending: list[str] = []
    while True:
        options = menu.options()
        if not pending:
            step = " > ".join(menu.prefix)
            write(f"\n{step + ':' if step else 'your move:'}")
            for i, (label, leaf) in enumerate(options, start=1):
                write(f"  {i:2d}. {label}{'' if leaf is not None else ' ...'}")
            pending = read("choice (? help): ").split()
            if not pending:
                continue
        token = pending.pop(0).lower()
        if token in ("q", "quit", "exit"):
            return None
        if token in ("?", "h", "help"):
            write(HELP)
        elif token == "u":
            write(render_text(game, seat))
        elif token == "e":
            write("\n".join(event_text(e, seat) for e in game.event_log))
        elif token == "b":
            menu.prefix = menu.prefix[:-1]
        elif token.isdecimal() and token.isascii() and 1 <= int(token) <= len(options):
            label, leaf = options[int(token) - 1]
            if leaf is not None:
                return leaf
            menu.prefix = (*menu.prefix, label)
        else:  # drop the rest of the line: it was meant for another menu
            write(f"'{token}' is not a choice here: type 1 to {len(options)}, or ? for help")
            pending = []


# ---- the game ------------------------------------------------------------------------------


def play(
    players: int,
    seat: int,
    opponents: Sequence[str],
    seed: int,
    read: Reader = input,
    write: Writer = print,
    auto: Agent | None = None,
    record: str | None = None,
) -> list[int] | None:
    """Play one game; returns the final scores (None if the human quit)."""
    others = list(opponents) + [opponents[-1]] * (players - 1 - len(opponents))
    agents: dict[int, Agent] = {}
    names: list[str] = []
    for p in range(players):
        if p == seat:
            names.append("you" if auto is None else f"you ({auto.describe()})")
        else:
            agents[p] = make_agent(others.pop(0))
            names.append(agents[p].describe())
    game = Game.new(GameConfig(num_players=players), seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    write(f"Perikles, {players} players, seed {seed}. You are p{seat}; "
          + ", ".join(f"p{p}={a.describe()}" for p, a in agents.items())
          + ". Type ? at any prompt for help.")
    seen = 0
    quit_ = False
    while not game.is_terminal:
        p = game.current
        if p == seat:
            seen = _write_events(game, seen, seat, write)
            if auto is not None:
                action: int | None = auto.act_state(game_for(auto, game), p, rng)
            else:
                action = choose(game, seat, read, write)
            if action is None:
                quit_ = True
                break
            write(f"p{seat} (you): {' > '.join(action_path(game, action))}")
        else:
            action = agents[p].act_state(game_for(agents[p], game), p, rng)
        game.apply_action_checked(action)
        actions.append(int(action))
    _write_events(game, seen, seat, write)
    if record:
        append_record(record, GameRecord(seed, players, names, actions), game)
        write(f"game recorded in {record}")
    if quit_:
        write("bye")
        return None
    write(render_text(game, seat))
    winners = game.winners()
    write(f"game over: scores {game.scores()}; winner(s): {', '.join(f'p{w}' for w in winners)}"
          + (" — you win!" if seat in winners else ""))
    return game.scores()


def _write_events(game: Game, seen: int, seat: int, write: Writer) -> int:
    for event in game.event_log[seen:]:
        write("  · " + event_text(event, seat))
    return len(game.event_log)


def main(argv: Sequence[str] | None = None) -> int:
    parser = CliParser(
        prog="python -m perikles_env.play", description="Play Perikles against agents."
    )
    parser.add_argument("--players", type=player_count, default=4, help="3 to 5 (default 4)")
    parser.add_argument("--seat", type=non_negative_int, default=0,
                        help="your seat, 0..players-1")
    parser.add_argument(
        "--opponents", default="heuristic",
        help="comma-separated agent specs for the other seats (last one repeated)",
    )
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--auto", metavar="SPEC", help="let this agent play your seat")
    parser.add_argument("--record", metavar="FILE", help="append the game to this JSONL record")
    args = parser.parse_args(argv)
    if args.seat >= args.players:
        parser.error(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
    if args.record and not Path(args.record).resolve().parent.is_dir():
        parser.error(f"--record: folder of {args.record!r} does not exist")
    try:
        specs = split_specs(args.opponents)
        if not specs:
            raise AgentError("--opponents is empty")
        auto = make_agent(args.auto) if args.auto else None
        play(args.players, args.seat, specs, args.seed, auto=auto, record=args.record)
    except (AgentError, RecordError) as exc:
        parser.error(str(exc))
    except (EOFError, KeyboardInterrupt):
        print("\nbye")
    return 0


if __name__ == "__main__":
    sys.exit(main())
