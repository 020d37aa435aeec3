"""The HTML replay viewer in a real headless browser (Debian's chromium driven by
Playwright): load a recorded game, step with the slider, buttons and keyboard, switch
views, and check what the page shows against the engine's state at that step.

Skipped only when no chromium is installed (``.ci/run`` installs it: apt-get install
chromium). Playwright cannot download its own browser here, so it drives the system one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from perikles_env.records import replay
from perikles_env.render.narrate import battle_summary, describe_action
from perikles_env.render.svg import board_svg
from perikles_env.render.turns import turn_end_states
from perikles_env.replay import _status, write_html

from .helpers import random_record, svg_texts

CHROMIUM = os.environ.get("PERIKLES_CHROMIUM") or shutil.which("chromium") or shutil.which(
    "chromium-browser"
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium browser installed (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    record, _ = random_record(4, 31)
    states = _frames(record)
    path = tmp_path_factory.mktemp("replay") / "game.html"
    write_html(record, path)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(path.as_uri())
        yield page, record, states, errors
        browser.close()


def _frames(record):
    """What each step of the page shows, from the engine: (board state, end of turn?, the
    decision that led there as (state before, action), or None)."""
    out = []
    steps = list(replay(record))
    chose = None
    for i, (state, action) in enumerate(steps):
        if i:
            before = steps[i - 1]
            for end in turn_end_states(*before):
                out.append((end, True, chose))
                chose = None
        out.append((state, False, chose))
        chose = (state, action) if action is not None else None
    return out


def shown_step(page) -> int:
    return int(page.input_value("#slider"))


def expected_label(states, step: int) -> str:
    """The slider's words, counted from the engine: decisions taken before this board."""
    made = sum(1 for _, end, _ in states[:step] if not end)
    total = sum(1 for _, end, _ in states if not end) - 1
    if states[step][1]:
        return f"end of turn · after decision {made} of {total}"
    if made == total:
        return f"last board · after all {total} decisions"
    return f"decision {made + 1} of {total}"


def check_page(page, record, states, step: int, viewer: int | None) -> None:
    """The page shows exactly the engine's state at ``step`` as ``viewer`` may see it, and
    the decision that led to it."""
    state, end, chose = states[step]
    assert shown_step(page) == step
    assert page.inner_text("#step") == expected_label(states, step)
    assert page.inner_text("#status") == _status(state, record, end)
    board = page.eval_on_selector_all("#board svg text", "els => els.map(e => e.textContent)")
    caption = f"end of turn {state.turn}" if end else ""
    assert board == svg_texts(board_svg(state, viewer, record.agents, caption))
    told = page.inner_text("#chose")
    if chose is None:
        assert told == ""
    else:
        before, action = chose
        assert told == f"p{before.current} chose: {describe_action(before, action, viewer)}"
    odds = "" if end else battle_summary(state, viewer) or ""
    assert page.inner_text("#odds").strip() == odds.strip()
    log = page.eval_on_selector_all("#log li", "els => els.length")
    assert log == len(state.event_log)
    now = page.eval_on_selector_all("#log li.now", "els => els.length")
    shown_before = states[step - 1][0].event_log if step else []
    assert now == len(state.event_log) - len(shown_before)


def test_the_viewer_steps_forward_and_back_and_matches_the_engine(viewer) -> None:
    page, record, states, errors = viewer
    last = len(states) - 1
    check_page(page, record, states, 0, None)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check_page(page, record, states, 2, None)
    page.keyboard.press("ArrowLeft")
    check_page(page, record, states, 1, None)
    page.click("#next")
    page.keyboard.press("PageDown")
    check_page(page, record, states, 12, None)
    page.click("#prev")
    check_page(page, record, states, 11, None)
    page.fill("#slider", str(last // 2))  # dragging the slider
    check_page(page, record, states, last // 2, None)
    page.keyboard.press("End")
    check_page(page, record, states, last, None)
    assert "winner:" in page.inner_text("#status")
    page.keyboard.press("ArrowRight")  # stays on the last step
    check_page(page, record, states, last, None)
    page.keyboard.press("Home")
    check_page(page, record, states, 0, None)
    assert errors == []


def test_the_view_selector_shows_each_players_information_only(viewer) -> None:
    page, record, states, errors = viewer
    commit = next(i for i, (s, _e, _c) in enumerate(states) if s.phase.name == "COMMIT"
                  and sum(s.at) >= 4)
    page.fill("#slider", str(commit))
    check_page(page, record, states, commit, None)
    assert page.input_value("#view") == "0"  # the public view is the default
    for seat in range(record.players):
        page.select_option("#view", str(seat + 1))
        check_page(page, record, states, commit, seat)
    views = {
        tuple(svg_texts(board_svg(states[commit][0], v, record.agents)))
        for v in (None, 0, 1, 2, 3)
    }
    assert len(views) > 2  # the views really differ at this step
    page.select_option("#view", "0")
    assert errors == []


def test_a_battle_decision_shows_its_odds(viewer, tmp_path) -> None:
    page, record, states, errors = viewer
    battle = next(i for i, (s, e, _c) in enumerate(states)
                  if not e and s.phase.name == "BATTLE_SPECIAL")
    page.fill("#slider", str(battle))
    for seat in (None, states[battle][0].current):
        page.select_option("#view", "0" if seat is None else str(seat + 1))
        check_page(page, record, states, battle, seat)
        assert "The attacker wins this round" in page.inner_text("#odds")
    page.screenshot(path=str(Path(os.environ.get("PERIKLES_SHOTS", tmp_path)) / "battle.png"))
    page.select_option("#view", "0")
    assert errors == []


def test_the_end_of_a_turn_is_shown_and_told(viewer, tmp_path) -> None:
    """Stepping onto an end-of-turn board shows every location's result and the turn's
    scores, tells the decision that ended the turn and highlights the battles it led to."""
    page, record, states, errors = viewer
    end = next(i for i, (_s, e, _c) in enumerate(states) if e)
    page.fill("#slider", str(end))
    check_page(page, record, states, end, None)
    assert page.inner_text("#status").startswith("end of turn 1 · scores")
    highlighted = page.eval_on_selector_all("#log li.now", "els => els.map(e => e.textContent)")
    assert highlighted[-1].startswith("End of turn 1;")
    page.keyboard.press("ArrowRight")
    check_page(page, record, states, end + 1, None)
    assert page.inner_text("#chose") == ""  # a new turn begins: nobody chose it
    page.screenshot(path=str(Path(os.environ.get("PERIKLES_SHOTS", tmp_path)) / "end.png"))
    assert errors == []
