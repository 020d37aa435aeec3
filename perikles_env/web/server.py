"""The HTTP and WebSocket server of the web game (Starlette).

Every seat URL carries the seat's secret token, and every request about a game names a
token, never a seat number: a token opens exactly one seat's view and moves, so no page can
ask for another seat's view or act for it. A page loads ``/seat/<token>``, receives its
seat's payload over ``/ws/<token>`` after every change, and sends moves with ``POST
/api/seat/<token>/act``. Agents play in a background task, one move at a time, ``pace``
seconds apart, so that a person can follow them.

Bad requests get a 4xx status and a one-line JSON ``{"error": ...}`` and change nothing.
The browser chooses agents only by registry spec; a learned agent read from a file (``ppo:``,
``rllib:``, ``net:<path>``, ``search:model=<path>``) can be seated only when the server's
command line offered that exact spec (``net`` and ``search`` play the shipped network).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import traceback
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..agents import Agent, AgentError, decide, make_agent
from ..agents.registry import agent_names, parse_spec
from ..engine.actions import NUM_ACTIONS
from ..engine.game import Game
from .hints import HINT_AGENTS, hints
from .hotspots import with_layer
from .lobby import lobby
from .marks import marks_layer
from .pages import PAGES, STATIC
from .payload import seat_payload
from .rules_link import RULES, rules_html
from .tables import HUMAN, Table, TableError, Tables

FILE_AGENTS = ("ppo", "rllib")  # agents loaded from a path on the server
MAX_BODY = 4096
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",  # seat URLs hold tokens
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}

# The replay viewer is one self-contained document with its script and style inline.
REPLAY_HEADERS = {**HEADERS, "Content-Security-Policy": "default-src 'none'; "
                  "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
                  "base-uri 'none'; frame-ancestors 'none'"}


def error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": " ".join(message.split())}, status, headers=HEADERS)


def _int(body: dict[str, Any], key: str, low: int, high: int) -> int:
    value = body.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TableError(f"field {key!r} must be a whole number, got {json.dumps(value)[:40]}")
    if not low <= value < high:
        raise TableError(f"field {key!r} must be in {low}..{high - 1}, got {value}", 422)
    return value


async def _body(request: Request) -> dict[str, Any]:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise TableError("send a JSON body (Content-Type: application/json)", 415)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise TableError(f"the body is larger than {MAX_BODY} bytes", 413)
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TableError("the body is not valid JSON") from None
    except RecursionError:  # "[[[[..." deeper than the parser's stack
        raise TableError("the body is nested too deeply") from None
    if not isinstance(body, dict):
        raise TableError("the body must be a JSON object")
    return body


class GameServer:
    """The tables, the pages listening to them, and the agents playing at them."""

    def __init__(self, tables: Tables, pace: float = 0.8, offered: list[str] | None = None,
                 defaults: dict[str, Any] | None = None) -> None:
        self.tables = tables
        self.pace = pace
        self.offered = list(offered or [])
        self.defaults = defaults or {}
        self.listeners: dict[str, set[asyncio.Event]] = defaultdict(set)
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.paces: dict[str, float] = {}  # a table's own pace, set from its pages
        self.paused: set[str] = set()  # tables whose agents wait
        self.hint_agents: dict[str, Agent] = {}
        self._supported: dict[str, list[int]] = {}  # the player counts of each offered spec
        self.replays: dict[str, asyncio.Task[None]] = {}

    def pace_of(self, table: Table) -> float:
        return self.paces.get(table.id, self.pace)

    # ---- agents ---------------------------------------------------------------------------

    def notify(self, table: Table) -> None:
        for event in self.listeners[table.id]:
            event.set()
        if table.over and not (table.folder / "replay.html").is_file():
            self.write_replay(table)  # ready by the time someone asks for it

    def drive(self, table: Table) -> None:
        """Start the agents' moves at ``table`` if an agent is to act and none is moving."""
        running = self.drivers.get(table.id)
        if table.agent_to_act() is not None and (running is None or running.done()):
            self.drivers[table.id] = asyncio.create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        """The agents' moves, one at a time, ``pace`` seconds apart (``agent_move``); a move
        the table no longer waits for (taken back meanwhile) is dropped."""
        rng = np.random.default_rng([table.seed, table.step])
        while (agent := table.agent_to_act()) is not None and not table.error:
            step = table.step
            await asyncio.sleep(self.pace_of(table))
            while table.id in self.paused:
                await asyncio.sleep(0.05)
            if table.step != step or table.agent_to_act() is not agent:
                continue
            p = table.game.current
            try:
                game = table.game.clone()  # the agent thinks in a thread on its own copy
                action = await asyncio.to_thread(agent_move, agent, game, p, rng)
                if table.step == step:
                    table.apply(action)
            except Exception as exc:  # an agent that fails stops its table, not the server
                traceback.print_exc()
                table.error = f"p{p} ({table.names[p]}) failed: {exc}"
            self.notify(table)

    # ---- HTTP -----------------------------------------------------------------------------

    def payload(self, table: Table, seat: int | None) -> dict[str, Any]:
        """What seat ``seat`` sees (None: a spectator); at the end, where the record is."""
        feed = table.public_feed if seat is None else table.feed[seat]
        out = seat_payload(table.game, seat, table.names, feed, table.step, table.id,
                           table.error, table.abandoned)
        out["board"] = with_layer(out["board"], marks_layer(table.game, table.last_moves, seat))
        out["undo"] = seat is not None and not table.undo_refusal(seat)
        out["pace"] = self.pace_of(table)
        out["paused"] = table.id in self.paused
        if table.over:
            path = table.folder / "record.jsonl"
            out["record"] = {"path": str(path), "link": f"/api/games/{table.id}/record",
                             "command": f"python -m perikles_env.replay {path} -o game.html"}
        return out

    async def rules_page(self, request: Request) -> Response:
        """docs/rules.md with an id on each heading: the decision panel links its section."""
        if not RULES.is_file():
            return HTMLResponse(PAGES["unknown"], 404, headers=HEADERS)
        return HTMLResponse(rules_html(), headers=HEADERS)

    async def index(self, request: Request) -> Response:
        return HTMLResponse(PAGES["index"], headers=HEADERS)

    async def seat_page(self, request: Request) -> Response:
        try:
            self.tables.seat(request.path_params["token"])
        except TableError:
            return HTMLResponse(PAGES["unknown"], 404, headers=HEADERS)
        return HTMLResponse(PAGES["play"], headers=HEADERS)

    async def watch_page(self, request: Request) -> Response:
        if not self.tables.has(request.path_params["game"]):
            return HTMLResponse(PAGES["unknown"], 404, headers=HEADERS)
        return HTMLResponse(PAGES["play"], headers=HEADERS)

    async def watch_state(self, request: Request) -> Response:
        table = self.tables.table(request.path_params["game"])
        return JSONResponse(self.payload(table, None), headers=HEADERS)

    async def record(self, request: Request) -> Response:
        """The whole record (with the seed) of a finished or abandoned game, for anyone."""
        table = self.tables.table(request.path_params["game"])
        if not table.over:
            raise TableError("the record is shown when the game is over", 403)
        return FileResponse(table.folder / "record.jsonl", media_type="application/json",
                            headers=HEADERS)

    async def replay_page(self, request: Request) -> Response:
        """The replay viewer of a finished or abandoned game (``perikles_env.replay``),
        written into the game's folder once, as soon as the game is over."""
        table = self.tables.table(request.path_params["game"])
        if not table.over:
            raise TableError("the replay is shown when the game is over", 403)
        path = table.folder / "replay.html"
        if not path.is_file():
            await self.write_replay(table)
        return FileResponse(path, media_type="text/html", headers=REPLAY_HEADERS)

    def write_replay(self, table: Table) -> asyncio.Task[None]:
        """The task that writes the game's replay viewer (started once per game)."""
        task = self.replays.get(table.id)
        if task is None:
            self.replays[table.id] = task = asyncio.create_task(
                asyncio.to_thread(_write_replay, table.folder))
        return task

    async def abandon(self, request: Request) -> Response:
        """A player gives the game up (a game an agent cannot go on with, or one nobody
        wants to finish): nobody moves any more; the record is kept."""
        table, seat = self.tables.seat(request.path_params["token"])
        await _body(request)
        table.abandon(f"p{seat} gave the game up" + (f" ({table.error})" if table.error else ""))
        self.notify(table)
        return JSONResponse({"step": table.step, "abandoned": table.abandoned}, headers=HEADERS)

    async def options(self, request: Request) -> Response:
        """What the new-game form offers."""
        agents = [a for a in agent_names() if a not in FILE_AGENTS] + self.offered
        players = {a: await asyncio.to_thread(self.supported_players, a) for a in agents}
        return JSONResponse({"agents": [HUMAN, *agents], "defaults": self.defaults,
                             "players": players}, headers=HEADERS)

    def supported_players(self, spec: str) -> list[int]:
        """The player counts the agent ``spec`` can play (``Agent.supported_players``), so
        the form marks the others before a game is refused; made once per spec."""
        if spec not in self._supported:
            try:
                self._supported[spec] = sorted(make_agent(spec).supported_players)
            except (AgentError, OSError, ValueError, ImportError):
                self._supported[spec] = []  # cannot be made here: the creation says why
        return self._supported[spec]

    async def create(self, request: Request) -> Response:
        body = await _body(request)
        seats = body.get("seats")
        if not (isinstance(seats, list) and all(isinstance(s, str) and len(s) <= 300
                                                for s in seats)):
            raise TableError("field 'seats' must be a list of seat specs (\"human\" or an agent)")
        for spec in seats:
            if spec != HUMAN and spec not in self.offered:
                try:
                    name, options = parse_spec(spec)
                except AgentError as exc:
                    raise TableError(str(exc)) from None
                if name in FILE_AGENTS or options.get("path") or "model" in options:
                    raise TableError(f"{spec!r}: agents read from a file can be seated only "
                                     "when the server's command line offers them")
        seed = None if body.get("seed") is None else _int(body, "seed", 0, 2**32)
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise TableError("field 'private' must be true or false")
        table = self.tables.create(seats, seed, private)
        self.drive(table)
        return JSONResponse(self.created(table), 201, headers=HEADERS)

    @staticmethod
    def created(table: Table) -> dict[str, Any]:
        """The answer to the game's creator: his own seat's link, and for each other human
        seat a join code to pass on (never another seat's token, never the seed)."""
        mine = next(p for p, s in enumerate(table.seats) if s.human and s.claimed)
        invites = [{"seat": p, "code": s.code, "link": f"/join/{s.code}"}
                   for p, s in enumerate(table.seats) if s.human and not s.claimed]
        return {"id": table.id, "names": table.names, "seat": mine,
                "link": f"/seat/{table.seats[mine].token}", "invites": invites,
                "private": table.private}

    async def join_page(self, request: Request) -> Response:
        return HTMLResponse(PAGES["join"], headers=HEADERS)

    async def join(self, request: Request) -> Response:
        """Claim a seat with its join code (``{"code": ...}``) or, in the lobby, an open seat
        of a game that is not private (``{"game": id, "seat": p}``): the seat's link."""
        body = await _body(request)
        if "code" in body:
            if not isinstance(body["code"], str) or len(body["code"]) > 40:
                raise TableError("field 'code' must be a join code such as ABCD-EFGH")
            table, seat, token = self.tables.join(body["code"])
        else:
            game = body.get("game")
            if not isinstance(game, str):
                raise TableError("send a join code ('code') or a game id and a seat")
            seat = _int(body, "seat", 0, 5)
            table, token = self.tables.table(game), self.tables.take_open_seat(game, seat)
        self.notify(table)
        return JSONResponse({"id": table.id, "seat": seat, "link": f"/seat/{token}"},
                            headers=HEADERS)

    async def lobby(self, request: Request) -> Response:
        """Every game, newest first: who sits where, open seats, how far it is; no seed,
        token or join code."""
        return JSONResponse({"games": lobby(self.tables.summaries())},
                            headers=HEADERS)

    async def state(self, request: Request) -> Response:
        table, seat = self.tables.seat(request.path_params["token"])
        return JSONResponse(self.payload(table, seat), headers=HEADERS)

    async def log(self, request: Request) -> Response:
        table, seat = self.tables.seat(request.path_params["token"])
        return JSONResponse({"feed": table.feed[seat]}, headers=HEADERS)

    async def watch_log(self, request: Request) -> Response:
        table = self.tables.table(request.path_params["game"])
        return JSONResponse({"feed": table.public_feed}, headers=HEADERS)

    async def act(self, request: Request) -> Response:
        table, seat = self.tables.seat(request.path_params["token"])
        body = await _body(request)
        action = _int(body, "action", 0, NUM_ACTIONS)
        step = _int(body, "step", 0, 2**31)
        game = table.game
        if table.over:
            raise TableError("the game is over", 409)
        if game.current != seat:
            raise TableError(f"it is p{game.current}'s move, not yours (p{seat})", 409)
        if step != table.step:
            raise TableError(f"the game is at step {table.step}, not {step}: reload", 409)
        table.apply(action)
        self.notify(table)
        self.drive(table)
        return JSONResponse({"step": table.step}, headers=HEADERS)

    async def set_pace(self, request: Request) -> Response:
        """``{"pace": seconds, "paused": bool}`` (either): how the agents of this table
        move from now on; any seat of the table may set it."""
        table, _ = self.tables.seat(request.path_params["token"])
        body = await _body(request)
        if "pace" in body:
            pace = body["pace"]
            if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not 0 <= pace <= 10:
                raise TableError("field 'pace' must be 0 to 10 seconds", 422)
            self.paces[table.id] = float(pace)
        if "paused" in body:
            if not isinstance(body["paused"], bool):
                raise TableError("field 'paused' must be true or false")
            (self.paused.add if body["paused"] else self.paused.discard)(table.id)
        self.notify(table)
        return JSONResponse({"pace": self.pace_of(table), "paused": table.id in self.paused},
                            headers=HEADERS)

    async def hints(self, request: Request) -> Response:
        """``?agent=heuristic|net|search``: that agent's top moves for this seat, with their
        estimated win chance (``hints``), from what the seat may know only."""
        table, seat = self.tables.seat(request.path_params["token"])
        name = request.query_params.get("agent", "heuristic")
        if name not in HINT_AGENTS:
            raise TableError(f"hints come from one of {sorted(HINT_AGENTS)}, not {name[:40]!r}")
        if table.over or table.game.current != seat:
            raise TableError("hints are for your own move", 409)
        agent = self.hint_agents.get(name)
        if agent is None:
            agent = self.hint_agents[name] = await asyncio.to_thread(make_agent,
                                                                     HINT_AGENTS[name])
        if table.game.n not in agent.supported_players:
            raise TableError(f"{name} plays only "
                             f"{' or '.join(map(str, agent.supported_players))}-player games",
                             422)
        step = table.step
        top = await asyncio.to_thread(hints, table.game.clone(), seat, agent)
        return JSONResponse({"step": step, "agent": name, "hints": top}, headers=HEADERS)

    async def undo(self, request: Request) -> Response:
        """Take back this seat's last move (``{"step": n}``: the payload's, as for a move)."""
        table, seat = self.tables.seat(request.path_params["token"])
        body = await _body(request)
        step = _int(body, "step", 0, 2**31)
        if step != table.step:
            raise TableError(f"the game is at step {table.step}, not {step}: reload", 409)
        table.undo(seat)
        self.notify(table)
        return JSONResponse({"step": table.step}, headers=HEADERS)

    # ---- WebSocket ------------------------------------------------------------------------

    async def updates(self, ws: WebSocket) -> None:
        """Push the seat's payload now and after every change (changes that come faster
        than the page reads them are sent as one). ``/ws/watch/<id>``: a spectator's."""
        try:
            if "game" in ws.path_params:
                table, seat = self.tables.table(ws.path_params["game"]), None
            else:
                table, seat = self.tables.seat(ws.path_params["token"])
        except TableError:
            await ws.close(code=4404)
            return
        if not same_origin(ws):
            await ws.close(code=4403)
            return
        await ws.accept()
        changed = asyncio.Event()
        changed.set()
        self.listeners[table.id].add(changed)

        async def push() -> None:
            try:
                while True:
                    await changed.wait()
                    changed.clear()
                    await ws.send_text(json.dumps(self.payload(table, seat), allow_nan=False))
            except (WebSocketDisconnect, RuntimeError, OSError):  # the page went away meanwhile
                pass
            except Exception:  # a state that could not be sent: never a page left waiting
                traceback.print_exc()
                await close_quietly(ws, 1011, "the server could not send this seat's state")

        sender = asyncio.create_task(push())
        try:
            while True:  # the page sends nothing; this notices when it goes away
                await ws.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            self.listeners[table.id].discard(changed)


