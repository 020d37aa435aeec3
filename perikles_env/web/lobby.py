"""What the lobby shows of a game: who sits where, which seats are open, how far it is and,
at the end, the scores; never its seed, a seat's token or a join code (a spectator or a
stranger reads the lobby too)."""

from __future__ import annotations

from typing import Any

from .tables import Summary


def seat_label(table: Summary, p: int) -> str:
    seat = table.seats[p]
    if not seat.human:
        return table.names[p]
    return "player" if seat.claimed else "open seat"


def lobby_entry(table: Summary) -> dict[str, Any]:
    over = table.over
    open_seats = [p for p, s in enumerate(table.seats) if s.human and not s.claimed]
    if table.finished:
        state = "finished"
    elif table.abandoned:
        state = "abandoned"
    elif open_seats:
        state = "open"
    else:
        state = "running"
    return {
        "id": table.id,
        "players": len(table.seats),
        "seats": [seat_label(table, p) for p in range(len(table.seats))],
        "open": [] if over else open_seats,
        "private": table.private,
        "chosen_seed": table.chosen_seed,
        "state": state,
        "step": table.step,
        "turn": table.turn,
        "scores": table.scores if table.finished else [],
        "winners": table.winners,
        "watch": f"/watch/{table.id}",
    }


def lobby(tables: list[Summary]) -> list[dict[str, Any]]:
    """Open games first, then running, then finished or abandoned ones."""
    order = {"open": 0, "running": 1, "finished": 2, "abandoned": 3}
    entries = [lobby_entry(t) for t in tables]
    return sorted(entries, key=lambda e: order[e["state"]])
