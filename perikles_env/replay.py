"""Turn a game record into one self-contained HTML replay viewer (no server, no network).

    python -m perikles_env.replay games.jsonl -o game.html            # the first game
    python -m perikles_env.replay runs/eval/x/games.jsonl --game 7 -o game7.html

Records come from ``python -m perikles_env.play --record FILE`` or from the evaluator's
``games.jsonl`` (see ``perikles_env/records.py``). The page shows the SVG board at every
decision, at the end of every turn and at the end of the game, a step slider (keyboard:
left/right arrows, PageUp/PageDown for 10 steps, Home/End), the event log in words with
what led to the board highlighted, the decision that led to it ("p2 chose: ..."), the
exact battle odds before each battle-special decision, and a view selector: the public view
(default) or what one player could see.

The board pictures are split into sections (``render.board_sections``) and each distinct
section is stored once, so a whole game with every player's view stays a few MB.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cli import CliParser, non_negative_int
from .engine.game import Game
from .files import write_text
from .records import GameRecord, RecordError, path_problem, read_records, replay
from .render.narrate import PHASE_TITLES, battle_summary, describe_action, describe_events
from .render.svg import HEIGHT, WIDTH, board_sections, svg_document
from .render.turns import ends_a_turn, turn_end_states


def viewer_data(record: GameRecord) -> dict[str, Any]:
    """Everything the page needs: the section table, and per frame the section ids of each
    view, the status line, the decision that led to this board (who chose what, as each view
    may know it) and how many events had happened by then. A frame is a decision point, an
    end of turn (the board after the turn's battles and scoring, which no decision shows)
    or the final board."""
    n = record.players
    views: list[int | None] = [None, *range(n)]
    sections: list[str] = []
    index: dict[str, int] = {}
    frames: list[dict[str, Any]] = []

    def ids(game: Game, viewer: int | None, caption: str) -> list[int]:
        out = []
        for s in board_sections(game, viewer, record.agents, caption):
            if s not in index:
                index[s] = len(sections)
                sections.append(s)
            out.append(index[s])
        return out

    decisions = len(record.actions)

    def frame(game: Game, chose: tuple[int, list[str]] | None, events: int, end: bool,
              made: int) -> None:
        caption = f"end of turn {game.turn}" if end else ""
        actor, words = chose if chose is not None else (-1, [""] * len(views))
        frames.append({
            "where": step_label(made, decisions, end=end),
            "views": [ids(game, v, caption) for v in views],
            "status": _status(game, record, end),
            "actor": actor,
            "chose": words,
            "events": events,
            "turn": game.turn,
            "phase": "END_OF_TURN" if end else game.phase.name,
            "scores": game.scores(),
            "odds": [battle_summary(game, v) or "" for v in views] if not end else [],
        })

    chose: tuple[int, list[str]] | None = None
    before: tuple[Game, int] | None = None
    final: Game | None = None
    for made, (game, action) in enumerate(replay(record)):
        log = game.event_log
        if before is not None and ends_a_turn(log, len(before[0].event_log)):
            for end in turn_end_states(*before):
                frame(end, chose, len(end.event_log), end=True, made=made)
                chose = None  # the decision is told once, at its first board
        frame(game, chose, len(log), end=False, made=made)
        if action is not None:
            chose = (game.current, [describe_action(game, action, v) for v in views])
            before = (game, action)
        final = game
    assert final is not None
    return {
        "title": _title(record, final),
        "players": n,
        "agents": record.agents,
        "svg_head": svg_document([]).removesuffix("</svg>"),
        "sections": sections,
        "frames": frames,
        "decisions": decisions,
        "events": describe_events(final.event_log),
    }


def step_label(made: int, decisions: int, *, end: bool = False) -> str:
    """Where the slider stands, counted in decisions (a game of 363 decisions has 363, not
    its frame count, which adds each end of turn and the final board): ``made`` decisions
    were taken before this board."""
    if end:
        return f"end of turn · after decision {made} of {decisions}"
    if made >= decisions:
        return f"last board · after all {decisions} decisions"
    return f"decision {made + 1} of {decisions}"


def _title(record: GameRecord, final: Game) -> str:
    lineup = ", ".join(f"p{p} {a}" for p, a in enumerate(record.agents))
    end = "final" if final.is_terminal else "unfinished"
    return f"Perikles, {record.players} players, seed {record.seed} ({lineup}; {end})"


def _status(game: Game, record: GameRecord, end_of_turn: bool = False) -> str:
    if end_of_turn:
        scores = ", ".join(f"p{p} {s}" for p, s in enumerate(game.scores()))
        return f"end of turn {game.turn} · scores {scores}"
    where = f"turn {game.turn} · {PHASE_TITLES[game.phase]}"
    if game.is_terminal:
        return where + " · winner: " + ", ".join(f"p{p}" for p in game.winners())
    p = game.current
    return where + f" · to act: p{p} ({record.agents[p]})"


def write_html(record: GameRecord, out: Path) -> int:
    """Write the viewer atomically; returns its size in bytes."""
    data = viewer_data(record)
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    html = _PAGE.replace("__DATA__", payload).replace("__TITLE__", _escape(data["title"]))
    html = html.replace("__WIDTH__", str(WIDTH)).replace("__HEIGHT__", str(HEIGHT))
    write_text(out, html)
    return len(html.encode("utf-8"))


def _escape(text: str) -> str:
    from html import escape

    return escape(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = CliParser(
        prog="python -m perikles_env.replay",
        description="Write a self-contained HTML replay viewer for a recorded game.",
    )
    parser.add_argument("record", help="JSONL game record (play --record, or games.jsonl)")
    parser.add_argument("-o", "--output", help="HTML file to write (default: RECORD-gameN.html)")
    parser.add_argument("--game", type=non_negative_int, default=1,
                        help="which game of the file, from 1 (default 1)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing output")
    args = parser.parse_args(argv)
    try:
        records = read_records(args.record)
        if not 1 <= args.game <= len(records):
            raise RecordError(f"--game must be 1..{len(records)} for this file, got {args.game}")
        record = records[args.game - 1]
        source = Path(args.record)
        out = Path(args.output or source.with_name(f"{source.stem}-game{args.game}.html"))
        problem = path_problem(out, overwrite=args.force)
        if problem:
            parser.error(f"-o/--output: {problem}")
        size = write_html(record, out)
    except RecordError as exc:
        parser.error(str(exc))
    except OSError as exc:
        parser.error(f"cannot write {str(out)!r}: {exc.strerror or exc}")
    print(f"wrote {out} ({size / 1e6:.1f} MB, {len(record.actions)} decisions)")
    return 0


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>__TITLE__</title>
<style>
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 0; background: #e9e3d5;
       color: #222; }
#bar { display: flex; gap: 10px; align-items: center; padding: 8px 12px; background: #2e2a24;
       color: #f4efe3; position: sticky; top: 0; z-index: 1; }
#bar input[type=range] { flex: 1; }
#bar button, #bar select { font-size: 14px; }
#main { display: flex; gap: 12px; padding: 10px; align-items: flex-start; }
#board svg { width: min(100%, __WIDTH__px); height: auto; display: block; }
#board { flex: 0 1 __WIDTH__px; }
#side { flex: 1 1 320px; min-width: 280px; max-height: calc(100vh - 70px);
        display: flex; flex-direction: column; gap: 8px; }
#status, #chose { background: #fffaf0; border: 1px solid #c9bfa8; padding: 8px;
                  border-radius: 4px; }
#chose:empty, #odds:empty { display: none; }
#odds { background: #fff3cf; border: 1px solid #c0392b; padding: 8px; border-radius: 4px;
        white-space: pre-wrap; font-size: 13px; }
#log { overflow-y: auto; background: #fffaf0; border: 1px solid #c9bfa8; border-radius: 4px;
       margin: 0; padding: 6px 6px 6px 34px; font-size: 13px; flex: 1; }
#log li.now { background: #f7e3a8; font-weight: bold; }
h1 { font-size: 15px; margin: 0; font-weight: normal; }
</style></head>
<body>
<div id="bar">
  <button id="prev" title="previous step (left arrow)">&#9664;</button>
  <input id="slider" type="range" min="0" value="0" aria-label="step">
  <button id="next" title="next step (right arrow)">&#9654;</button>
  <span id="step"></span>
  <label>view <select id="view"></select></label>
</div>
<div id="main">
  <div id="board"></div>
  <div id="side">
    <h1 id="title"></h1>
    <div id="status"></div>
    <div id="chose"></div>
    <div id="odds"></div>
    <ol id="log"></ol>
  </div>
</div>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const last = data.frames.length - 1;
const slider = document.getElementById("slider");
const view = document.getElementById("view");
slider.max = last;
document.getElementById("title").textContent = data.title;
["public (no hidden information)"].concat(data.agents.map((a, p) => "p" + p + " " + a))
  .forEach((label, i) => view.add(new Option(label, String(i))));
let step = 0;
function show(s) {
  step = Math.max(0, Math.min(last, s));
  const f = data.frames[step];
  const v = Number(view.value);
  slider.value = step;
  document.getElementById("step").textContent = f.where;
  document.getElementById("board").innerHTML =
    data.svg_head + f.views[v].map(i => data.sections[i]).join("") + "</svg>";
  document.getElementById("status").textContent = f.status;
  document.getElementById("chose").textContent =
    f.actor >= 0 ? "p" + f.actor + " chose: " + f.chose[v] : "";
  document.getElementById("odds").textContent = f.odds.length ? f.odds[v] : "";
  const since = step > 0 ? data.frames[step - 1].events : 0;
  const log = document.getElementById("log");
  log.replaceChildren(...data.events.slice(0, f.events).map((text, i) => {
    const li = document.createElement("li");
    li.textContent = text;
    if (i >= since) li.className = "now";  // what led to this board
    return li;
  }));
  log.scrollTop = log.scrollHeight;
}
slider.addEventListener("input", () => show(Number(slider.value)));
view.addEventListener("change", () => show(step));
document.getElementById("prev").addEventListener("click", () => show(step - 1));
document.getElementById("next").addEventListener("click", () => show(step + 1));
document.addEventListener("keydown", e => {
  const moves = {ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10};
  if (e.key in moves) show(step + moves[e.key]);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(last);
  else return;
  e.preventDefault();
});
show(0);
</script>
</body></html>
"""


if __name__ == "__main__":
    sys.exit(main())
