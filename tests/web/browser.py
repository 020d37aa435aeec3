"""Driving the web game in a real browser (Playwright with Debian's chromium): a server in a
thread of the test process, so tests can read the engine state behind each page, and the
steps of a person at the board (click a highlighted place, pick among the moves there,
confirm)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import uvicorn

from perikles_env.engine import Game
from perikles_env.records import replay
from perikles_env.render.svg import board_svg
from perikles_env.web.moves import Move, legal_moves
from perikles_env.web.payload import battle, seat_payload, status_line
from perikles_env.web.server import GameServer, create_app
from perikles_env.web.tables import Table, Tables

CHROMIUM = os.environ.get("PERIKLES_CHROMIUM") or shutil.which("chromium") or shutil.which(
    "chromium-browser"
)
SVG = "{http://www.w3.org/2000/svg}"
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium browser installed (apt-get install chromium)"
)


class LiveServer:
    """The web game server on a free local port, run by uvicorn in a daemon thread."""

    def __init__(self, folder: Path, pace: float = 0.0) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.game_server = GameServer(Tables(folder), pace)
        config = uvicorn.Config(create_app(self.game_server), host="127.0.0.1", port=port,
                                log_level="warning")
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.uvicorn.run, daemon=True)
        self.thread.start()
        end = time.monotonic() + 20
        while not self.uvicorn.started:
            assert time.monotonic() < end, "the server did not start"
            time.sleep(0.02)

    def table(self) -> Table:
        [table] = self.game_server.tables.by_id.values()
        return table

    def stop(self) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(timeout=10)


def waiting_for_human(table: Table, timeout: float = 180.0) -> None:
    """Until the game waits for a human seat (or is over), with the agents' last move
    wholly made. The server moves in its own thread: the engine state changes before the
    table counts the move, and a read between the two saw the human to act one step early,
    then waited for the page to show a state it had shown only in passing. So the step is
    read last, and only a state whose engine has made as many moves as the table counted
    is taken (nothing moves after it until the human does)."""
    end = time.monotonic() + timeout
    while True:
        waits = table.game.is_terminal or table.agent_to_act() is None
        if waits and table.game.decisions == table.step:
            return
        assert time.monotonic() < end, "the agents did not move"
        time.sleep(0.005)


def shows_step(page: Any, step: int, timeout: float = 120.0) -> None:
    """Until the page shows the state after ``step`` decisions (the page's CSP forbids the
    script evaluation of ``wait_for_function``; a selector needs none)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_selector(f'body[data-step="{step}"]', state="attached",
                               timeout=timeout * 1000)
    except PlaywrightTimeout:
        shown = page.get_attribute("body", "data-step")
        raise AssertionError(f"after {timeout:g} s the page at {page.url} shows step {shown}, "
                             f"not {step}; its connection: {page.text_content('#conn')!r}, "
                             f"its error line: {page.text_content('#error')!r}") from None


def moved_on(table: Table, step: int, timeout: float = 60.0) -> None:
    """Until the game has gone past ``step`` decisions."""
    end = time.monotonic() + timeout
    while table.step <= step:
        assert time.monotonic() < end, "the move was not made"
        time.sleep(0.005)


def svg_texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def check_page(page: Any, table: Table, seat: int) -> None:
    """The page shows what the engine holds now, from ``seat``'s point of view."""
    game = table.game
    assert page.inner_text("#status") == status_line(game, seat, table.names)
    board = page.eval_on_selector_all("#board svg text", "els => els.map(e => e.textContent)")
    assert board == svg_texts(board_svg(game, seat, table.names))
    mine = not game.is_terminal and game.current == seat
    moves = legal_moves(game) if mine else []
    places = page.eval_on_selector_all("#board [data-target]", "els => els.map(e => "
                                       "e.dataset.target)")
    assert sorted(places) == sorted({t for m in moves for t in m.targets})
    firsts = page.eval_on_selector_all("#menu .options button", "els => els.map(e => "
                                       "e.textContent.replace(/ …$/, ''))")
    assert firsts == list(dict.fromkeys(m.path[0] for m in moves))
    odds = battle(game, seat)
    assert page.is_visible("#battle") == (odds is not None)
    if odds is not None:
        assert f"takes the location {round(odds['p_location'] * 100)} %" in page.inner_text(
            "#odds")
        assert page.locator("#battle-options tr").count() == (len(odds["options"]) + 1
                                                               if odds["options"] else 0)
    feed = page.eval_on_selector_all("#feed li", "els => els.map(e => e.textContent)")
    assert feed == [line["text"] for line in table.feed[seat][-len(feed):]] and feed


