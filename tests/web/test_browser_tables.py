"""Tables in a real browser (Playwright with Debian's chromium): 3-, 4- and 5-player games
with agent seats (``net`` and ``search`` at every count) played by clicking (the 3- and
4-player games to the end, the 5-player one for its first 30 decisions; to the end under
``-m slow``), two people who meet in the lobby from two
browser contexts while a third one watches, the page's hints, undo, whole story and
behaviour while the server is down, and a state it cannot draw said on the page.

Skipped only when no chromium is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import random

import pytest
from playwright.sync_api import expect

from perikles_env.agents import make_agent
from perikles_env.web.hints import hints
from perikles_env.web.moves import legal_moves

from .browser import (
    LiveServer,
    check_frames,
    check_page,
    click_move,
    moved_on,
    needs_chromium,
    open_person_page,
    shows_step,
    waiting_for_human,
)

pytestmark = needs_chromium


def open_page(browser, url: str, frames: list[str], errors: list[str], texts=None):
    """A page of its own person; a 4xx answer is part of these tables (a refused join)."""
    return open_person_page(browser, url, frames, errors, texts, quiet_4xx=True)


def start_from_lobby(browser, server, specs: list[str], seed: int, frames: list[str],
                     errors: list[str]):
    """A game started in the lobby by its first seat's person: (his page, the table) once
    his first move is awaited and shown."""
    page = open_page(browser, server.url + "/", frames, errors)
    page.select_option("#players", str(len(specs)))
    for p, spec in enumerate(specs):
        page.fill(f"#seat{p}", spec)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_url("**/seat/*")
    table = server.table()
    waiting_for_human(table)
    shows_step(page, table.step)
    return page, table


def play_by_clicking(page, table, seats: set[int], rnd: random.Random, pages=None,
                     limit: int | None = None) -> int:
    """Make every move of the human ``seats`` by clicking until the game ends (or ``limit``
    decisions were made); returns the number of decisions made."""
    decisions = 0
    while True:
        waiting_for_human(table)
        if table.game.is_terminal or decisions == limit:
            return decisions
        me = table.game.current
        assert me in seats
        here = pages[me] if pages else page
        shows_step(here, table.step)
        if decisions % 40 == 0:
            check_page(here, table, me)
        moves = legal_moves(table.game)
        move = rnd.choice(moves)
        before = table.step
        click_move(here, move, moves)
        moved_on(table, before)
        assert table.actions[before] == move.action
        decisions += 1


THREE = ["human", "net", "search"]
FOUR = ["human", "net", "heuristic", "random"]
FIVE = ["random", "net", "human", "search", "heuristic"]
FIRST = 30  # decisions of a game not played to the end in the default run


@pytest.mark.parametrize(("seats", "whole"), [
    pytest.param(THREE, True, id="3 players"),
    pytest.param(FOUR, True, id="4 players"),
    pytest.param(FIVE, False, id="5 players, first 30 decisions"),
    pytest.param(FIVE, True, id="5 players", marks=pytest.mark.slow),
])
def test_a_game_with_agent_seats_is_played_by_clicking(browser, tmp_path, seats, whole):
    server = LiveServer(tmp_path)
    try:
        frames: list[str] = []
        errors: list[str] = []
        page = open_page(browser, server.url + "/", frames, errors)
        page.select_option("#players", str(len(seats)))
        for p, spec in enumerate(seats):
            page.fill(f"#seat{p}", spec)
        page.click("#start")
        page.wait_for_url("**/seat/*")
        table = server.table()
        me = seats.index("human")
        rnd = random.Random(len(seats))
        decisions = play_by_clicking(page, table, {me}, rnd, limit=None if whole else FIRST)
        assert decisions == FIRST if not whole else decisions > FIRST
        if not whole:
            waiting_for_human(table)
            shows_step(page, table.step)
            check_page(page, table, me)
            assert check_frames(frames, table, me) > decisions
            assert errors == []
            return
        shows_step(page, table.step)
        check_page(page, table, me)
        assert "Game over" in page.inner_text("#status")
        rows = page.locator("#breakdown tr")
        assert rows.count() == len(seats) + 1
        assert page.inner_text("#breakdown").count("★") == len(table.game.winners())
        assert str(table.folder / "record.jsonl") in page.inner_text("#end")
        assert "python -m perikles_env.replay" in page.inner_text("#replay-command")
        href = page.get_attribute("#replay-link", "href")
        assert href == f"/replay/{table.id}"
        viewer = page.context.request.get(server.url + href, timeout=180_000)  # a busy CI
        assert viewer.status == 200 and "<title>Perikles" in viewer.text()
        assert check_frames(frames, table, me) > decisions
        assert errors == []
    finally:
        server.stop()


def test_two_people_meet_in_the_lobby_and_a_spectator_watches(browser, tmp_path):
    server = LiveServer(tmp_path)
    try:
        errors: list[str] = []
        frames: dict[object, list[str]] = {0: [], 2: [], "watch": []}
        texts: dict[object, list[str]] = {0: [], 2: [], "watch": []}
        alice = open_page(browser, server.url + "/", frames[0], errors, texts[0])
        alice.select_option("#players", "3")
        for p, spec in enumerate(["human", "heuristic", "human"]):
            alice.fill(f"#seat{p}", spec)
        alice.click("#start")
        alice.wait_for_selector("#created:not([hidden])")
        code = alice.inner_text("#links b.code")
        table = server.table()
        assert code == table.seats[2].code
        alice.click("#my-seat")
        alice.wait_for_url("**/seat/*")
        assert alice.url.endswith(table.seats[0].token)
        bob = open_page(browser, server.url + "/", frames[2], errors, texts[2])
        bob.click(f'tr[data-game="{table.id}"] button.take[data-seat="2"]')
        bob.wait_for_url("**/seat/*")
        assert bob.url.endswith(table.seats[2].token)
        watcher = open_page(browser, server.url + "/", frames["watch"], errors,
                            texts["watch"])
        watcher.click(f'tr[data-game="{table.id}"] a.watch')
        watcher.wait_for_url("**/watch/*")
        # the lobby no longer offers the seat
        watcher_lobby = open_page(browser, server.url + "/", [], errors)
        watcher_lobby.wait_for_selector(f'tr[data-game="{table.id}"]')
        assert watcher_lobby.locator("button.take").count() == 0
        rnd = random.Random(5)
        pages = {0: alice, 2: bob}
        decisions = 0
        while decisions < 20 and table.game.turn == 1 and not table.game.is_terminal:
            waiting_for_human(table)
            me = table.game.current
            shows_step(pages[me], table.step)
            moves = legal_moves(table.game)
            move = rnd.choice(moves)
            before = table.step
            click_move(pages[me], move, moves)
            moved_on(table, before)
            decisions += 1
        waiting_for_human(table)
        for seat, page in pages.items():
            shows_step(page, table.step)
            check_page(page, table, seat)
        shows_step(watcher, table.step)
        assert "public view" in watcher.inner_text("#board")
        assert watcher.locator("#board [data-target]").count() == 0
        assert watcher.is_hidden("#turn") and watcher.is_hidden("#hand")
        assert decisions > 10
        seed = str(table.seed)
        tokens = {0: table.seats[0].token, 2: table.seats[2].token}
        for reader in frames:
            assert frames[reader] and texts[reader]
            for text in frames[reader] + texts[reader]:
                assert seed not in text
                for seat, token in tokens.items():
                    assert seat == reader or token not in text
        for text in frames["watch"]:
            frame = json.loads(text)
            assert frame["seat"] is None and frame["moves"] == [] and frame["hand"] == []
        for seat in pages:
            assert check_frames(frames[seat], table, seat) > 10
        assert errors == []
    finally:
        server.stop()


def test_hints_undo_the_whole_story_and_a_server_that_is_down(browser, tmp_path):
    server = LiveServer(tmp_path)
    try:
        errors: list[str] = []
        frames: list[str] = []
        page, table = start_from_lobby(browser, server, ["human", "random", "random"], 12,
                                       frames, errors)
        page.select_option("#hint-agent", "heuristic")
        page.click("#hint")
        page.wait_for_selector("#hint-list li")
        expected = hints(table.game, 0, make_agent("heuristic"))
        shown = page.eval_on_selector_all("#hint-list li", "els => els.map(e => "
                                          "Number(e.dataset.action))")
        assert shown == [h["action"] for h in expected]
        page.click("#whole-log")
        rnd = random.Random(1)
        undone = 0
        for _ in range(200):
            waiting_for_human(table)
            shows_step(page, table.step)
            moves = legal_moves(table.game)
            move = rnd.choice(moves)
            before = table.step
            click_move(page, move, moves)
            moved_on(table, before)
            waiting_for_human(table)  # whole moves only: `before` is then the last move's
            if undone < 2 and not table.game.is_terminal and \
                    table.before is not None and table.before.current == 0 and \
                    not table.undo_refusal(0):
                shows_step(page, table.step)
                page.click("#undo")
                shows_step(page, before)
                assert table.step == before
                undone += 1
                click_move(page, move, moves)
                moved_on(table, before)
            if undone >= 2 and len(table.feed[0]) > 70:
                break
        assert undone >= 1
        waiting_for_human(table)
        shows_step(page, table.step)
        assert len(table.feed[0]) > 60
        # the whole story, after moves too (fetched after the state is drawn: retried)
        expect(page.locator("#feed li")).to_have_count(len(table.feed[0]), timeout=30_000)
        assert errors == []
        server.stop()
        page.wait_for_selector("body.offline")
        assert "does not answer" in page.inner_text("#conn")
        assert page.is_hidden("#menu")
        # the browser's own lines about the requests the down server refused; no page error
        assert all("WebSocket" in e or "ERR_CONNECTION_REFUSED" in e for e in errors), errors
    finally:
        server.stop()


def a_move_is_made(page, table) -> None:
    """The human's first legal move, clicked; returns when the page shows his next turn."""
    before = table.step
    moves = legal_moves(table.game)
    click_move(page, moves[0], moves)
    moved_on(table, before)
    waiting_for_human(table)
    shows_step(page, table.step)


