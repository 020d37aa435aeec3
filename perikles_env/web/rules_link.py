"""The rules section of each decision (``docs/rules.md``), linked from the decision panel,
and the page ``/rules`` that shows that document with an id on every heading (GitHub's
slugs, which the document's own links use), so ``/rules#<id>`` opens at the section."""

from __future__ import annotations

import re
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from ..engine.phases import Phase

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules.md"  # a source checkout's

# Each decision's section, by the start of its heading in docs/rules.md.
SECTIONS = {
    Phase.SETUP_PLACE: "6.", Phase.INFLUENCE_PICK: "8.2", Phase.ALKIBIADES_CUBE: "8.4",
    Phase.ALKIBIADES_DEST: "8.4", Phase.ANY_CITY: "4.3", Phase.CANDIDATE_TILE: "8.2",
    Phase.ASSASSIN_TILE: "8.2", Phase.POST_PICK_SPECIAL: "8.4", Phase.PROPOSE: "9.",
    Phase.SPARTA_CHOICE: "11.2", Phase.DEAD_POOL: "11.3", Phase.COMMIT: "11.5",
    Phase.PERMISSION: "11.10", Phase.BATTLE_SPECIAL: "12.6", Phase.CASUALTY: "12.7",
    Phase.GAME_OVER: "14.",
}
_HEADING = re.compile(r"^(#{1,4}) (.+)$")


def slug(title: str) -> str:
    """GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


@cache
def headings() -> dict[str, tuple[str, str]]:
    """Section number -> (heading title, id), read from docs/rules.md ({} without it)."""
    if not RULES.is_file():
        return {}
    out = {}
    for line in RULES.read_text(encoding="utf-8").splitlines():
        m = _HEADING.match(line)
        if m:
            number = m.group(2).split()[0]
            out.setdefault(number, (m.group(2), slug(m.group(2))))
    return out


def rules_section(phase: Phase) -> dict[str, Any] | None:
    """``{"title", "link"}`` of the rules section of a decision in ``phase`` (None where the
    document is not here)."""
    found = headings().get(SECTIONS.get(phase, ""))
    if found is None:
        return None
    title, anchor = found
    return {"title": title, "link": f"/rules#{anchor}"}


@cache
def rules_html() -> str:
    """docs/rules.md as one plain page: headings with their ids, the rest as written."""
    parts, block = [], []

    def flush() -> None:
        if block:
            parts.append("<pre>" + escape("\n".join(block)) + "</pre>")
            block.clear()

    for line in RULES.read_text(encoding="utf-8").splitlines():
        m = _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            parts.append(f'<h{level} id="{slug(m.group(2))}">{escape(m.group(2))}</h{level}>')
        else:
            block.append(line)
    flush()
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Perikles '
            'rules</title><link rel="stylesheet" href="/static/style.css"></head>'
            '<body class="rules">' + "".join(parts) + "</body></html>")
