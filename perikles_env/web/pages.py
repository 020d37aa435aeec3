"""The web game's four pages, each one shared ``<head>`` above its own body.

The head (charset, viewport, no referrer, the style sheet, no favicon request) is the same
on every page but for the title and the page's script, so it is written here once; each
page's body stays in ``static/<name>.body.html``. The pages are put together at import.
"""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).with_name("static")

_HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="data:,">
{script}</head>
"""


def page(name: str, title: str, script: bool = True) -> str:
    """The page ``name``: the shared head titled ``title`` (loading ``/static/<name>.js``
    where ``script``), then ``static/<name>.body.html``."""
    js = f'<script src="/static/{name}.js" defer></script>\n' if script else ""
    body = (STATIC / f"{name}.body.html").read_text(encoding="utf-8")
    return _HEAD.format(title=title, script=js) + body


PAGES = {
    "index": page("index", "Perikles · lobby"),
    "join": page("join", "Perikles · join a game"),
    "play": page("play", "Perikles"),
    "unknown": page("unknown", "Perikles · unknown link", script=False),
}
