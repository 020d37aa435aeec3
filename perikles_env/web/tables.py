"""The games a web server runs ("tables"), each kept on disk so that nothing is lost.

A table lives in its own folder under the games folder::

    <games>/<id>/seats.json     who sits where: "human" (with the seat's secret token, its
                                join code and whether someone claimed it) or an agent spec;
                                rewritten when a seat is claimed, readable by the owner only
    <games>/<id>/record.jsonl   the game in the replay format (``perikles_env.records``),
                                rewritten atomically after every decision
    <games>/<id>/abandoned      present when a player gave the game up (its reason inside)

A human seat is claimed by exactly one person: its creator (the first human seat), whoever
sends its join code, or, in a game that is not private, whoever takes it in the lobby. Only
the claim answers with the seat's token, and only once.

A server that starts (again) loads every table from these two files and replays the record,
so a restart continues each game where it stopped. A finished game is only shelved at the
start (its lobby line read from the files) and replayed when first asked for, so the start
does not grow with the archive; ``python -m perikles_env.replay
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
from .moves import move_targets
from .undo import undo_refusal

HUMAN = "human"
SEATS_FORMAT = "perikles-web-seats-1"
_ID = re.compile(r"^[0-9a-f]{12}$")
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud, typed by hand


def join_code() -> str:
    """A short code a person can type: 8 letters (40 bits), shown as ``ABCD-EFGH``."""
    letters = "".join(secrets.choice(CODE_LETTERS) for _ in range(8))
    return letters[:4] + "-" + letters[4:]


def normal_code(text: str) -> str:
    """The code as stored, from what a person typed (any case, with or without the dash)."""
    plain = "".join(ch for ch in text.upper() if ch.isalnum())
    return plain[:4] + "-" + plain[4:]


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
    code: str = ""  # a human seat's join code
    claimed: bool = False  # a person holds the token

    @property
    def human(self) -> bool:
        return self.spec == HUMAN


@dataclass(frozen=True)
class Summary:
    """What the lobby shows of a game; read from a finished game's files without replaying
    it, or from a loaded table."""

    id: str
    seats: list[Seat]
    names: list[str]
    private: bool
    chosen_seed: bool
    step: int
    turn: int
    finished: bool
    abandoned: str
    scores: list[int]
    winners: list[int]

    @property
    def over(self) -> bool:
        return self.finished or bool(self.abandoned)


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
    abandoned: str = ""  # why the game was given up, if it was
    private: bool = False  # open seats are joined only with their code, not in the lobby
    chosen_seed: bool = False  # the creator chose the seed (and so can know hidden tiles)
    _turn_start: int = field(default=0, init=False, repr=False)  # the turn's first event
    before: Game | None = field(default=None, init=False, repr=False)  # before the last move
    _undo: tuple[int, str] = field(default=(-1, ""), init=False, repr=False)
    # each player's last move: (its public words, its board places, the step after it)
    last_moves: dict[int, tuple[str, list[str], int]] = field(default_factory=dict,
                                                              init=False, repr=False)

    def __post_init__(self) -> None:
        self._start()

    def _start(self) -> None:
        self.game = new_game(GameConfig(num_players=len(self.seats)), seed=self.seed)
        self.actions = []
        self.last_moves = {}
        self.before = None
        self._turn_start = 0
        self.feed = [[] for _ in range(len(self.seats) + 1)]  # each seat's, then the public's
        self._narrate(-1, (len(self.seats) + 1) * [""], 0)

    @property
    def names(self) -> list[str]:
        return [s.spec if s.human else (s.agent.describe() if s.agent else s.spec)
                for s in self.seats]

    @property
    def step(self) -> int:
        return len(self.actions)

    @property
    def public_feed(self) -> list[dict[str, Any]]:
        """The story as a spectator may know it."""
        return self.feed[-1]

    @property
    def over(self) -> bool:
        """Finished or abandoned: nobody moves any more."""
        return self.game.is_terminal or bool(self.abandoned)

    def agent_to_act(self) -> Agent | None:
        if self.over:
            return None
        return self.seats[self.game.current].agent

    def unsupported(self) -> str:
        """Why an agent of this table cannot play its player count ("" if all can)."""
        n = len(self.seats)
        for p, seat in enumerate(self.seats):
            if seat.agent is not None and n not in seat.agent.supported_players:
                counts = " or ".join(map(str, seat.agent.supported_players))
                return f"p{p} ({seat.spec}) plays only {counts}-player games, not {n}"
        return ""

    def summary(self) -> Summary:
        g = self.game
        return Summary(self.id, self.seats, self.names, self.private, self.chosen_seed,
                       self.step, int(g.turn), g.is_terminal, self.abandoned,
                       [int(x) for x in g.scores()],
                       [int(p) for p in g.winners()] if g.is_terminal else [])

    def abandon(self, reason: str) -> None:
        """Give the game up: nobody moves any more; the record stays."""
        if self.over:
            raise TableError("the game is over", 409)
        self.abandoned = reason
        write_text(self.folder / "abandoned", reason + "\n")

    def apply(self, action: int, save: bool = True) -> None:
        """Play ``action`` for the seat to act (checked by the engine: an illegal one raises
        TableError and changes nothing), narrate it and write the record."""
        g = self.game
        if g.is_terminal or not g.is_legal(action):
            raise TableError(f"action {action} ({g.action_to_str(action)}) is not legal now",
                             422)
        actor, seen = g.current, len(g.event_log)
        viewers: list[int | None] = [*range(g.n), None]
        words = [f"{who(actor, s)}: {describe_action(g, action, s)}" for s in viewers]
        places = move_targets(g, action)
        before = g.clone()
        g.apply_action_checked(action)
        self.before = before
        self.actions.append(int(action))
        self.last_moves[actor] = (words[-1], places, self.step)
        self._narrate(actor, words, seen)
        if save:
            self.save()

    def undo_refusal(self, seat: int) -> str:
        """Why ``seat`` may not take back the last move now ("" if it may; ``undo``)."""
        if self.over or self.before is None:
            return "there is no move to take back"
        mover = self.before.current
        if mover != seat:
            return f"p{mover} has moved since your last move"
        if self._undo[0] != self.step:  # checked once per step: every payload asks
            self._undo = (self.step, undo_refusal(self.before, self.actions[-1], mover))
        return self._undo[1]

    def undo(self, seat: int) -> None:
        """Take back the last move (``seat``'s, allowed by ``undo_refusal``): the game is
        played again from its seed without it, and the record rewritten."""
        refusal = self.undo_refusal(seat)
        if refusal:
            raise TableError(f"cannot take the move back: {refusal}", 409)
        actions = self.actions[:-1]
        self._start()
        for action in actions:
            self.apply(action, save=False)
        self.save()

    def _narrate(self, actor: int, words: list[str], seen: int) -> None:
        """Each seat's feed gets the new public events in words, or, when the move made
        none, the move itself as that seat may know it. Events are told with what the
        turn's earlier events said (location names, the dice round's targets)."""
        log = self.game.event_log
        for s, feed in enumerate(self.feed):
            viewer = s if s < len(self.seats) else None
            lines = describe_events(log[self._turn_start:], viewer, seen - self._turn_start)
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
                "private": self.private, "chosen_seed": self.chosen_seed,
                "seats": [{"spec": s.spec, "token": s.token, "code": s.code,
                           "claimed": s.claimed} for s in self.seats]}
        path = self.folder / "seats.json"
        write_text(path, json.dumps(data, indent=1) + "\n")
        os.chmod(path, 0o600)  # the tokens are the seats' keys


def _seat(spec: str) -> Seat:
    if spec == HUMAN:
        return Seat(HUMAN, secrets.token_urlsafe(24), code=join_code())
    return Seat(spec, agent=make_agent(spec))


class Tables:
    """Every table of one games folder, found by id or by a seat's token."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.by_id: dict[str, Table] = {}
        self.tokens: dict[str, tuple[Table, int]] = {}
        self.codes: dict[str, tuple[Table, int]] = {}
        self.skipped: list[str] = []  # folders that could not be loaded, with the reason
        self.shelved: dict[str, Summary] = {}  # finished games not replayed yet
        self._shelved_keys: dict[str, tuple[str, int]] = {}  # their tokens and codes

    def create(self, specs: list[str], seed: int | None = None, private: bool = False) -> Table:
        """A new table; ``specs``: ``"human"`` or an agent spec per seat. Its first human
        seat is claimed by the creator; an agent that cannot play this many players is
        refused here, before any game exists."""
        if not 3 <= len(specs) <= 5:
            raise TableError(f"Perikles is played by 3 to 5 players, got {len(specs)} seats")
        if HUMAN not in specs:
            raise TableError("a game needs at least one human seat")
        try:
            seats = [_seat(spec) for spec in specs]
        except AgentError as exc:
            raise TableError(str(exc)) from None
        seats[specs.index(HUMAN)].claimed = True
        game_id = secrets.token_hex(6)
        table = Table(game_id, secrets.randbelow(2**32) if seed is None else seed, seats,
                      self.folder / game_id)
        table.private, table.chosen_seed = private, seed is not None
        problem = table.unsupported()
        if problem:
            raise TableError(problem, 422)
        table.folder.mkdir(mode=0o700)
        table.save()
        table.save_seats()
        self._add(table)
        return table

    def _add(self, table: Table) -> None:
        self.by_id[table.id] = table
        for p, seat in enumerate(table.seats):
            if seat.human:
                self.tokens[seat.token] = (table, p)
                if seat.code and not seat.claimed:
                    self.codes[seat.code] = (table, p)

    def claim(self, table: Table, p: int) -> str:
        """Give seat ``p`` to the person asking (once): its token."""
        seat = table.seats[p]
        if not seat.human or seat.claimed:
            raise TableError(f"seat p{p} is not open", 409)
        if table.over:
            raise TableError("the game is over", 409)
        seat.claimed = True
        self.codes.pop(seat.code, None)
        table.save_seats()
        return seat.token

    def join(self, code: str) -> tuple[Table, int, str]:
        """The table, seat and token of a join code; a code opens its seat once."""
        found = self.codes.get(normal_code(code)) if isinstance(code, str) else None
        if found is None and isinstance(code, str) and normal_code(code) in self._shelved_keys:
            game_id, p = self._shelved_keys[normal_code(code)]
            found = self._unshelve(game_id), p
        if found is None:
            raise TableError("unknown or already used join code", 404)
        table, p = found
        return table, p, self.claim(table, p)

    def take_open_seat(self, game_id: str, p: int) -> str:
        """A seat taken in the lobby: only an open seat of a game that is not private."""
        table = self.table(game_id) if self.has(game_id) else None
        if table is None:
            raise TableError("unknown game", 404)
        if not 0 <= p < len(table.seats):
            raise TableError(f"the game has no seat p{p}", 422)
        if table.private:
            raise TableError("this game's seats are joined with their invitation code", 403)
        return self.claim(table, p)

    def has(self, game_id: str) -> bool:
        return isinstance(game_id, str) and (game_id in self.by_id or game_id in self.shelved)

    def summaries(self) -> list[Summary]:
        """Every game's lobby line: the loaded tables' and the shelved finished games'."""
        return [t.summary() for t in self.by_id.values()] + list(self.shelved.values())

    def _unshelve(self, game_id: str) -> Table:
        """Replay a shelved finished game now that someone asks for it."""
        del self.shelved[game_id]
        for key in [k for k, (g, _) in self._shelved_keys.items() if g == game_id]:
            del self._shelved_keys[key]
        try:
            table = _load(self.folder / game_id)
        except (OSError, ValueError, KeyError, TypeError, PeriklesError) as exc:
            self.skipped.append(f"{self.folder / game_id}: {exc}")
            raise TableError("the game's files cannot be read any more", 404) from None
        self._add(table)
        return table

    def table(self, game_id: str) -> Table:
        if isinstance(game_id, str) and game_id in self.shelved:
            return self._unshelve(game_id)
        table = self.by_id.get(game_id) if isinstance(game_id, str) else None
        if table is None:
            raise TableError("unknown game", 404)
        return table

    def seat(self, token: str) -> tuple[Table, int]:
        """The table and seat a token opens; unknown tokens are refused."""
        found = self.tokens.get(token) if isinstance(token, str) else None
        if found is None and isinstance(token, str) and token in self._shelved_keys:
            game_id, p = self._shelved_keys[token]
            found = self._unshelve(game_id), p
        if found is None:
            raise TableError("unknown seat token", 404)
        return found

    def load(self) -> list[Table]:
        """Load every unfinished table in the folder (a restart) and shelve the finished
        ones (``shelved``, replayed on first request); folders that cannot be loaded are
        listed in ``skipped`` and left alone."""
        loaded = []
        for folder in sorted(p for p in self.folder.iterdir() if _ID.match(p.name)):
            if self.has(folder.name):
                continue
            try:
                summary = _finished_summary(folder)
                if summary is not None:
                    self._shelve(summary)
                    continue
                table = _load(folder)
            except (OSError, ValueError, KeyError, TypeError, PeriklesError) as exc:
                self.skipped.append(f"{folder}: {exc}")
                continue
            self._add(table)
            loaded.append(table)
        return loaded

    def _shelve(self, summary: Summary) -> None:
        self.shelved[summary.id] = summary
        for p, seat in enumerate(summary.seats):
            if seat.human:
                self._shelved_keys[seat.token] = (summary.id, p)
                if seat.code and not seat.claimed:
                    self._shelved_keys[seat.code] = (summary.id, p)


