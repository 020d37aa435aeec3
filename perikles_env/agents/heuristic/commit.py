"""The heuristic's commit step (B.7.5): which counter goes where, extra forces, Slave Revolt.

A placement is scored by the change in the location's value (``military.Battlefield``) for
the player, net of an opportunity cost per strength point that shrinks as his remaining
commit steps run out (unused counters go home at the end of the turn). One counter rarely
wins a battle alone, so while two placements remain in the step each location and side is
also scored for its best *pair* of counters, and the pair's first counter gets that score:
the second is then chosen on the next decision with the first already on the board.
Spending a cube (1 VP) pays when the best extra pair from that city gains more than it.
"""

from __future__ import annotations

from ...analysis.battlefield import ATT, DEF, Battlefield, Reinforcement
from ...analysis.params import HeuristicParams
from ...analysis.view import PlayerView
from ...engine import actions as A
from ...engine import data as D
from ...engine.queries import LEGAL, NEEDS_PERMISSION, placement_status

PLACE_THRESHOLD = 0.05
# Minimum gain before Slave Revolt is spent, by turn (the tile is once per game, D.4).
REVOLT_HOLD = {1: 1.2, 2: 0.8, 3: 0.1}


def opportunity_cost(params: HeuristicParams, view: PlayerView) -> float:
    """VP per strength point of keeping a counter for a later step (0 on the last step)."""
    later = view.steps_left(view.me)
    return 0.12 * (2.0 - params.aggression) * min(1.0, later / 3.0)


def grant_chance(view: PlayerView, slot: int) -> float:
    """How likely the owner's leader grants permission. Asking costs nothing (a denial only
    blocks asking again in this step, B.7.8), so this is a prior, shaped by the heuristic's
    own answer rule (``agent._score_permission``): likely when joining a main defender or
    when the owner is attacked and cannot defend; otherwise a fair chance, as not every
    owner guards his bonus."""
    if view.main[slot * 2 + DEF] >= 0:
        return 0.8
    tile = view.location(slot)
    owner = view.leader[tile.city]
    if owner < 0:
        return 0.0
    led = [c for c in range(D.NUM_CITIES) if view.leader[c] == owner]
    can_defend = view.steps_left(owner) and any(
        view.pool_count[c * 2 + t] for c in led for t in tile.rounds
    )
    return 0.5 if view.main[slot * 2 + ATT] >= 0 and not can_defend else 0.25


def place_args(action: int) -> tuple[int, int, int]:
    rest, side = divmod(action - A.PLACE, 2)
    klass, slot = divmod(rest, D.LOCATION_SLOTS)
    return klass, slot, side


_SHAPE = tuple(D.CLASS_TYPE[k] * 8 + D.CLASS_STRENGTH[k] for k in range(D.NUM_CLASSES))


class Gains:
    """Value change of trial placements at one location side, with cached baselines."""

    def __init__(self, bf: Battlefield, player: int) -> None:
        self.bf = bf
        self.player = player
        self.cache: dict[tuple[int, int], tuple[Reinforcement, float]] = {}
        self.memo: dict[tuple[int, int, tuple[int, ...]], float] = {}

    def _base(self, slot: int, side: int) -> tuple[Reinforcement, float]:
        key = (slot, side)
        if key not in self.cache:
            bf = self.bf
            r = bf.reinforcement(slot, side)
            self.cache[key] = (r, bf.relative(bf.values(slot, r)))
        return self.cache[key]

    def gain(self, klasses: tuple[int, ...], slot: int, side: int) -> float:
        # Only (type, strength) matters to the value, so equal counters share one result.
        key = (slot, side, tuple(sorted(_SHAPE[k] for k in klasses)))
        value = self.memo.get(key)
        if value is None:
            r, before = self._base(slot, side)
            trial = self.bf.copy()
            for k in klasses:
                trial.place(self.player, k, slot, side)
            value = self.memo[key] = trial.relative(trial.values(slot, r)) - before
        return value


def _room(view: PlayerView) -> int:
    """Placements still open in the current stage of the step (B.7.5 steps 3-4)."""
    if view.step_closed:
        return 0
    return 2 - (view.step_normal if view.step_spend < 0 else view.step_extra)


def _representatives(classes: list[int]) -> list[int]:
    """Weakest and strongest class of each type: enough to find good pairs."""
    out: list[int] = []
    for t in (D.HOPLITE, D.TRIREME):
        of_type = sorted((k for k in set(classes) if D.CLASS_TYPE[k] == t), key=_strength)
        if of_type:
            picks = {of_type[0], of_type[-1]}
            out += sorted(picks)
    return out


def _strength(k: int) -> int:
    return D.CLASS_STRENGTH[k]


