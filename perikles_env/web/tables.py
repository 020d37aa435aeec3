"""The games a web server runs ("tables"), each kept on disk so that nothing is lost.

A table lives in its own folder under the games folder::

    <games>/<id>/seats.json     who sits where: "human" (with the seat's secret token) or
                                an agent spec; written once, readable by the owner only
    <games>/<id>/record.jsonl   the game in the replay format (``perikles_env.records``),
                                rewritten atomically after every decision

A server that starts (again) loads every table from these two files and replays the record,
so a restart continues each game where it stopped; ``python -m perikles_env.replay
<games>/<id>/record.jsonl`` shows it in the replay viewer.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents import Agent, AgentError, make_agent
from ..engine import Game, GameConfig, new_game
from ..errors import PeriklesError
from ..files import write_text
from ..records import GameRecord, RecordError, read_records
from ..render.narrate import describe_action, describe_events, who

HUMAN = "human"
SEATS_FORMAT = "perikles-web-seats-1"
_ID = re.compile(r"^[0-9a-f]{12}$")


class TableError(PeriklesError, ValueError):
    """A request the server refuses; ``status`` is its HTTP status code."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Seat:
    spec: str
    token: str = ""
    agent: Agent | None = None

    @property
    def human(self) -> bool:
        return self.spec == HUMAN


@dataclass
class Table:
    """One game: its seats, the engine state, the actions so far and each seat's feed."""

    id: str
    seed: int
    seats: list[Seat]
    folder: Path
    game: Game = field(init=False)
    actions: list[int] = field(default_factory=list)
    feed: list[list[dict[str, Any]]] = field(init=False)
    error: str = ""
    _turn_start: int = field(default=0, init=False, repr=False)  # the turn's first event

    def __post_init__(self) -> None:
        self.game = new_game(GameConfig(num_players=len(self.seats)), seed=self.seed)
        self.feed = [[] for _ in self.seats]
        self._narrate(-1, len(self.seats) * [""], 0)

    @property
    def names(self) -> list[str]:
        return [s.spec if s.human else (s.agent.describe() if s.agent else s.spec)
                for s in self.seats]

    @property
    def step(self) -> int:
        return len(self.actions)

    def agent_to_act(self) -> Agent | None:
        if self.game.is_terminal:
            return None
        return self.seats[self.game.current].agent

    def apply(self, action: int, save: bool = True) -> None:
        """Play ``action`` for the seat to act (checked by the engine: an illegal one raises
        TableError and changes nothing), narrate it and write the record."""
        g = self.game
        if g.is_terminal or not g.is_legal(action):
            raise TableError(f"action {action} ({g.action_to_str(action)}) is not legal now",
                             422)
        actor, seen = g.current, len(g.event_log)
        words = [f"{who(actor, s)}: {describe_action(g, action, s)}" for s in range(g.n)]
        g.apply_action_checked(action)
        self.actions.append(int(action))
        self._narrate(actor, words, seen)
        if save:
            self.save()

    def _narrate(self, actor: int, words: list[str], seen: int) -> None:
        """Each seat's feed gets the new public events in words, or, when the move made
        none, the move itself as that seat may know it. Events are told with what the
        turn's earlier events said (location names, the dice round's targets)."""
        log = self.game.event_log
        for s, feed in enumerate(self.feed):
            lines = describe_events(log[self._turn_start:], s, seen - self._turn_start)
            feed += [{"step": self.step, "actor": actor, "text": t}
                     for t in lines or [words[s]] if t]
        for i in range(seen, len(log)):
            if log[i][0] in ("setup", "new_turn"):
                self._turn_start = i

    def save(self) -> None:
        record = GameRecord(self.seed, len(self.seats), self.names, self.actions)
        line = json.dumps(record.to_json(self.game), separators=(",", ":"))
        write_text(self.folder / "record.jsonl", line + "\n")

    def save_seats(self) -> None:
        data = {"format": SEATS_FORMAT, "id": self.id, "seed": self.seed,
                "seats": [{"spec": s.spec, "token": s.token} for s in self.seats]}
        path = self.folder / "seats.json"
        write_text(path, json.dumps(data, indent=1) + "\n")
        os.chmod(path, 0o600)  # the tokens are the seats' keys


def _seat(spec: str) -> Seat:
    if spec == HUMAN:
        return Seat(HUMAN, secrets.token_urlsafe(24))
    return Seat(spec, agent=make_agent(spec))


class Tables:
    """Every table of one games folder, found by id or by a seat's token."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.by_id: dict[str, Table] = {}
        self.tokens: dict[str, tuple[Table, int]] = {}
        self.skipped: list[str] = []  # folders that could not be loaded, with the reason

    def create(self, specs: list[str], seed: int | None = None) -> Table:
        """A new table; ``specs``: ``"human"`` or an agent spec per seat."""
        if not 3 <= len(specs) <= 5:
            raise TableError(f"Perikles is played by 3 to 5 players, got {len(specs)} seats")
        if HUMAN not in specs:
            raise TableError("a game needs at least one human seat")
        try:
            seats = [_seat(spec) for spec in specs]
        except AgentError as exc:
            raise TableError(str(exc)) from None
        game_id = secrets.token_hex(6)
        folder = self.folder / game_id
        folder.mkdir(mode=0o700)
        table = Table(game_id, secrets.randbelow(2**32) if seed is None else seed, seats, folder)
        table.save()
        table.save_seats()
        self._add(table)
        return table

    def _add(self, table: Table) -> None:
        self.by_id[table.id] = table
        for p, seat in enumerate(table.seats):
            if seat.human:
                self.tokens[seat.token] = (table, p)

    def seat(self, token: str) -> tuple[Table, int]:
        """The table and seat a token opens; unknown tokens are refused."""
        found = self.tokens.get(token) if isinstance(token, str) else None
        if found is None:
            raise TableError("unknown seat token", 404)
        return found

    def load(self) -> list[Table]:
        """Load every table in the folder (a restart); folders that cannot be loaded are
        listed in ``skipped`` and left alone."""
        loaded = []
        for folder in sorted(p for p in self.folder.iterdir() if _ID.match(p.name)):
            if folder.name in self.by_id:
                continue
            try:
                table = _load(folder)
            except (OSError, ValueError, KeyError, TypeError, PeriklesError) as exc:
                self.skipped.append(f"{folder}: {exc}")
                continue
            self._add(table)
            loaded.append(table)
        return loaded


def _load(folder: Path) -> Table:
    data = json.loads((folder / "seats.json").read_text(encoding="utf-8"))
    if data.get("format") != SEATS_FORMAT or data.get("id") != folder.name:
        raise RecordError("seats.json is not a seat file of this game")
    seats = []
    for s in data["seats"]:
        spec, token = str(s["spec"]), str(s.get("token", ""))
        if spec == HUMAN and len(token) < 16:
            raise RecordError("a human seat has no token")
        seats.append(Seat(spec, token if spec == HUMAN else "",
                          None if spec == HUMAN else make_agent(spec)))
    record = read_records(folder / "record.jsonl")[0]
    if record.seed != data["seed"] or record.players != len(seats):
        raise RecordError("record.jsonl does not belong to seats.json")
    table = Table(folder.name, int(data["seed"]), seats, folder)
    for action in record.actions:
        table.apply(action, save=False)
    return table
