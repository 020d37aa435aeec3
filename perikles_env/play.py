"""Play Perikles in the terminal against agents.

    python -m perikles_env.play --opponents heuristic
    python -m perikles_env.play --opponents heuristic,random,ppo:runs/default/model.zip --seat 2
    python -m perikles_env.play --players 3 --opponents random --seed 7 --record games.jsonl

You sit at ``--seat`` (default 0); the other seats get the ``--opponents`` specs in order,
the last one repeated (agent registry names: random, heuristic, ismcts, ppo:<path>). Each
game gets a fresh random seed, printed at the start, unless ``--seed`` is given.

At each of your decisions you see what happened since your last one, in words, then the
part of the board that matters now (the cities while influence is placed, the locations
and your hand while forces are committed, the battle and its odds while it is fought) and
a short menu. Every choice has a key that does not change between prompts: a location's
number, a city's number (1 Athens ... 6 Megara), a seat (``p2``), ``a``/``d`` for attack
or defence, ``2h3`` for a Sparta hoplite 3, ``s`` for your special tile, ``0`` to end a
step or pass. Choices come in steps (in the commit phase: location, then side, then
counter); type the keys one at a time or all at once (``3 a 2h3``). ``b`` goes back a
step, ``u`` shows the whole board, ``l`` the event log, ``?`` explains, ``q`` quits. A
decision with a single legal answer (a battle round where your special cannot be played)
is taken for you, and said.

``--record FILE`` appends the game to a JSONL record that ``python -m perikles_env.replay``
turns into an HTML viewer; it is written when the game ends, when you quit, and on Ctrl-C
or Ctrl-D (then the exit code is 130 or 1). ``--auto SPEC`` lets an agent play your seat
too (a demo, or a test).
"""

from __future__ import annotations

import os
import random
import select
import signal
import sys
import termios
import textwrap
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .agents import (
    Agent,
    AgentError,
    TableLoop,
    check_plays,
    decide,
    make_agent,
    split_specs,
)
from .agents.table_loop import ENGINE
from .cli import CliParser, non_negative_int, player_count, positive_int, seed
from .engine import Game, GameConfig, Phase, new_game
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
from .records import GameRecord, RecordError, append_record, path_problem
from .render.narrate import (
    battle_summary,
    city,
    class_words,
    describe_action,
    describe_events,
    location,
    who,
)

Reader = Callable[[str], str]
Writer = Callable[[str], None]

HELP = """\
How to answer: each menu lists its choices with their keys. Type a key and Enter; a choice
with '...' opens the next step (in the commit phase: location, then side, then counter).
Keys stay the same from one prompt to the next: locations and display tiles by their
number, cities by number (1 Athens, 2 Sparta, 3 Argos, 4 Corinth, 5 Thebes, 6 Megara,
7 Persia), seats as p0..p4, a/d attack/defend, a counter as its city's number, h or t and
its strength (2h3: a Sparta hoplite 3), s your special tile, 0 end the step or pass. You
can type several keys at once, e.g. '3 a 2h3'. Other keys:
  b  back one step        u  the whole board       l  the event log so far
  ?  this help            q  quit the game (the record is kept)
Counters: H = hoplite, T = trireme, then the strength; '?' marks a face-down counter whose
strength you cannot know. Player seats are p0..p4; you are marked '(you)'."""
COMMANDS = ("b", "u", "l", "?", "q")


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
        summary = battle_summary(g, seat) or ""
        odds = [
            part
            for line in summary.splitlines()
            for part in textwrap.wrap(line, 100, subsequent_indent="    ")
        ]
        parts += [location_lines(g, seat, [g.b_slot]), odds]
    else:  # dead pool, commit, permission
        parts += [location_lines(g, seat), hand_lines(g, seat)]
    return "\n\n".join("\n".join(lines) for lines in parts if lines)


# ---- menus ---------------------------------------------------------------------------------

Step = tuple[str, str]  # (key, label)


def _city_key(c: int) -> str:
    return str(c + 1)


