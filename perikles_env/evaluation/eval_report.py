"""Writing an evaluation: ``report.md`` (human), ``results.json`` (machine), ``games.jsonl``
(one record per game). Timings live only under the ``timing`` keys of the JSON and in the
report's timing table, so everything else is identical for identical arguments.

While the games run, each finished game is appended to ``games.partial.jsonl`` with its
timings (nothing played is lost if the run is killed, and ``perikles-evaluate --resume``
plays only the rest); at the end every file is written atomically, in job order, and
``games.partial.jsonl`` removed. ``config.json`` holds the run's checked settings from the
start, so a resume plays exactly the games the first command asked for."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from perikles_env.engine import MAX_GAME_DECISIONS
from perikles_env.errors import InvalidConfigError
from perikles_env.files import write_text

from .config import EvalConfig
from .eval_result import EvalResult
from .runner import TIMING_KEYS, GameRecord


def ms(value: float | None) -> str:
    """A timing in ms for a table or a line ("—": not measured)."""
    return "—" if value is None else f"{value:.1f}"


def _table(header: list[str], rule: str, rows: list[list[str]]) -> list[str]:
    """A markdown table's lines: the header cells, the columns' rule (``---`` or ``---:``
    each, ``|`` between), then each row's cells."""
    cells = (" | ".join(r) for r in (header, *rows))
    head, *body = (f"| {line} |" for line in cells)
    return [head, f"|{rule}|", *body]


def _ci(low: float, high: float, digits: int = 1, pct: bool = False) -> str:
    if pct:
        return f"[{100 * low:.{digits}f}, {100 * high:.{digits}f}]"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def markdown(result: EvalResult) -> str:
    cfg = result.config
    lines = [
        f"# Evaluation {cfg.name or ''}".rstrip(),
        "",
        f"* command: `{result.command}`" if result.command else "* command: (Python API)",
        f"* seed: {cfg.seed}; game seeds shared by every lineup (common random numbers); "
        "every lineup played in all seat rotations on each seed",
        f"* games per matchup: {', '.join(str(m.games) for m in result.matchups)}",
        f"* illegal actions in total: **{result.illegal_actions}** (must be 0)",
        f"* games truncated at {MAX_GAME_DECISIONS} decisions (no winner, all seats ranked "
        f"equal): **{result.truncated_games}**",
        "",
        "Win rate: mean win share per seat (ties split), Wilson 95 % CI. Mean rank (1 = best, "
        "ties share places) and mean VP: 95 % percentile bootstrap CI over games.",
        "",
    ]
    for players in sorted({m.players for m in result.matchups}):
        lines += [f"## {players} players", ""]
        for m in (m for m in result.matchups if m.players == players):
            lines += [f"### Matchup {m.index}: {', '.join(m.lineup)} ({m.games} games)", ""]
            if m.truncated_games:
                lines += [f"{m.truncated_games} of these games were truncated.", ""]
            lines += _table(
                ["agent", "seats", "win rate %", "95 % CI", "mean rank", "95 % CI", "mean VP",
                 "95 % CI", "illegal"],
                "---|---:|---:|---|---:|---|---:|---|---:",
                [[f"`{a.agent}`", f"{a.seats_played}", f"{100 * a.win_rate:.1f}",
                  _ci(*a.win_ci, pct=True), f"{a.mean_rank:.2f}", _ci(*a.rank_ci, 2),
                  f"{a.mean_vp:.1f}", _ci(*a.vp_ci), f"{a.illegal_actions}"]
                 for a in m.agents.values()],
            )
            lines += ["", "Win rate % by seat (seat 0 .. N-1):", ""]
            lines += _table(
                ["agent", *(f"seat {s}" for s in range(players))],
                "---|" + "---:|" * (players - 1) + "---:",
                [[f"`{a.agent}`", *(f"{100 * w:.1f} ({g})" if g else "-" for w, g in
                                    zip(a.win_rate_by_seat, a.games_by_seat, strict=True))]
                 for a in m.agents.values()],
            )
            if len(m.agents) > 1:
                names = list(m.agents)
                lines += ["", "Head to head: P(row finishes ahead of column), ties 1/2:", ""]
                lines += ["| | " + " | ".join(f"`{n}`" for n in names) + " |"]
                lines += ["|---|" + "---:|" * len(names)]
                for row_name in names:
                    row = [
                        "-"
                        if row_name == b
                        else f"{m.head_to_head.get(row_name, {}).get(b, float('nan')):.3f}"
                        for b in names
                    ]
                    lines.append(f"| `{row_name}` | " + " | ".join(row) + " |")
            lines += [
                "",
                "Timing (varies between runs; wall-clock and this process's CPU time, which "
                "is what one core spends when the machine is shared):",
                "",
            ]
            lines += _table(
                ["agent", "mean ms / decision", "max ms", "mean CPU ms", "95th pct. CPU ms",
                 "max CPU ms", "decisions / game"],
                "---|---:|---:|---:|---:|---:|---:",
                [[f"`{t.agent}`", f"{t.mean_decision_ms:.2f}", f"{t.max_decision_ms:.1f}",
                  f"{t.mean_cpu_ms:.2f}", ms(t.p95_cpu_ms), f"{t.max_cpu_ms:.1f}",
                  f"{t.decisions_per_game:.1f}"]
                 for t in m.timing.values()],
            )
            timed = min((t.timed_games for t in m.timing.values()), default=m.games)
            if timed < m.games:
                lines += ["", f"The timings cover {timed} of the {m.games} games: the others "
                          "were kept without timings by an older version before a resume."]
            lines.append("")
        ratings = result.ratings.get(players, {})
        if ratings:
            lines += [
                f"### OpenSkill (Plackett-Luce) ratings, all {players}-player games",
                "",
                "| agent | mu | sigma | ordinal (mu - 3 sigma) |",
                "|---|---:|---:|---:|",
            ]
            for name, r in sorted(ratings.items(), key=lambda kv: -kv[1]["mu"]):
                lines.append(
                    f"| `{name}` | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |"
                )
            lines.append("")
    if result.plots:
        lines += ["## Plots", ""] + [f"![{p}]({p})" for p in result.plots] + [""]
    return "\n".join(lines)


