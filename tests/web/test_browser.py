"""The web game in a real headless browser (Debian's chromium driven by Playwright): whole
games played by clicking the board, each page checked against the engine after every step,
and every WebSocket frame checked to hold only what its seat may know.

Skipped only when no chromium is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import random

import httpx2
import pytest

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


@pytest.mark.slow  # the default run plays whole games at 3, 4 and 5 players (test_browser_tables)
def test_one_person_plays_a_whole_game_against_three_heuristic_players(browser, tmp_path):
    server = LiveServer(tmp_path)
    try:
        frames: list[str] = []
        errors: list[str] = []
        page = open_person_page(browser, server.url + "/", frames, errors)
        page.select_option("#players", "4")  # the new-game page
        page.fill("#seat0", "human")
        for p in (1, 2, 3):
            page.fill(f"#seat{p}", "heuristic")
        page.fill("#seed", "7")
        page.click("#start")
        page.wait_for_url("**/seat/*")  # one human seat: straight to its link
        table = server.table()
        assert table.seed == 7 and table.names == ["human"] + ["heuristic"] * 3
        rnd = random.Random(7)
        decisions = 0
        while True:
            waiting_for_human(table)
            shows_step(page, table.step)
            check_page(page, table, 0)
            if table.game.is_terminal:
                break
            moves = legal_moves(table.game)
            move = rnd.choice(moves)
            before = table.step
            click_move(page, move, moves)
            moved_on(table, before)
            assert table.actions[before] == move.action
            decisions += 1
        assert decisions > 40
        assert "Game over" in page.inner_text("#status")
        assert page.locator("#menu button").count() == 0
        assert check_frames(frames, table, 0) > decisions
        assert errors == []
    finally:
        server.stop()


@pytest.mark.parametrize("whole_game", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_two_people_play_their_own_seats_from_two_browsers(browser, tmp_path, whole_game):
    """The first 16 decisions in the default run, the whole game in the slow one."""
    server = LiveServer(tmp_path)
    try:
        reply = httpx2.post(server.url + "/api/games", json={
            "seats": ["human", "heuristic", "human", "heuristic"], "seed": 3})
        assert reply.status_code == 201
        created = reply.json()
        [invite] = created["invites"]
        joined = httpx2.post(server.url + "/api/join", json={"code": invite["code"]}).json()
        links = {0: server.url + created["link"], 2: server.url + joined["link"]}
        frames: dict[int, list[str]] = {0: [], 2: []}
        errors: list[str] = []
        pages = {seat: open_person_page(browser, links[seat], frames[seat], errors)
                 for seat in links}
        table = server.table()
        rnd = random.Random(3)
        tried_other = False
        made = 0
        while not table.game.is_terminal and (whole_game or made < 16):
            waiting_for_human(table)
            for seat, page in pages.items():
                shows_step(page, table.step)
                check_page(page, table, seat)
            if table.game.is_terminal:
                break
            me = table.game.current
            other = pages[2 - me]
            assert other.locator("#board [data-target]").count() == 0
            moves = legal_moves(table.game)
            move = rnd.choice(moves)
            if not tried_other:  # the other page cannot act for this seat
                reply = other.context.request.post(
                    links[2 - me].replace("/seat/", "/api/seat/") + "/act",
                    data={"action": move.action, "step": table.step})
                assert reply.status == 409 and "not yours" in reply.json()["error"]
                tried_other = True
            before = table.step
            click_move(pages[me], move, moves)
            moved_on(table, before)
            assert table.actions[before] == move.action
            made += 1
        assert table.game.is_terminal if whole_game else made == 16
        for seat in pages:
            assert check_frames(frames[seat], table, seat) > 20
        for seat in pages:  # a reload shows the same game
            pages[seat].reload()
            waiting_for_human(table)
            shows_step(pages[seat], table.step)
            check_page(pages[seat], table, seat)
        assert errors == []
    finally:
        server.stop()


def test_the_new_game_page_says_what_is_wrong_and_creates_nothing(browser, tmp_path):
    server = LiveServer(tmp_path)
    try:
        errors: list[str] = []
        page = open_person_page(browser, server.url + "/", [], errors)
        page.select_option("#players", "3")
        assert page.locator("#seats input").count() == 3
        for seat, spec, seed, message in (
            (1, "alphazero", "", "unknown agent 'alphazero'"),
            (2, "ppo:/tmp/model.zip", "", "command line"),
            (1, "random", "abc", "field 'seed' must be a whole number"),
        ):
            page.fill(f"#seat{seat}", spec)
            page.fill("#seed", seed)
            page.click("#start")
            # the first refusal may import the agents' libraries on a busy machine
            page.wait_for_selector("#error:not([hidden])", timeout=120_000)
            assert message in page.inner_text("#error")
            page.fill(f"#seat{seat}", "random")
        assert server.game_server.tables.by_id == {}
        assert [e for e in errors if "status of 400" not in e] == []
    finally:
        server.stop()
