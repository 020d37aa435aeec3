"""Optional battle-odds features for learned policies: the war arithmetic a flat network
struggles to derive from counts, computed from what the observer may know.

Why: a [128, 128] MLP over the raw observation learns the politics but hardly the war
(docs/results.md, "VP by source"): whether a commit pays depends on the exact odds of
C.5-C.6 over the location's rounds, which the network would have to rediscover from box
counts. These features hand it that arithmetic, per location slot (``FEATURES``):

* ``open``: the location is still to be fought this turn;
* ``p_attack``: probability that the attacking side takes the location (C.2-C.8 exact
  odds on the expected strengths; hidden counters at their public mean strength, F);
* ``value`` / ``edge``: the observer's expected VP from the slot's outcome (tile VP to the
  winning main player, statue VP lost with a defeat, A.2, the unattacked-defence bonus,
  C.2) and that value minus the mean of the other players' (both / 7);
* ``gain[side][type][n]``: how ``edge`` changes if the observer adds ``n`` = 1 or 2 of his
  own counters of that type (his hand's mean strength) to that side, becoming its main
  player where there is none, with the other side's likely reinforcement counted as the
  heuristic counts it (``Battlefield.reinforcement``). Zero where he holds no such counter,
  where the location has no round of that type (C.3), or where none of his cities may
  join that side (B.7.6; a permission still to ask counts as may).

All values are clipped to [-1, 1]. Everything goes through ``PlayerView``: other players'
face-down strengths, special tiles and deck orders never enter (tested by perturbing
hidden state). Legality of a placement is the action mask's job, not these features'.
"""

from __future__ import annotations

import numpy as np

from ..engine import data as D
from ..engine.game import Game
from ..engine.queries import placement_targets
from .battlefield import ATT, DEF, TYPES, Battlefield
from .params import HeuristicParams
from .view import PlayerView

FEATURES = ("open", "p_attack", "value", "edge") + tuple(
    f"gain_{s}_{t}_{n}" for s in ("att", "def") for t in ("H", "T") for n in (1, 2)
)
PER_SLOT = len(FEATURES)
SIZE = D.LOCATION_SLOTS * PER_SLOT
_VP = 7.0  # the largest location VP: keeps the values near [-1, 1]
_PARAMS = HeuristicParams()


def battle_features(game: Game, player: int) -> np.ndarray:
    """``SIZE`` floats, slot-major in ``FEATURES`` order, for ``player``'s knowledge."""
    out = np.zeros(SIZE, dtype=np.float32)
    if game.is_terminal:
        return out
    view = PlayerView(game, player)
    bf = Battlefield(view, _PARAMS)
    probes = _probe_strengths(view)
    cities = [x for x in range(D.NUM_MILITARY_CITIES) if view.controlled >> x & 1]
    # Sides any of the observer's cities may join (B.7.6; a permission to ask counts as may).
    open_sides = {(s, d) for x in cities for s, d, _ in placement_targets(view, player, x)}
    for slot in range(D.LOCATION_SLOTS):
        if view.loc_done[view.loc_display[slot]]:
            continue
        row = out[slot * PER_SLOT : (slot + 1) * PER_SLOT]
        row[0] = 1.0
        tile = view.location(slot)
        p_attack = bf.attack_probability(slot)
        row[1] = p_attack
        values = bf.values(slot, p_attack=p_attack)
        row[2] = values[player] / _VP
        row[3] = _edge(values, player) / _VP
        for side in (ATT, DEF):
            if (slot, side) not in open_sides:
                continue
            reinforce = bf.reinforcement(slot, side)
            before = _edge(bf.values(slot, reinforce), player)
            for t in TYPES:
                if not probes[t] or t not in tile.rounds:
                    continue
                for n in (1, 2):
                    trial = bf.copy()
                    trial.add(player, slot, side, t, n * probes[t], n)
                    gain = _edge(trial.values(slot, reinforce), player) - before
                    row[4 + (side * 2 + t) * 2 + n - 1] = gain / _VP  # gain_<side>_<type>_<n>
    return np.clip(out, -1.0, 1.0, out=out)


def _probe_strengths(view: PlayerView) -> tuple[float, float]:
    """Mean strength of the observer's own hand per type (0 if he holds none)."""
    out = []
    for t in TYPES:
        count = strength = 0
        for k in range(D.NUM_CLASSES):
            if view.my_pool[k] and D.CLASS_TYPE[k] == t:
                count += view.my_pool[k]
                strength += view.my_pool[k] * D.CLASS_STRENGTH[k]
        out.append(strength / count if count else 0.0)
    return out[0], out[1]


def _edge(values: list[float], player: int) -> float:
    others = [v for q, v in enumerate(values) if q != player]
    return values[player] - sum(others) / len(others)
