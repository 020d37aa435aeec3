"""Screenshots of the web game for the docs, at 1400x1000 and 390x844 (a phone): the lobby,
a force commit waiting for its confirmation, a hint, a battle decision with its odds, and
the end with its score.

    .venv/bin/python -m tests.web.screenshots docs/img

The human seat is played by the heuristic (through the same API a page uses); games are
tried seed after seed until one offers seat 0 a battle special. On the phone each picture
shows the panel it is about (the board is above it).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import httpx2
import numpy as np

from perikles_env.agents import make_agent
from perikles_env.engine import actions as A
from perikles_env.engine.phases import Phase
from perikles_env.web.moves import legal_moves

from .browser import CHROMIUM, LiveServer, shows_step, waiting_for_human

SIZES = ((1400, 1000), (390, 844))


def shoot(pages, table, out: Path, name: str, panel: str = "") -> None:
    for (width, _), page in zip(SIZES, pages, strict=True):
        if table is not None:
            shows_step(page, table.step)
        if panel and width < 800:
            page.locator(panel).scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / f"web_{name}_{width}.png"))


def lobby(browser, server, out: Path) -> None:
    """The lobby with an open game, a running one and the seats this browser holds."""
    for seats in (["human", "heuristic", "human"], ["human", "human", "random", "random"]):
        created = httpx2.post(server.url + "/api/games", json={"seats": seats}).json()
    httpx2.post(server.url + "/api/join", json={"code": created["invites"][0]["code"]})
    pages = []
    for width, height in SIZES:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(server.url + "/")
        pages.append(page)
    for page in pages:
        page.wait_for_selector("#games tbody tr")
    shoot(pages, None, out, "lobby")


def play(browser, out: Path, seed: int) -> bool:
    """One game; True when every picture was taken."""
    server = LiveServer(Path(tempfile.mkdtemp()))
    try:
        reply = httpx2.post(server.url + "/api/games", json={
            "seats": ["human", "heuristic", "heuristic", "heuristic"], "seed": seed})
        link = server.url + reply.json()["link"]
        pages = []
        for width, height in SIZES:
            page = browser.new_context(viewport={"width": width, "height": height}).new_page()
            page.goto(link)
            pages.append(page)
        table = next(iter(server.game_server.tables.by_id.values()))
        me, rng = make_agent("heuristic"), np.random.default_rng(seed)
        taken: set[str] = set()
        while True:
            waiting_for_human(table)
            if table.game.is_terminal:
                break
            game = table.game
            action = me.act_state(game.clone(), 0, rng)
            moves = legal_moves(game)
            move = next(m for m in moves if m.action == action)
            if (game.phase == Phase.COMMIT and "hint" not in taken and sum(game.at) >= 3
                    and len(moves) > 4):
                for page in pages:
                    shows_step(page, table.step)
                    page.click("#hint")
                    page.wait_for_selector("#hint-list li", timeout=60_000)
                shoot(pages, table, out, "hint", "#hints")
                taken.add("hint")
            elif (game.phase == Phase.COMMIT and "commit" not in taken and sum(game.at) >= 6
                    and A.decode(action)[0] == "PLACE"):
                target = move.targets[0]
                for page in pages:  # a click on the board, then the counter: the question
                    shows_step(page, table.step)
                    page.click(f'#board [data-target="{target}"]')
                    if sum(target in m.targets for m in moves) > 1:
                        page.click(f'#chooser button[data-action="{action}"]')
                shoot(pages, table, out, "commit", "#turn")
                taken.add("commit")
            if (game.phase == Phase.BATTLE_SPECIAL and len(moves) > 1
                    and "battle" not in taken):
                shoot(pages, table, out, "battle", "#battle")
                taken.add("battle")
            step = table.step
            reply = httpx2.post(f"{link.replace('/seat/', '/api/seat/')}/act",
                                json={"action": action, "step": step})
            assert reply.status_code == 200, reply.text
        if {"commit", "battle", "hint"} <= taken:
            shoot(pages, table, out, "end", "#end")
            lobby(browser, server, out)
            return True
        return False
    finally:
        server.stop()


def main(out: str) -> int:
    from playwright.sync_api import sync_playwright

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for seed in range(1, 40):
            if play(browser, folder, seed):
                print(f"seed {seed}: pictures in {folder}")
                return 0
    print("no game offered a battle special to seat 0", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