def _best_pairs(
    view: PlayerView,
    gains: Gains,
    targets: dict[tuple[int, int], list[int]],
    cost: float,
) -> dict[tuple[int, int, int], float]:
    """Best pair score per (first class, slot, side) at each target."""
    out: dict[tuple[int, int, int], float] = {}
    for (slot, side), classes in targets.items():
        reps = _representatives(classes)
        factor = grant_chance(view, slot) if _needs_permission(view, classes, slot, side) else 1
        for i, ka in enumerate(reps):
            for kb in reps[i:]:
                if ka == kb and view.my_pool[ka] < 2:
                    continue
                value = gains.gain((ka, kb), slot, side) - cost * (_strength(ka) + _strength(kb))
                value *= factor
                for k in (ka, kb):
                    key = (k, slot, side)
                    if value > out.get(key, -1e9):
                        out[key] = value
    return out


def _needs_permission(view: PlayerView, classes: list[int], slot: int, side: int) -> bool:
    x = D.CLASS_CITY[classes[0]]
    return side == DEF and placement_status(view, view.me, x, slot, side) == NEEDS_PERMISSION


def score_commit(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    """Scores of the legal commit actions; END_STEP scores 0 (B.7.5)."""
    me = view.me
    bf = Battlefield(view, params)
    gains = Gains(bf, me)
    cost = opportunity_cost(params, view)
    out = [0.0] * len(legal)
    targets: dict[tuple[int, int], list[int]] = {}
    for i, a in enumerate(legal):
        if a < A.SPEND_CUBE:
            klass, slot, side = place_args(a)
            g = gains.gain((klass,), slot, side) - cost * _strength(klass)
            if placement_status(view, me, D.CLASS_CITY[klass], slot, side) == NEEDS_PERMISSION:
                g *= grant_chance(view, slot)
            out[i] = g - PLACE_THRESHOLD
            targets.setdefault((slot, side), []).append(klass)
        elif a < A.SLAVE_REVOLT:
            out[i] = _spend_value(params, view, gains, a - A.SPEND_CUBE, cost)
        elif a < A.END_STEP:
            out[i] = _slave_revolt_value(params, view, bf, a - A.SLAVE_REVOLT)
    if _room(view) >= 2 and targets:
        pairs = _best_pairs(view, gains, targets, cost)
        for i, a in enumerate(legal):
            if a < A.SPEND_CUBE:
                key = place_args(a)
                if key in pairs:
                    out[i] = max(out[i], pairs[key] - PLACE_THRESHOLD)
    return out


def _spend_value(
    params: HeuristicParams, view: PlayerView, gains: Gains, city: int, cost: float
) -> float:
    """Best extra pair (or single) from the spend city (Persia for a Persian leader), minus
    the cube's VP and a margin (B.7.5 step 4)."""
    me = view.me
    x = D.PERSIA if view.persian >> me & 1 else city
    classes = [k for k in D.CLASSES_OF_CITY[x] if view.my_pool[k]]
    if not classes:
        return -1e9
    targets: dict[tuple[int, int], list[int]] = {}
    best = 0.0
    for slot in range(D.LOCATION_SLOTS):
        hoplite_only = view.location(slot).order == D.ORDER_H
        for side in (ATT, DEF):
            if placement_status(view, me, x, slot, side) != LEGAL:
                continue
            usable = [k for k in classes if not (hoplite_only and D.CLASS_TYPE[k])]
            if usable:
                targets[(slot, side)] = usable
                for k in _representatives(usable):
                    best = max(best, gains.gain((k,), slot, side) - cost * _strength(k))
    pairs = _best_pairs(view, gains, targets, cost)
    best = max([best, *pairs.values()])
    return best - 1.0 - 0.3 * (1.0 - params.aggression / 2.0)


def _slave_revolt_value(
    params: HeuristicParams, view: PlayerView, bf: Battlefield, source: int
) -> float:
    """Value of sending one random Spartan hoplite home (D.4), minus the tile's hold value."""
    hold = REVOLT_HOLD[view.turn]
    mean = view.unknown_mean[D.SPARTA * 2 + D.HOPLITE]
    if source == 0:
        sparta = view.leader[D.SPARTA]
        if sparta == view.me or not view.steps_left(sparta):
            return -hold
        return 0.5 * mean * params.spite - hold
    slot = source - 1
    before = bf.relative(bf.values(slot))
    trial = bf.copy()
    for side in (ATT, DEF):
        n = view.city_count(slot, side, D.SPARTA, D.HOPLITE)
        if n:
            i = (slot * 2 + side) * 2 + D.HOPLITE
            trial.strength[i] -= view.known_city_strength(slot, side, D.SPARTA, D.HOPLITE) / n
            trial.count[i] -= 1
    return trial.relative(trial.values(slot)) - before - hold
