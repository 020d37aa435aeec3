"""Battle odds as one seat may know them: before a battle decision the exact chance that
the attack takes the location after each choice, with the strengths of every round; while
forces are committed, an estimate for each attacked location.

Everything is computed from the seat's ``PlayerView`` (docs/rules.md F): the counters of
the location being fought are face up, so those odds are exact; elsewhere a face-down
counter the seat does not control counts at the mean strength of what its city has left.
The probabilities are the engine's (``combat.battle_win_probability`` over the rounds of
``queries.location_rounds``).
"""

from __future__ import annotations

from typing import Any

from ..analysis.battlefield import Battlefield
from ..analysis.odds import battle_win_probability
from ..analysis.params import HeuristicParams
from ..analysis.view import PlayerView
from ..engine import actions as A
from ..engine import data as D
from ..engine.game import Game
from ..engine.phases import BATTLE_PHASES, Phase
from ..engine.queries import ROUND_KIND_NAMES, doubled_city, location_rounds, odds_inputs
from .moves import UNIT, describe, location

_SIDES = [(side, t) for side in (A.ATTACK, A.DEFEND) for t in (D.HOPLITE, D.TRIREME)]


def _rounds(view: PlayerView, doubled: bool) -> list[tuple[int, int, Any, Any]]:
    """The location's rounds from the current one, strengths as the dice will see them
    (the current round doubled by Brasidas / Phormio when ``doubled``)."""
    slot = view.b_slot
    tile = view.location(slot)
    counts = [view.side_count(slot, side, t) for side, t in _SIDES]
    strengths = [view.side_strength(slot, side, t) for side, t in _SIDES]
    if doubled:
        t = tile.rounds[view.b_round]
        home = doubled_city(t)
        for side in (A.ATTACK, A.DEFEND):
            strengths[side * 2 + t] += view.known_city_strength(slot, side, home, t)
    return location_rounds(tile, counts, strengths, view.b_round)


def _chance(view: PlayerView, tokens: tuple[int, int], doubled: bool) -> float:
    rounds = odds_inputs(_rounds(view, doubled))
    return battle_win_probability(list(rounds), tokens[0], tokens[1])


def battle_odds(game: Game, seat: int) -> dict[str, Any] | None:
    """The battle being fought, its rounds and the attack's chance, and for the seat to
    decide the chance after each of his choices; None outside a battle."""
    if game.phase not in BATTLE_PHASES or game.b_round < 0:
        return None
    view = PlayerView(game, seat)
    tokens = (int(view.b_tokens[0]), int(view.b_tokens[1]))
    rounds = [
        {"unit": UNIT[t], "kind": ROUND_KIND_NAMES[kind], "attack": round(a), "defence": round(d)}
        for t, kind, a, d in _rounds(view, bool(view.b_double))
    ]
    out: dict[str, Any] = {
        "location": location(game, view.b_slot),
        "slot": int(view.b_slot),
        "rounds": rounds,
        "tokens": list(tokens),
        "doubled": bool(view.b_double),
        "attack_wins": _chance(view, tokens, bool(view.b_double)),
        "options": [],
    }
    if game.phase == Phase.BATTLE_SPECIAL and game.current == seat:
        for action in game.legal_actions():
            p = out["attack_wins"]
            if action == A.BATTLE_DOUBLE:
                p = _chance(view, tokens, True)
            elif A.BATTLE_TOKEN <= action < A.BATTLE_TOKEN + 2:
                side = action - A.BATTLE_TOKEN
                p = _chance(view, (max(tokens[0], side == A.ATTACK),
                                   max(tokens[1], side == A.DEFEND)), bool(view.b_double))
            out["options"].append({"action": action, "words": " ".join(
                describe(game, action).path), "attack_wins": p})
    return out


def commit_forecast(game: Game, seat: int) -> list[dict[str, Any]]:
    """While forces are committed: for each attacked location, the attack's chance as the
    seat can estimate it now (his own counters exact, others at their expected strength)."""
    if game.phase not in (Phase.DEAD_POOL, Phase.COMMIT, Phase.PERMISSION):
        return []
    view = PlayerView(game, seat)
    field = Battlefield(view, HeuristicParams())
    out = []
    for slot in range(D.LOCATION_SLOTS):
        if view.loc_display[slot] < 0 or view.main[slot * 2] < 0:
            continue
        out.append({"slot": slot, "location": location(game, slot),
                    "attack_wins": field.attack_probability(slot)})
    return out