def click_move(page: Any, move: Move, moves: list[Move]) -> None:
    """Make ``move`` as a person would: on the board where it has a place (then pick it
    among the moves of that place), else through the words menu; then confirm."""
    if move.targets:
        target = move.targets[0]
        spot = page.locator(f'#board [data-target="{target}"]')
        # a city card's header: the rows and candidate boxes inside it are places too
        spot.click(position={"x": 6, "y": 4} if target.startswith("city:") else None)
        if sum(target in m.targets for m in moves) > 1:
            page.click(f'#chooser button[data-action="{move.action}"]')
    else:
        for step in move.path[:-1]:
            page.click(f'#menu button[data-step="{step}"]')
        page.click(f'#menu button[data-action="{move.action}"]')
    if move.confirm:
        page.click("#confirm-yes")


def expected_frames(table: Table, seat: int) -> dict[int, str]:
    """The payload the server may send ``seat`` at every step, as JSON text, from the
    record (``seat_payload`` is the same for every hidden state, tests/web/test_payload)."""
    from perikles_env.records import read_records

    record = read_records(table.folder / "record.jsonl")[0]
    from .helpers import public_last_moves, with_marks

    out = {}
    games: list[Game] = []
    for step, (game, _) in enumerate(replay(record)):
        games.append(game)
        feed = [line for line in table.feed[seat] if line["step"] <= step]
        payload = seat_payload(game, seat, table.names, feed, step, table.id, table.error)
        last = public_last_moves(games, record.actions[:step])
        out[step] = json.loads(json.dumps(with_marks(payload, game, last, seat)))
    return out


# What the server adds to ``seat_payload``: the table's pace, whether the seat may take its
# move back, and, once the game is over, where its record is.
SERVER_KEYS = ("undo", "pace", "paused", "record")


def check_frames(frames: list[str], table: Table, seat: int) -> int:
    """Every WebSocket frame a page received is exactly its seat's payload at that step
    (and so holds nothing the seat may not know); returns how many were checked."""
    expected = expected_frames(table, seat)
    for text in frames:
        frame = json.loads(text)
        assert frame["seat"] == seat
        assert isinstance(frame.pop("undo"), bool) and isinstance(frame.pop("paused"), bool)
        assert isinstance(frame.pop("pace"), float)
        record = frame.pop("record", None)
        assert record is None or frame["finished"] or frame["abandoned"]
        assert frame == expected[frame["step"]], f"frame at step {frame['step']} differs"
    return len(frames)


def open_person_page(
    browser, url: str, frames: list[str], errors: list[str], texts=None, quiet_4xx=False
):
    """``url`` in its own browser context (its own cookies and storage: another person),
    page errors and console errors (but a 4xx answer's where ``quiet_4xx``) into ``errors``,
    every WebSocket frame into ``frames`` and, given ``texts``, every HTTP answer it reads."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error"
            and not (quiet_4xx and "status of 4" in msg.text) and errors.append(msg.text))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(data)))
    if texts is not None:
        page.on("response", lambda r: r.request.resource_type in ("fetch", "xhr")
                and texts.append(r.text()))
    page.goto(url)
    if urlsplit(url).path == "/":  # the lobby: its form is filled in once the options came
        page.wait_for_selector("#start:enabled")
    return page