def test_requests_the_server_never_answers_leave_no_page_error(browser, tmp_path):
    """With the whole story shown, every new state fetches it; a fetch the server never
    answers (it went down) is no page error, and the next state's fetch shows the story. A
    button's request or the hints without an answer are said on the page."""
    server = LiveServer(tmp_path)
    try:
        errors: list[str] = []
        page, table = start_from_lobby(browser, server, ["human", "random", "random"], 5,
                                       [], errors)
        page.click("#whole-log")
        page.route("**/log", lambda route: route.abort("connectionrefused"))
        page_errors: list[str] = []
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        with page.expect_event("requestfailed", lambda r: r.url.endswith("/log")):
            a_move_is_made(page, table)
        assert page_errors == []
        page.unroute("**/log")
        a_move_is_made(page, table)
        expect(page.locator("#feed li")).to_have_count(len(table.feed[0]), timeout=30_000)
        # a button's request and the hints that get no answer are said on the page
        page.route("**/pace", lambda route: route.abort("connectionrefused"))
        page.click("#pause")
        expect(page.locator("#error")).to_contain_text("could not reach the server")
        page.route("**/hints*", lambda route: route.abort("connectionrefused"))
        page.click("#hint")
        expect(page.locator("#hints")).to_contain_text("could not reach the server")
        assert page_errors == []
        assert all("ERR_CONNECTION_REFUSED" in e for e in errors), errors
    finally:
        server.stop()


def test_a_state_the_page_cannot_show_is_said_on_the_page(browser, tmp_path):
    """A state the page fails to draw leaves the board behind the game: the page says so in
    its error line (a person would otherwise look at a frozen board), not only in the
    console."""
    server = LiveServer(tmp_path)
    try:
        real = server.game_server.payload

        def without_moves(table, seat):
            out = real(table, seat)
            del out["moves"]
            return out

        server.game_server.payload = without_moves
        table = server.game_server.tables.create(["human", "random", "random"], seed=3)
        errors: list[str] = []
        page = open_page(browser, f"{server.url}/seat/{table.seats[0].token}", [], errors)
        expect(page.locator("#error")).to_contain_text("could not show the game's latest state")
        assert "reload" in page.inner_text("#error")
        assert errors and all("length" in e for e in errors)
    finally:
        server.stop()
