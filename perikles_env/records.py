"""Game records: one JSON object per line (JSONL), enough to replay a game exactly.

A record holds the seed, the player count, the agent name per seat and every applied action
id; the engine is deterministic (same seed + same actions = same game), so replaying the
actions rebuilds every state, and the events and scores stored beside them are checked
against the replay rather than trusted. Two writers produce records:

* ``python -m perikles_env.play --record FILE`` appends one ``perikles-record-1`` object
  per game: ``{"format", "seed", "players", "agents", "actions", "scores", "winners",
  "events", "finished"}``;
* the evaluator's ``games.jsonl`` rows (``seed``, ``seats``, ``actions``, ``scores``, ...),
  read here as records with ``agents = seats``.

Reading is plain JSON (no code runs); every field is type-checked and a bad record raises
``RecordError`` naming the line and the field.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .engine import Game, GameConfig, new_game
from .errors import IllegalActionError, InvalidConfigError, PeriklesError
from .files import atomic_write

FORMAT = "perikles-record-1"


class RecordError(PeriklesError, ValueError):
    """A game record file is missing, unreadable or inconsistent with the rules."""


@dataclass
class GameRecord:
    seed: int
    players: int
    agents: list[str]
    actions: list[int]
    scores: list[int] = field(default_factory=list)
    events: list[list[Any]] = field(default_factory=list)
    source: str = ""

    def to_json(self, game: Game) -> dict[str, Any]:
        """The record of ``game`` (played from ``seed`` with ``actions``) as a JSON object."""
        return {
            "format": FORMAT,
            "seed": self.seed,
            "players": self.players,
            "agents": list(self.agents),
            "actions": list(self.actions),
            "scores": game.scores(),
            "winners": game.winners() if game.is_terminal else [],
            "finished": game.is_terminal,
            "events": [list(e) for e in game.event_log],
        }


def append_record(path: str | Path, record: GameRecord, game: Game) -> None:
    """Add one game to a JSONL file (created if missing; earlier games are kept). The file
    is replaced atomically (old lines plus the new one, written to a temporary file that is
    then renamed), so an interruption leaves the old file or the new one, never half a
    line."""
    line = json.dumps(record.to_json(game), separators=(",", ":")) + "\n"
    path = Path(path)
    problem = path_problem(path)
    if problem:
        raise RecordError(f"cannot write record: {problem}")
    try:
        old = path.read_bytes() if path.exists() else b""
        if old and not old.endswith(b"\n"):
            old += b"\n"
        atomic_write(path, lambda f: f.write(old + line.encode("utf-8")))
    except OSError as exc:
        raise RecordError(f"cannot write record {str(path)!r}: {exc.strerror or exc}") from None


def path_problem(path: str | Path, overwrite: bool = True) -> str:
    """Why a file cannot be written at ``path`` ("" if it can; ``overwrite=False``: an
    existing file is a problem too). Tools check before any work, so a bad path costs
    nothing and leaves nothing behind."""
    path = Path(path)
    shown = repr(str(path))
    if path.is_dir():
        return f"{shown} is a folder; give a file name"
    if not path.parent.is_dir():
        return f"folder {str(path.parent)!r} does not exist"
    try:  # the real test: create (and remove) a file there
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as exc:
        return f"folder {str(path.parent)!r} is not writable ({exc.strerror or exc})"
    if path.exists() and not overwrite:
        return f"{shown} exists; pass --force to overwrite it"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{shown} is not writable"
    return ""


def read_records(path: str | Path) -> list[GameRecord]:
    """Every game record in a JSONL file (play records or evaluator ``games.jsonl`` rows)."""
    path = Path(path)
    if path.is_dir():
        raise RecordError(f"{str(path)!r} is a folder, not a record file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"no such record file: {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read record file {str(path)!r}: {exc}") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}:{number}: not JSON ({exc.msg})") from None
        records.append(_parse(data, f"{path}:{number}"))
    if not records:
        raise RecordError(f"{path}: no game records in the file")
    return records


def _parse(data: Any, where: str) -> GameRecord:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record must be a JSON object")
    if "format" in data and data["format"] != FORMAT:
        raise RecordError(f"{where}: unknown record format {data['format']!r}")
    named = data.get("agents", data.get("seats"))  # evaluator rows name them "seats"
    count = data.get("players", len(named) if isinstance(named, list) else None)
    seed = _check(where, "seed", data.get("seed"), lambda v: _is_int(v) and v >= 0)
    players = _check(where, "players", count, lambda v: _is_int(v) and 3 <= v <= 5)
    agents = _check(where, "agents", named,
                    lambda v: isinstance(v, list) and len(v) == players
                    and all(isinstance(a, str) for a in v))
    actions = _check(where, "actions", data.get("actions"),
                     lambda v: isinstance(v, list) and all(_is_int(a) and a >= 0 for a in v))
    scores = _check(where, "scores", data.get("scores", []),
                    lambda v: isinstance(v, list) and all(map(_is_int, v)))
    events = _check(where, "events", data.get("events", []), lambda v: isinstance(v, list))
    source = "play" if "format" in data else "evaluation"
    return GameRecord(seed, players, agents, actions, scores, events, source)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check(where: str, name: str, value: Any, ok: Callable[[Any], bool]) -> Any:
    """``value`` if present and ``ok``; otherwise a RecordError naming the field."""
    if value is None:
        raise RecordError(f"{where}: field {name!r} is missing")
    if not ok(value):
        raise RecordError(f"{where}: field {name!r} is invalid: {str(value)[:60]}")
    return value


def replay(record: GameRecord) -> Iterator[tuple[Game, int | None]]:
    """Every decision point of the game: ``(state, action chosen there)``, then the last
    state with ``None``. States are independent copies. Each action is checked by the
    engine; an illegal one, or scores that differ from the recorded ones, raise
    ``RecordError`` (the record does not belong to this engine or was edited)."""
    try:
        game = new_game(GameConfig(num_players=record.players), seed=record.seed)
    except InvalidConfigError as exc:
        raise RecordError(f"record cannot start a game: {exc}") from None
    for step, action in enumerate(record.actions):
        yield game.clone(), action
        try:
            game.apply_action_checked(action)
        except IllegalActionError as exc:
            raise RecordError(
                f"action {step + 1} of {len(record.actions)} ({exc.action_str}) is not legal "
                f"in phase {exc.phase}"
            ) from None
    if record.scores and game.scores() != record.scores:
        raise RecordError(
            f"replayed scores {game.scores()} differ from the recorded {record.scores}"
        )
    if record.events and json.loads(json.dumps(game.event_log)) != record.events:
        raise RecordError("replayed events differ from the recorded ones")
    yield game.clone(), None