def _write_replay(folder: Path) -> None:
    """``python -m perikles_env.replay`` in its own process: the viewer is an app above the
    web server's layer (.importlinter), and its CPU time stays out of the server's."""
    subprocess.run([sys.executable, "-m", "perikles_env.replay", str(folder / "record.jsonl"),
                    "-o", str(folder / "replay.html")], check=True, capture_output=True,
                   timeout=600)


def agent_move(agent: Agent, game: Game, seat: int, rng: np.random.Generator) -> int:
    """The one place the web asks an agent for a move (``agents.decide``, the table loop's
    step): ``game`` is a copy the agent may change."""
    return int(decide(agent, game, seat, rng, private=True))


async def close_quietly(ws: WebSocket, code: int, reason: str) -> None:
    """Close ``ws`` (the page reconnects and is sent the state afresh) unless it is closed
    already."""
    try:
        await ws.close(code=code, reason=reason)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass


def same_origin(ws: WebSocket) -> bool:
    """A browser names the page that opens a WebSocket in ``Origin``: only this server's own
    pages may listen (a page elsewhere cannot read a seat it learned the link of). Clients
    that are not browsers send none."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    host = ws.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


def create_app(server: GameServer, local_only: bool = True) -> Starlette:
    """The Starlette application of ``server``. ``local_only``: answer only requests made
    to a loopback host name (a web page elsewhere cannot reach the game through DNS
    tricks)."""

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, TableError):
            return error(str(exc), exc.status)
        assert isinstance(exc, HTTPException)
        return error(str(exc.detail), exc.status_code)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for table in server.tables.by_id.values():
            server.drive(table)
        yield
        for task in server.drivers.values():
            task.cancel()

    routes = [
        Route("/", server.index),
        Route("/rules", server.rules_page),
        Route("/seat/{token}", server.seat_page),
        Route("/join/{code}", server.join_page),
        Route("/watch/{game}", server.watch_page),
        Route("/replay/{game}", server.replay_page),
        Route("/api/options", server.options),
        Route("/api/games", server.create, methods=["POST"]),
        Route("/api/lobby", server.lobby),
        Route("/api/join", server.join, methods=["POST"]),
        Route("/api/games/{game}", server.watch_state),
        Route("/api/games/{game}/log", server.watch_log),
        Route("/api/games/{game}/record", server.record),
        Route("/api/seat/{token}", server.state),
        Route("/api/seat/{token}/log", server.log),
        Route("/api/seat/{token}/act", server.act, methods=["POST"]),
        Route("/api/seat/{token}/undo", server.undo, methods=["POST"]),
        Route("/api/seat/{token}/pace", server.set_pace, methods=["POST"]),
        Route("/api/seat/{token}/hints", server.hints),
        Route("/api/seat/{token}/abandon", server.abandon, methods=["POST"]),
        WebSocketRoute("/ws/watch/{game}", server.updates),
        WebSocketRoute("/ws/{token}", server.updates),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    hosts = ["127.0.0.1", "localhost", "[::1]", "::1"] if local_only else ["*"]
    return Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        exception_handlers={TableError: refused, HTTPException: refused},
        lifespan=lifespan,
    )
