"""While forces are committed, the chance of each attack as one seat can estimate it.

Computed from the seat's ``PlayerView`` (docs/rules.md F): the seat's own counters count
exactly, a face-down counter it does not control at the mean strength of what its city has
left; the probability is the engine's (``combat.battle_win_probability`` over the rounds of
``queries.location_rounds``, through the analysis ``Battlefield``). The exact odds before a
battle decision are ``render.narrate.battle_odds``.
"""

from __future__ import annotations

from typing import Any

from ..analysis.battlefield import Battlefield
from ..analysis.params import HeuristicParams
from ..analysis.view import PlayerView
from ..engine import data as D
from ..engine.game import Game
from ..engine.phases import Phase
from ..render.narrate import location


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
