"""What the web tests share: a client of a fresh server (Starlette's test client, the
server at ``client.server``) and the browser of the tests in a real browser (Debian's
chromium through Playwright)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from perikles_env.web.server import GameServer, create_app
from perikles_env.web.tables import Tables

from .browser import CHROMIUM


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def client(tmp_path):
    server = GameServer(Tables(tmp_path), pace=0.0)
    with TestClient(create_app(server), base_url="http://127.0.0.1") as c:
        c.server = server
        yield c
