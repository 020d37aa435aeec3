"""The board that explains itself and the new-game form, in a real browser (Playwright with
Debian's chromium): agents that cannot play the chosen player count are marked, the board
carries tooltips and each player's last move, the decision links its rules section, and the
animations stop under prefers-reduced-motion.

Skipped only when no chromium is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import pytest

from .browser import CHROMIUM, LiveServer, shows_step, waiting_for_human

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium browser installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A server whose ``net`` and ``search`` play 4-player games only (a network made for
    4 players in the shipped one's place), so the form has counts to mark."""
    from playwright.sync_api import sync_playwright

    from perikles_env.agents.search import net_agent
    from tests.agents.helpers import write_four_player_network

    four = write_four_player_network(tmp_path_factory.mktemp("net") / "four.pkn")
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(net_agent, "SHIPPED_NET", type(net_agent.SHIPPED_NET)(four))
        server = LiveServer(tmp_path_factory.mktemp("games"))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            yield server, browser
            browser.close()
        server.stop()


def test_the_new_game_form_marks_agents_that_cannot_play_the_count(live) -> None:
    server, browser = live
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    page.wait_for_selector("#seat2")
    disabled = 'els => els.filter(o => o.disabled).map(o => o.value)'
    assert page.eval_on_selector_all("#strength option", disabled) == []  # 4 players
    page.select_option("#players", "3")
    assert page.eval_on_selector_all("#strength option", disabled) == ["search"]
    assert page.get_attribute('#strength option[value="search"]', "title") == (
        "plays only 4-player games")
    page.fill("#seat1", "net")
    note = page.locator("#seat1 ~ .unsupported")
    assert note.is_visible()
    assert note.inner_text() == "cannot play 3 players: plays only 4-player games"
    assert "refused" in page.get_attribute("#seat1", "class")
    assert not page.locator("#seat2 ~ .unsupported").is_visible()
    page.select_option("#players", "4")
    assert not page.locator("#seat1 ~ .unsupported").is_visible()
    assert page.eval_on_selector_all("#strength option", disabled) == []
    assert errors == []


def _game_page(server, browser, reduced: str):
    import json
    import urllib.request

    body = json.dumps({"seats": ["human", "random", "random", "random"], "seed": 21})
    request = urllib.request.Request(server.url + "/api/games", body.encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as reply:
        assert reply.status == 201
        created = server.game_server.tables.by_id[json.loads(reply.read())["id"]]
    waiting_for_human(created)
    token = created.seats[0].token
    context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  reduced_motion=reduced)
    page = context.new_page()
    page.goto(f"{server.url}/seat/{token}")
    shows_step(page, created.step)
    return created, page


def test_the_board_explains_itself_and_marks_the_last_moves(live) -> None:
    server, browser = live
    table, page = _game_page(server, browser, "no-preference")
    titles = " ".join(page.eval_on_selector_all(
        "#board #explain title", "els => els.map(e => e.textContent)"))
    for said in ("stack H? T?", "hand H?x6", "militia H T", "cand. α β", "statue track"):
        assert said in titles
    assert page.locator("#board #explain rect").count() == 6 * 4 + 1 + 7 * 3 + 4
    marked = page.eval_on_selector_all(
        "#board #marks rect.last", "els => els.map(e => e.dataset.player)")
    assert set(marked) == {str(p) for p in table.last_moves if table.last_moves[p][1]}
    assert bool(marked) == (table.step > 0)  # the agents' setup cubes before the human's
    newest = page.eval_on_selector("#board #marks rect.newest",
                                   "e => getComputedStyle(e).animationName")
    assert newest == "placed"
    assert page.eval_on_selector("#board #marks rect.last",
                                 "e => getComputedStyle(e).pointerEvents") == "none"
    # the decision's rules section, and the rules page opens at it
    link = page.locator("#rules-link")
    assert link.is_visible() and link.inner_text() == "6. Setup (spec B.1)"
    assert link.get_attribute("href") == "/rules#6-setup-spec-b1"
    rules = browser.new_page()
    rules.goto(server.url + "/rules#6-setup-spec-b1")
    assert rules.locator('h2[id="6-setup-spec-b1"]').inner_text() == "6. Setup (spec B.1)"
    rules.close()
    page.context.close()


def test_no_animation_under_prefers_reduced_motion(live) -> None:
    server, browser = live
    _, page = _game_page(server, browser, "reduce")
    assert page.eval_on_selector("#board #marks rect.newest",
                                 "e => getComputedStyle(e).animationName") == "none"
    page.context.close()
