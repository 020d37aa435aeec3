"""What one seat's browser receives: the board from that seat's point of view, its legal
moves when it is to act, the battle odds it may know, and the story so far in words.

``seat_payload`` is a pure function of the game, the seat and the seat's own feed; it reads
the game only through functions that respect what the seat may know (the SVG board, the
``PlayerView`` behind the odds, the legal actions of the seat's own turn), so the payload is
the same for every hidden state consistent with the seat's information
(tests/web/test_payload.py checks it against ``determinize``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from ..engine.game import Game
from ..render.narrate import PHASE_TITLES, battle_odds
from ..render.svg import board_svg
from . import hotspots
from .forecast import commit_forecast
from .moves import legal_moves

FEED_SHOWN = 60  # the newest feed lines in each payload; the page asks for older ones


def status_line(game: Game, seat: int, names: Sequence[str]) -> str:
    if game.is_terminal:
        scores = ", ".join(f"p{p} {s}" for p, s in enumerate(game.scores()))
        won = ", ".join("you" if p == seat else f"p{p}" for p in game.winners())
        return f"Game over. Scores: {scores}. Winner: {won}."
    phase = PHASE_TITLES[game.phase]
    if game.current == seat:
        return f"Your move (p{seat}): {phase}"
    return f"Waiting for p{game.current} ({names[game.current]}): {phase}"


def battle(game: Game, seat: int) -> dict[str, Any] | None:
    """The exact odds before a battle decision (``narrate.battle_odds``), with the seat's
    own choices when it is the one to decide."""
    odds = battle_odds(game, seat)
    if odds is None:
        return None
    out = {k: v for k, v in asdict(odds).items() if k != "options"}
    out["options"] = [{"action": a, "words": w, "p_round": pr, "p_location": pl}
                      for a, w, pr, pl in odds.options]
    return out


def seat_payload(
    game: Game, seat: int, names: Sequence[str], feed: Sequence[dict[str, Any]],
    step: int, game_id: str = "", error: str = "",
) -> dict[str, Any]:
    """Everything seat ``seat`` sees now (JSON-serialisable); ``step``: the decisions made
    so far, ``feed``: the seat's narration (``tables.narrate``)."""
    to_act = None if game.is_terminal else int(game.current)
    moves = legal_moves(game) if to_act == seat else []
    board = board_svg(game, seat, [("you" if p == seat else n) for p, n in enumerate(names)])
    if moves:
        targets = [t for m in moves for t in m.targets]
        board = hotspots.with_layer(board, hotspots.layer(targets, game.n, seat))
    return {
        "game": game_id,
        "seat": seat,
        "players": game.n,
        "names": list(names),
        "step": step,
        "turn": int(game.turn),
        "phase": PHASE_TITLES[game.phase],
        "to_act": to_act,
        "finished": bool(game.is_terminal),
        "status": status_line(game, seat, names),
        "error": error,
        "scores": [int(s) for s in game.scores()],
        "winners": [int(p) for p in game.winners()] if game.is_terminal else [],
        "board": board,
        "moves": [m.to_json() for m in moves],
        "battle": battle(game, seat),
        "forecast": commit_forecast(game, seat),
        "feed": list(feed[-FEED_SHOWN:]),
        "feed_total": len(feed),
    }
