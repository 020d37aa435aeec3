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

from ..engine import data as D
from ..engine.game import Game
from ..engine.information import known_cities
from ..engine.phases import Phase
from ..render.narrate import PHASE_TITLES, battle_odds, class_words, special_title
from ..render.svg import board_svg
from . import hotspots
from .forecast import commit_forecast
from .legend import explain_layer
from .moves import legal_moves
from .rules_link import rules_section

FEED_SHOWN = 60  # the newest feed lines in each payload; the page asks for older ones


def status_line(game: Game, seat: int | None, names: Sequence[str], abandoned: str = "") -> str:
    """One line: who is to act in which phase, or the result (``seat`` None: a spectator)."""
    if game.is_terminal:
        scores = ", ".join(f"p{p} {s}" for p, s in enumerate(game.scores()))
        won = ", ".join("you" if p == seat else f"p{p}" for p in game.winners())
        return f"Game over. Scores: {scores}. Winner: {won}."
    if abandoned:
        return f"Game abandoned: {abandoned}"
    phase = PHASE_TITLES[game.phase]
    if game.current == seat:
        return f"Your move (p{seat}): {phase}"
    return f"Waiting for p{game.current} ({names[game.current]}): {phase}"


def hand(game: Game, seat: int) -> list[dict[str, Any]]:
    """The counters the seat holds in the hands of the cities it leads, strongest first per
    city (its own information: it controls them), for the large hand panel."""
    out = []
    known = known_cities(game, seat)
    for c in range(D.NUM_MILITARY_CITIES):
        if not known >> c & 1:
            continue
        counters = [{"words": class_words(k), "count": int(game.pool[k]),
                     "type": D.UNIT_TYPE_NAMES[D.CLASS_TYPE[k]],
                     "strength": int(D.CLASS_STRENGTH[k])}
                    for t in (D.HOPLITE, D.TRIREME) for k in reversed(D.CLASSES_OF[c][t])
                    if game.pool[k]]
        out.append({"city": D.MILITARY_CITY_NAMES[c].capitalize(), "counters": counters})
    return out


def battle(game: Game, seat: int | None) -> dict[str, Any] | None:
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
    game: Game, seat: int | None, names: Sequence[str], feed: Sequence[dict[str, Any]],
    step: int, game_id: str = "", error: str = "", abandoned: str = "",
) -> dict[str, Any]:
    """Everything seat ``seat`` sees now (JSON-serialisable); ``step``: the decisions made
    so far, ``feed``: the seat's narration (``tables.narrate``). ``seat`` None: a
    spectator, who sees the public information only and never moves."""
    to_act = None if game.is_terminal or abandoned else int(game.current)
    moves = legal_moves(game) if to_act == seat and seat is not None else []
    board = hotspots.with_layer(board_svg(game, seat, list(names)), explain_layer(game.n))
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
        "abandoned": abandoned,
        "status": status_line(game, seat, names, abandoned),
        "error": error,
        "rules": rules_section(game.phase),
        "scores": [int(s) for s in game.scores()],
        "winners": [int(p) for p in game.winners()] if game.is_terminal else [],
        "board": board,
        "moves": [m.to_json() for m in moves],
        "only": only_choice(game, moves),
        "hand": [] if seat is None else hand(game, seat),
        "battle": battle(game, seat),
        "forecast": [] if seat is None else commit_forecast(game, seat),
        "breakdown": score_breakdown(game) if game.is_terminal else [],
        "feed": list(feed[-FEED_SHOWN:]),
        "feed_total": len(feed),
    }


_UNIT_WORDS = ("hoplite", "trireme")


def only_choice(game: Game, moves: Sequence[Any]) -> str:
    """Why a decision with a single legal answer is asked at all, and what holds the other
    answers back: before a battle round every holder of an unused special tile is asked, so
    that nobody learns from the question, or from how fast it is answered, which tile he
    holds."""
    if len(moves) != 1:
        return ""
    if game.phase != Phase.BATTLE_SPECIAL:
        return "This is your only legal move now."
    tile = int(game.special[game.current])
    name = special_title(D.SPECIAL_NAMES[tile])
    unit = D.LOCATION_TILES[game.loc_display[game.b_slot]].rounds[game.b_round]
    if tile not in (*D.BATTLE_SPECIALS_FOR_TYPE[0], *D.BATTLE_SPECIALS_FOR_TYPE[1]):
        why = f"{name} is not a battle tile"
    elif tile not in D.BATTLE_SPECIALS_FOR_TYPE[unit]:
        other = _UNIT_WORDS[1 - unit]
        why = f"{name} helps only in {other} rounds, and this is a {_UNIT_WORDS[unit]} round"
    elif tile in (D.BRASIDAS, D.PHORMIO):
        why = (f"{name} doubles a city's {_UNIT_WORDS[unit]}s only when they fight in this "
               "round, once per round")
    else:
        why = f"{name} places a token only on a side that has none yet"
    return (f"Your only choice is to pass: {why} (rules D.5-D.9). Every holder of a special "
            "tile is asked before each battle round, so that the question tells nobody "
            "which tile you hold.")


def score_breakdown(game: Game) -> list[dict[str, Any]]:
    """Each player's victory points by where they come from (public: rules B.10): cubes in
    main areas and candidate boxes, location tiles won, statues at their city's value now;
    and the defeats that lowered those values."""
    out = []
    for p in range(game.n):
        won = [{"location": D.LOCATION_TILES[t].name.capitalize(), "vp": D.LOCATION_TILES[t].vp}
               for t, claim in enumerate(game.loc_claim) if claim >> p & 1]
        statues = []
        for c in range(D.NUM_CITIES):
            count = int(game.statues[c * D.MAX_PLAYERS + p])
            if count:
                value = D.statue_value(c, game.defeats[c])
                statues.append({"city": D.CITY_NAMES[c].capitalize(), "count": count,
                                "value": value, "defeats": int(game.defeats[c])})
        out.append({"seat": p, "total": int(game.scores()[p]), "cubes": int(game.cube_vp(p)),
                    "locations": won, "location_vp": int(game.location_vp(p)),
                    "statues": statues, "statue_vp": int(game.statue_vp(p))})
    return out