def action_path(game: Game, action: int) -> list[Step]:
    """The menu steps that lead to ``action``: (key, label) per step. Keys depend only on
    what the step names (a city, a location, a seat, a counter), never on its position in
    the menu, so they stay the same from one prompt to the next."""
    kind, a1, a2, a3 = A.decode(action)
    g = game
    me = g.current

    def seat(offset: int) -> Step:
        q = (me + offset) % g.n
        return f"p{q}", who(q, you=me)

    if kind == "PLACE":
        tile = D.LOCATION_TILES[g.loc_display[a2]]
        home = D.CLASS_CITY[a1]
        unit = D.UNIT_TYPE_NAMES[D.CLASS_TYPE[a1]].lower()
        return [
            (str(a2 + 1), f"commit to {location(g, a2)}: {city(tile.city)}, {tile.vp} VP"),
            ("ad"[a3], ("attack", "defend")[a3]),
            (f"{_city_key(home)}{unit}{D.CLASS_STRENGTH[a1]}",
             f"{class_words(a1)} (you hold {g.pool[a1]})"),
        ]
    if kind == "PROPOSE":
        return [(_city_key(a1), f"propose in {city(a1)}"), seat(a2)]
    if kind == "ASSASSINATE":
        if a2 in (A.ASSASSIN_ALPHA, A.ASSASSIN_BETA):
            rank = "ab"[a2 == A.ASSASSIN_BETA]
            target = (f"c{rank}", f"the {('alpha', 'beta')[a2 == A.ASSASSIN_BETA]} candidate")
        else:
            key, name = seat(a2)
            target = (key, f"a cube of {name}")
        return [(_city_key(a1), f"assassinate in {city(a1)}"), target]
    if kind == "ALKIBIADES_CUBE":
        steps = [(_city_key(a1), f"a cube from {city(a1)}"), seat(a2)]
        if g.phase == Phase.ALKIBIADES_CUBE:
            return steps
        return [("s", "play Alkibiades: move 2 cubes")] + steps
    if kind == "PLAY_PLAGUE":
        return [("s", "play Plague on a city"), (_city_key(a1), city(a1))]
    if kind == "PLAY_PERIKLES":
        return [("s", describe_action(g, action, me))]
    if kind == "SPEND_CUBE":
        return [("s", "spend a cube for 2 more counters"), (_city_key(a1), f"from {city(a1)}")]
    if kind == "SLAVE_REVOLT":
        where = "Sparta's leader's hand" if a1 == 0 else location(g, a1 - 1)
        return [("r", "play Slave Revolt"), (str(a1), where)]
    if kind == "TAKE_TILE":
        return [(str(a1 + 1), describe_action(g, action, me))]
    if kind in ("SETUP_CUBE", "ANY_CITY", "ALKIBIADES_DEST"):
        return [(_city_key(a1), describe_action(g, action, me))]
    if kind == "SPARTA_FIRST":
        return [(seat(a1)[0], describe_action(g, action, me))]
    if kind == "DEAD_POOL":
        return [("ht"[a1], describe_action(g, action, me))]
    if kind == "CASUALTY":
        return [(_city_key(a1), describe_action(g, action, me))]
    if kind == "BATTLE_TOKEN":
        return [("ad"[a1], describe_action(g, action, me))]
    keys = {"END_PICK": "0", "END_STEP": "0", "BATTLE_PASS": "0", "BATTLE_DOUBLE": "s",
            "GRANT": "y", "DENY": "n"}
    return [(keys[kind], describe_action(g, action, me))]


@dataclass
class Menu:
    """Legal actions as a tree of keyed steps; ``prefix`` is the keys chosen so far."""

    paths: list[tuple[list[Step], int]]
    prefix: tuple[str, ...] = ()

    def options(self) -> list[tuple[str, str, int | None]]:
        """(key, label, action if this choice completes one) at the current step."""
        depth = len(self.prefix)
        out: list[tuple[str, str, int | None]] = []
        seen: set[str] = set()
        for path, action in self.paths:
            if tuple(k for k, _ in path[:depth]) != self.prefix:
                continue
            key, label = path[depth]
            if key not in seen:
                seen.add(key)
                out.append((key, label, action if len(path) == depth + 1 else None))
        return out

    def labels(self) -> list[str]:
        """The labels of the steps chosen so far."""
        for path, _action in self.paths:
            if tuple(k for k, _ in path[: len(self.prefix)]) == self.prefix:
                return [label for _, label in path[: len(self.prefix)]]
        return []