def to_json(result: EvalResult) -> dict[str, Any]:
    cfg = result.config
    return {
        "format": "perikles-eval-1",
        "config": {
            "name": cfg.name,
            "seed": cfg.seed,
            "games_requested": cfg.games,
            "lineups": [list(x) for x in cfg.lineups],
        },
        "illegal_actions": result.illegal_actions,
        "truncated_games": result.truncated_games,
        "matchups": [m.numbers() for m in result.matchups],
        "ratings": {str(k): v for k, v in result.ratings.items()},
        "timing": {
            str(m.index): {k: vars(t) for k, t in m.timing.items()} for m in result.matchups
        },
        "command": result.command,
    }


PARTIAL = "games.partial.jsonl"
CONFIG = "config.json"


def game_line(record: GameRecord) -> str:
    """One game as a JSON line, without its timings (they vary between identical runs)."""
    row = record.to_dict()
    for key in TIMING_KEYS:
        row.pop(key)
    return json.dumps(row, sort_keys=True) + "\n"


def append_game(run_dir: Path, record: GameRecord) -> None:
    """Record a finished game at once, timings included (``games.partial.jsonl``, flushed
    to disk), so that a resumed run still reports every game's timing."""
    with (run_dir / PARTIAL).open("a", encoding="utf-8") as f:
        f.write(json.dumps(record.to_dict(), sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def write_config(run_dir: Path, config: EvalConfig) -> None:
    write_text(run_dir / CONFIG, json.dumps(config.to_dict(), indent=1, sort_keys=True) + "\n")


def read_config(run_dir: Path) -> EvalConfig:
    """The settings a run was started with (``InvalidConfigError`` if missing or bad)."""
    from perikles_env.jobs.config_schema import build

    path = run_dir / CONFIG
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidConfigError(
            f"{run_dir} has no {CONFIG}: not an evaluation run folder, or one started by an "
            "older version (run it again instead)"
        ) from None
    except (OSError, ValueError) as exc:
        raise InvalidConfigError(f"cannot read {path}: {exc}") from None
    lineups = data.get("lineups") if isinstance(data, dict) else None
    if isinstance(lineups, list):  # JSON has no tuples
        data["lineups"] = [tuple(x) if isinstance(x, list) else x for x in lineups]
    try:
        return build(EvalConfig, data)
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{path}: {exc}") from None


def _complete_lines(path: Path) -> bytes:
    data = path.read_bytes() if path.exists() else b""
    if path.suffix == ".gz" and data:  # an archived run's records (perikles_env.bench)
        data = gzip.decompress(data)
    return data[: data.rfind(b"\n") + 1]


def read_games(run_dir: Path, name: str = PARTIAL) -> list[GameRecord]:
    """The complete games in ``games.partial.jsonl`` (or ``name``: ``games.jsonl`` of a
    finished run), in file order (a torn last line, the run killed while writing it, is not
    a game). Lines written without timings get empty timing lists (counted as untimed
    games)."""
    path = run_dir / name
    complete = _complete_lines(path)
    records = []
    for number, line in enumerate(complete.decode("utf-8").splitlines(), start=1):
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise TypeError(f"a {type(row).__name__}, not an object")
            for key in TIMING_KEYS:
                row.setdefault(key, [])
            records.append(GameRecord(**row))
        except (ValueError, TypeError) as exc:
            raise InvalidConfigError(f"{path}, line {number}: not a game record ({exc})") from None
    return records


def cut_torn_line(run_dir: Path) -> None:
    """Drop a torn last line from ``games.partial.jsonl`` so the next game starts a line."""
    path = run_dir / PARTIAL
    complete = _complete_lines(path)
    if path.exists() and path.stat().st_size != len(complete):
        with path.open("r+b") as f:
            f.truncate(len(complete))


def recorded_games(run_dir: Path) -> int:
    """The complete game lines in ``games.partial.jsonl``: what an interrupted run kept (a
    signal may land between a game's end and its line, so no counter is trusted for it)."""
    path = run_dir / PARTIAL
    if not path.exists():
        return 0
    return path.read_bytes().count(b"\n")


def write_run(result: EvalResult, run_dir: Path) -> None:
    """The finished run's files, each written atomically; the report last."""
    results = json.dumps(to_json(result), indent=2, sort_keys=True) + "\n"
    write_text(run_dir / "results.json", results)
    write_text(run_dir / "games.jsonl", "".join(game_line(r) for r in result.records))
    (run_dir / PARTIAL).unlink(missing_ok=True)
    write_text(run_dir / "report.md", markdown(result))
