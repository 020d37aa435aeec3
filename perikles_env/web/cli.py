"""Start the web game server.

    python -m perikles_env.web                        # the new-game page on 127.0.0.1:8000
    python -m perikles_env.web --agent ppo:runs/default/model.zip
    python -m perikles_env.web --seats human,heuristic,heuristic,heuristic --seed 7
    perikles-play --web --opponents ppo:runs/default/model.zip   # the page set to that table

The server prints the address of the new-game page (and, with ``--seats``, a link for each
human seat of the game it creates). Games are kept under ``--games`` and continue after a
restart. It listens on 127.0.0.1 only, unless ``--allow-remote`` lets it bind another
address: then anyone who can reach that address can open the page and start games.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cli import CliParser, positive_int, stderr_line
from ..cli import seed as seed_number
from ..records import RecordError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_games_folder() -> Path:
    """``$XDG_DATA_HOME/perikles/games`` (``~/.local/share/perikles/games``)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "perikles" / "games"


def serve(
    host: str = "127.0.0.1", port: int = 8000, allow_remote: bool = False,
    games: str | Path | None = None, pace: float = 0.8, offered: Sequence[str] = (),
    seats: Sequence[str] = (), seed: int | None = None, defaults: dict[str, Any] | None = None,
) -> int:
    """Run the server until interrupted; returns the exit code (2: bad arguments)."""
    if host not in LOCAL_HOSTS and not allow_remote:
        stderr_line(f"web: error: {host!r} is not a loopback address; binding to it shows the "
                    "game to the network: add --allow-remote if that is what you want")
        return 2
    try:
        import uvicorn

        from .server import GameServer, create_app
        from .tables import TableError, Tables
    except ImportError as exc:
        stderr_line(f"web: error: the web game needs the 'web' extra "
                    f"(pip install 'perikles_env[web]'): {exc}")
        return 2
    problem = port_problem(host, port)
    if problem:
        stderr_line(f"web: error: cannot listen on {host}:{port}: {problem}")
        return 2
    tables = Tables(games or default_games_folder())
    loaded = tables.load()
    for line in tables.skipped:
        stderr_line(f"web: warning: not loaded: {line}")
    server = GameServer(tables, pace, list(offered), defaults)
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    if seats:
        try:
            table = tables.create(list(seats), seed)
        except (TableError, RecordError) as exc:
            stderr_line(f"web: error: {exc}")
            return 2
        for p, seat in enumerate(table.seats):
            if seat.human:  # the operator hands these links out: the seats are taken
                tables.codes.pop(seat.code, None)
                seat.claimed = True
                print(f"seat p{p}: {url}/seat/{seat.token}")
        table.save_seats()
    unfinished = [t for t in loaded if not t.over]
    for table in unfinished:
        for p, seat in enumerate(table.seats):
            if seat.human:
                where = (f"{url}/seat/{seat.token}" if seat.claimed
                         else f"open, join code {seat.code}")
                print(f"game {table.id} (step {table.step}), seat p{p}: {where}"
                      + (f"  ({table.error})" if table.error else ""))
    if allow_remote and host not in LOCAL_HOSTS:
        stderr_line(f"web: warning: listening on {host}: anyone who reaches this address "
                    "can start games and play in them with a seat link")
    print(f"Perikles web game: {url}/  (games in {tables.folder}, {len(unfinished)} continued, "
          f"{len(loaded) - len(unfinished) + len(tables.shelved)} over)", flush=True)
    app = create_app(server, local_only=not allow_remote)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0


def port_problem(host: str, port: int) -> str:
    """Why the server could not listen on ``host:port`` ("" if it can): said before any
    address or link is printed."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as exc:
        return exc.strerror or str(exc)
    return ""


def play_web(players: int, seat: int, opponents: Sequence[str], seed: int | None = None,
             host: str = "127.0.0.1", port: int = 8000, allow_remote: bool = False,
             pace: float = 0.8) -> int:
    """``perikles-play --web``: the server, its new-game page set to the terminal game's
    table (you at ``seat``, the ``opponents`` elsewhere, the last one repeated); agents read
    from a file among them (``ppo:<path>``) are offered in the page. An agent that cannot
    play ``players`` players is an AgentError here, before the server starts."""
    from ..agents import AgentError, make_agent
    from ..agents.registry import parse_spec

    for spec in sorted(set(opponents)):
        agent = make_agent(spec)  # a bad spec is an AgentError now, not when the page asks
        if players not in agent.supported_players:
            counts = " or ".join(map(str, agent.supported_players))
            raise AgentError(f"{spec!r} plays only {counts}-player games, not {players}")
    others = list(opponents) + [opponents[-1]] * (players - 1 - len(opponents))
    seats = others[:seat] + ["human"] + others[seat:players - 1]
    offered = sorted({s for s in opponents if parse_spec(s)[0] in ("ppo", "rllib")})
    defaults: dict[str, Any] = {"seats": seats}
    if seed is not None:
        defaults["seed"] = seed
    return serve(host, port, allow_remote, pace=pace, offered=offered, defaults=defaults)


def main(argv: Sequence[str] | None = None) -> int:
    parser = CliParser(prog="python -m perikles_env.web", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=positive_int, default=8000)
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow --host to be a non-loopback address")
    parser.add_argument("--games", metavar="DIR", help="where games are kept "
                        f"(default {default_games_folder()})")
    parser.add_argument("--pace", type=float, default=0.8,
                        help="seconds between two agent moves (default 0.8)")
    parser.add_argument("--agent", action="append", default=[], metavar="SPEC",
                        help="offer this agent in the new-game page (ppo:<path> etc.)")
    parser.add_argument("--seats", help="create a game now: comma-separated 'human' or "
                        "agent spec per seat")
    parser.add_argument("--seed", type=seed_number, help="seed of the game --seats creates")
    args = parser.parse_args(argv)
    if not 0 <= args.pace <= 60:
        parser.error(f"--pace must be 0 to 60 seconds, got {args.pace}")
    if args.games and Path(args.games).exists() and not Path(args.games).is_dir():
        parser.error(f"--games: {args.games!r} is not a folder")
    from ..agents import AgentError, make_agent, split_specs

    for spec in args.agent:
        try:
            make_agent(spec)
        except AgentError as exc:
            parser.error(f"--agent: {exc}")
    seats = split_specs(args.seats) if args.seats else []
    return serve(args.host, args.port, args.allow_remote, args.games, args.pace, args.agent,
                 seats, args.seed)


if __name__ == "__main__":
    sys.exit(main())