def read_line(prompt: str) -> str:
    """``input()`` for a person at a terminal. Keys typed before the prompt appeared (while
    agents moved) are dropped: they were meant for an earlier menu. Ctrl-C is never missed:
    ``input()`` blocks in ``read()`` when the signal lands between its prompt and that call
    (a busy machine), so the wait is a ``select`` that the signal's wakeup byte also ends.
    Piped input (and a caller off the main thread) goes through ``input()``, read as it comes."""
    if not sys.stdin.isatty() or threading.current_thread() is not threading.main_thread():
        return input(prompt)
    termios.tcflush(sys.stdin, termios.TCIFLUSH)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    previous = signal.set_wakeup_fd(wake_write)
    try:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        while True:
            ready, _, _ = select.select([sys.stdin, wake_read], [], [])
            # a signal's Python handler (KeyboardInterrupt for Ctrl-C) has run by now
            if wake_read in ready:
                os.read(wake_read, 64)
            if sys.stdin in ready:
                line = sys.stdin.readline()
                if not line:
                    raise EOFError
                return line.rstrip("\n")
    finally:
        signal.set_wakeup_fd(previous)
        os.close(wake_read)
        os.close(wake_write)


def choose(game: Game, seat: int, read: Reader, write: Writer) -> int | None:
    """Ask for one legal action through the menus; ``None`` means quit."""
    menu = Menu([(action_path(game, a), a) for a in game.legal_actions()])
    write(phase_view(game, seat))
    pending: list[str] = []
    while True:
        options = menu.options()
        if not pending:
            step = " > ".join(menu.labels())
            write(f"\n{step + ':' if step else 'your move:'}")
            for key, label, leaf in options:
                write(f"  {key:>4}. {label}{'' if leaf is not None else ' ...'}")
            pending = read("choice (? help): ").split()
            if not pending:
                continue
        token = pending.pop(0).lower()
        match = [(key, leaf) for key, _label, leaf in options if key == token]
        if match:
            key, leaf = match[0]
            if leaf is not None:
                return leaf
            menu.prefix = (*menu.prefix, key)
        elif token in ("q", "quit", "exit"):
            return None
        elif token in ("?", "help"):
            write(HELP)
        elif token == "u":
            write(render_text(game, seat))
        elif token == "l":
            write("\n".join(describe_events(game.event_log, seat)))
        elif token == "b":
            menu.prefix = menu.prefix[:-1]
        else:  # drop the rest of the line: it was meant for another menu
            keys = ", ".join(key for key, _label, _leaf in options)
            write(f"'{token}' is not a choice here: type one of {keys}, or ? for help")
            pending = []


# ---- the game ------------------------------------------------------------------------------


class Interrupted(Exception):
    """The human ended the game with Ctrl-C or Ctrl-D (the record, if any, is written)."""

    def __init__(self, how: str, code: int, recorded: str | None) -> None:
        where = f"; the game so far is recorded in {recorded}" if recorded else ""
        super().__init__(f"game interrupted ({how}){where}")
        self.code = code


