"""Value of a (determinised) game state for every player, for search leaves.

At the end of the game: the engine's win shares (``Game.win_shares``, B.10). Before that,
each player's expected final VP is estimated as his VP now (``Game.scores``) plus what the
current turn still promises him: before the elections, the leadership gains the election
model projects (statue and military value minus the cubes the winner loses; candidate
cubes go back to the supply), after them the statue each current leader will receive;
while battles are pending, the expected location outcomes of the battle model. The
estimates become win chances through a softmax with a temperature that shrinks as the game
nears its end.

Search calls this on determinised games only (``determinize`` output), whose hidden parts
are samples; the views built here read them like public information of that sample.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..engine import data as D
from ..engine.phases import BATTLE_PHASES, BEFORE_ELECTIONS
from ..engine.queries import cube_vp
from .battlefield import Battlefield
from .params import HeuristicParams
from .politics import PoliticalModel, expected_statue_value
from .view import PlayerView

if TYPE_CHECKING:
    from ..engine.game import Game

_NEUTRAL = HeuristicParams(spite=0.0)


def expected_vp(game: Game, viewer: int | None = None) -> list[float]:
    """Each player's VP now plus this turn's projected gains (see the module docstring),
    estimated with what ``viewer`` may know (default: the player to move)."""
    n = game.n
    out = [float(s) for s in game.scores()]
    if viewer is None:
        viewer = game.current if game.current >= 0 else 0
    view = PlayerView(game, viewer)
    if game.phase in BEFORE_ELECTIONS:
        model = PoliticalModel(view, _NEUTRAL)
        gains = model.gains(game.cubes, game.cand)
        for q in range(n):  # the cubes counted again by the gains
            out[q] += gains[q] - cube_vp(game.cubes, game.cand, q)
        return out
    for c in range(D.NUM_CITIES):
        q = game.leader[c]
        if q >= 0:
            out[q] += expected_statue_value(view, c)
    bf = Battlefield(view, _NEUTRAL)
    start = game.b_slot if game.phase in BATTLE_PHASES else 0
    for slot in range(max(start, 0), D.LOCATION_SLOTS):
        if game.loc_done[game.loc_display[slot]]:
            continue
        for q, v in enumerate(bf.values(slot)):
            out[q] += v
    return out


def temperature(game: Game) -> float:
    """Softmax temperature in VP: wide early (much can still change), narrow late."""
    return 3.0 + 3.0 * (D.NUM_TURNS - game.turn)


def leaf_values(game: Game) -> list[float]:
    """Win chance of every player: exact win shares at the end, else a softmax of
    ``expected_vp`` with ``temperature``."""
    if game.is_terminal:
        return game.win_shares()
    vp = expected_vp(game)
    tau = temperature(game)
    top = max(vp)
    weights = [math.exp((v - top) / tau) for v in vp]
    total = sum(weights)
    return [w / total for w in weights]
