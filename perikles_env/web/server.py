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
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..agents import AgentError, decide
from ..agents.registry import agent_names, parse_spec
from ..engine.actions import NUM_ACTIONS
from .payload import seat_payload
from .tables import HUMAN, Table, TableError, Tables

STATIC = Path(__file__).with_name("static")
FILE_AGENTS = ("ppo", "rllib")  # agents loaded from a path on the server
MAX_BODY = 4096
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",  # seat URLs hold tokens
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


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

    # ---- agents ---------------------------------------------------------------------------

    def notify(self, table: Table) -> None:
        for event in self.listeners[table.id]:
            event.set()

    def drive(self, table: Table) -> None:
        """Start the agents' moves at ``table`` if an agent is to act and none is moving."""
        running = self.drivers.get(table.id)
        if table.agent_to_act() is not None and (running is None or running.done()):
            self.drivers[table.id] = asyncio.create_task(self._drive(table))

    async def _drive(self, table: Table) -> None:
        rng = np.random.default_rng([table.seed, table.step])
        while (agent := table.agent_to_act()) is not None and not table.error:
            await asyncio.sleep(self.pace)
            p = table.game.current
            try:
                game = table.game.clone()  # the agent thinks in a thread on its own copy
                action = await asyncio.to_thread(decide, agent, game, p, rng, private=True)
                table.apply(int(action))
            except Exception as exc:  # an agent that fails stops its table, not the server
                traceback.print_exc()
                table.error = f"p{p} ({table.names[p]}) failed: {exc}"
            self.notify(table)

    # ---- HTTP -----------------------------------------------------------------------------

    def payload(self, table: Table, seat: int) -> dict[str, Any]:
        return seat_payload(table.game, seat, table.names, table.feed[seat], table.step,
                            table.id, table.error)

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=HEADERS)

    async def seat_page(self, request: Request) -> Response:
        self.tables.seat(request.path_params["token"])
        return FileResponse(STATIC / "play.html", headers=HEADERS)

    async def options(self, request: Request) -> Response:
        """What the new-game form offers."""
        agents = [a for a in agent_names() if a not in FILE_AGENTS] + self.offered
        return JSONResponse({"agents": [HUMAN, *agents], "defaults": self.defaults},
                            headers=HEADERS)

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
        table = self.tables.create(seats, seed)
        self.drive(table)
        links = [{"seat": p, "link": f"/seat/{s.token}"}
                 for p, s in enumerate(table.seats) if s.human]
        return JSONResponse({"id": table.id, "seed": table.seed, "names": table.names,
                             "links": links}, 201, headers=HEADERS)

    async def state(self, request: Request) -> Response:
        table, seat = self.tables.seat(request.path_params["token"])
        return JSONResponse(self.payload(table, seat), headers=HEADERS)

    async def log(self, request: Request) -> Response:
        table, seat = self.tables.seat(request.path_params["token"])
        return JSONResponse({"feed": table.feed[seat]}, headers=HEADERS)

    async def act(self, request: Request) -> Response:
        table, seat = self.tables.seat(request.path_params["token"])
        body = await _body(request)
        action = _int(body, "action", 0, NUM_ACTIONS)
        step = _int(body, "step", 0, 2**31)
        game = table.game
        if game.is_terminal:
            raise TableError("the game is over", 409)
        if game.current != seat:
            raise TableError(f"it is p{game.current}'s move, not yours (p{seat})", 409)
        if step != table.step:
            raise TableError(f"the game is at step {table.step}, not {step}: reload", 409)
        table.apply(action)
        self.notify(table)
        self.drive(table)
        return JSONResponse({"step": table.step}, headers=HEADERS)

    # ---- WebSocket ------------------------------------------------------------------------

    async def updates(self, ws: WebSocket) -> None:
        """Push the seat's payload now and after every change (changes that come faster
        than the page reads them are sent as one)."""
        try:
            table, seat = self.tables.seat(ws.path_params["token"])
        except TableError:
            await ws.close(code=4404)
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
                    await ws.send_text(json.dumps(self.payload(table, seat)))
            except (WebSocketDisconnect, RuntimeError):  # the page went away meanwhile
                pass

        sender = asyncio.create_task(push())
        try:
            while True:  # the page sends nothing; this notices when it goes away
                await ws.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            sender.cancel()
            self.listeners[table.id].discard(changed)


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
        Route("/seat/{token}", server.seat_page),
        Route("/api/options", server.options),
        Route("/api/games", server.create, methods=["POST"]),
        Route("/api/seat/{token}", server.state),
        Route("/api/seat/{token}/log", server.log),
        Route("/api/seat/{token}/act", server.act, methods=["POST"]),
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