def play(
    players: int,
    seat: int,
    opponents: Sequence[str],
    seed: int,
    read: Reader = read_line,
    write: Writer = print,
    auto: Agent | None = None,
    record: str | None = None,
) -> list[int] | None:
    """Play one game; returns the final scores (None if the human quit). Ctrl-C / Ctrl-D
    (``KeyboardInterrupt`` / ``EOFError`` from ``read``) write the record and raise
    ``Interrupted``."""
    others = list(opponents) + [opponents[-1]] * (players - 1 - len(opponents))
    agents: dict[int, Agent] = {}
    names: list[str] = []
    for p in range(players):
        if p == seat:
            names.append("you" if auto is None else f"you ({auto.describe()})")
        else:
            agents[p] = make_agent(others.pop(0))
            check_plays(agents[p], players)
            names.append(agents[p].describe())
    game = new_game(GameConfig(num_players=players), seed=seed)
    rng = np.random.default_rng(seed)
    write(f"Perikles, {players} players, seed {seed}. You are p{seat}; "
          + ", ".join(f"p{p}={a.describe()}" for p, a in agents.items())
          + ". Type ? at any prompt for help.")
    seen = 0

    def you(game: Game, p: int, rng: np.random.Generator) -> int | None:
        """The human's seat: the news since their last move, then their choice (None: quit)."""
        nonlocal seen
        seen = _write_events(game, seen, seat, write)
        legal = game.legal_actions()
        if auto is not None:
            action: int | None = decide(auto, game, p, rng)
        elif len(legal) == 1:
            action = legal[0]
            write(f"(your only choice here, taken: {describe_action(game, action, seat)})")
        else:
            action = choose(game, seat, read, write)
        if action is not None:
            write(f"p{seat} (you): {describe_action(game, action, seat)}")
        return action

    seats = [you if p == seat else agents[p] for p in range(players)]
    loop = TableLoop(game, seats, rng, check=ENGINE, stop_at_truncation=False, keep_actions=True)
    actions = loop.actions

    def save() -> None:
        if record:
            append_record(record, GameRecord(seed, players, names, actions), game)

    try:
        loop.run()
    except (KeyboardInterrupt, EOFError) as exc:
        save()
        how = "Ctrl-C" if isinstance(exc, KeyboardInterrupt) else "Ctrl-D: end of input"
        raise Interrupted(how, 130 if isinstance(exc, KeyboardInterrupt) else 1, record) from None
    _write_events(game, seen, seat, write)
    save()
    if record:
        write(f"game recorded in {record}")
    if not game.is_terminal:
        write("bye")
        return None
    write(render_text(game, seat))
    winners = game.winners()
    write(f"game over: scores {game.scores()}; winner(s): {', '.join(f'p{w}' for w in winners)}"
          + (" — you win!" if seat in winners else ""))
    return game.scores()


def _write_events(game: Game, seen: int, seat: int, write: Writer) -> int:
    for text in describe_events(game.event_log, seat, start=seen):
        write("\n".join(textwrap.wrap(text, 100, initial_indent="  · ", subsequent_indent="    ")))
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
    parser.add_argument("--seed", type=seed, default=None,
                        help="game seed (default: a fresh random one, printed at the start)")
    parser.add_argument("--auto", metavar="SPEC", help="let this agent play your seat")
    parser.add_argument("--record", metavar="FILE", help="append the game to this JSONL record")
    parser.add_argument("--web", action="store_true",
                        help="play in the browser instead: a local server (docs/play.md)")
    parser.add_argument("--host", default="127.0.0.1", help="with --web: address to listen on")
    parser.add_argument("--port", type=positive_int, default=8000, help="with --web: its port")
    parser.add_argument("--allow-remote", action="store_true",
                        help="with --web: allow a --host that is not a loopback address")
    parser.add_argument("--pace", type=float, default=None,
                        help="with --web: seconds between two agent moves (default 0.8)")
    args = parser.parse_args(argv)
    if args.pace is not None and not (args.web and 0 <= args.pace <= 60):
        parser.error("--pace is for --web, 0 to 60 seconds")
    if args.web and (args.record or args.auto):
        parser.error("--record and --auto are for the terminal game (the web game keeps "
                     "its records in its games folder)")
    if args.seat >= args.players:
        parser.error(f"--seat must be in 0..{args.players - 1}, got {args.seat}")
    if args.record:
        problem = path_problem(args.record)
        if problem:
            parser.error(f"--record: {problem}")
    game_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    try:
        specs = split_specs(args.opponents)
        if not specs:
            raise AgentError("--opponents is empty")
        if args.web:
            from .web.cli import play_web  # the web extra is loaded only for --web

            return play_web(args.players, args.seat, specs, args.seed, args.host, args.port,
                            args.allow_remote, 0.8 if args.pace is None else args.pace)
        auto = make_agent(args.auto) if args.auto else None
        if auto is not None:
            check_plays(auto, args.players)
        play(args.players, args.seat, specs, game_seed, auto=auto, record=args.record)
    except (AgentError, RecordError) as exc:
        parser.error(str(exc))
    except Interrupted as exc:
        print(f"\n{parser.prog}: {exc}", file=sys.stderr)
        return exc.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