def _read_files(folder: Path, agents: bool = True) -> tuple[dict[str, Any], list[Seat],
                                                            GameRecord]:
    """seats.json (checked), its seats (with their agents made when ``agents``) and the
    record, which must belong to it."""
    data = json.loads((folder / "seats.json").read_text(encoding="utf-8"))
    if data.get("format") != SEATS_FORMAT or data.get("id") != folder.name:
        raise RecordError("seats.json is not a seat file of this game")
    seats = []
    for s in data["seats"]:
        spec, token = str(s["spec"]), str(s.get("token", ""))
        if spec == HUMAN and len(token) < 16:
            raise RecordError("a human seat has no token")
        seats.append(Seat(spec, token if spec == HUMAN else "",
                          None if spec == HUMAN or not agents else make_agent(spec),
                          str(s.get("code", "")), bool(s.get("claimed", True))))
    record = read_records(folder / "record.jsonl")[0]
    if record.seed != data["seed"] or record.players != len(seats):
        raise RecordError("record.jsonl does not belong to seats.json")
    return data, seats, record


def _finished_summary(folder: Path) -> Summary | None:
    """The lobby line of a finished game, read from its record's events without replaying
    it; None for a game that is not finished (or was given up: those load at once)."""
    if (folder / "abandoned").is_file():
        return None
    data, seats, record = _read_files(folder, agents=False)
    over = [e for e in record.events if e and e[0] == "game_over"]
    if not over:
        return None
    turns = [int(e[1]) for e in record.events if e and e[0] in ("new_turn", "end_turn")]
    return Summary(folder.name, seats, list(record.agents), bool(data.get("private", False)),
                   bool(data.get("chosen_seed", False)), len(record.actions),
                   max(turns, default=1), True, "", [int(x) for x in record.scores],
                   [int(p) for p in over[-1][2]])


def _load(folder: Path) -> Table:
    data, seats, record = _read_files(folder)
    table = Table(folder.name, int(data["seed"]), seats, folder)
    table.private = bool(data.get("private", False))
    table.chosen_seed = bool(data.get("chosen_seed", False))
    for action in record.actions:
        table.apply(action, save=False)
    if (folder / "abandoned").is_file():
        table.abandoned = (folder / "abandoned").read_text(encoding="utf-8").strip() or "given up"
    elif not table.game.is_terminal:
        table.error = table.unsupported()  # stuck: its people can abandon it
    return table
