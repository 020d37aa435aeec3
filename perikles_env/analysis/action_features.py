"""Per-action features for learned policies: for every legal action of the observer, what
it would change, in VP, computed with the shared election and battle arithmetic.

Why: a flat network over the observation agreed with the heuristic on only 11-28 % of its
important held-out decisions (tile picks, proposals, force commits; docs/training.md):
the value of "take the tile in slot 3" or "defend slot 4 with this hoplite" is arithmetic
over cubes, candidates and odds that a network must otherwise learn id by id. Here each
legal action gets a short vector (``FEATURES``), and a shared scorer can compare actions by
their consequences (``ActionScoringPolicy`` in ``agents/ppo_policy.py``).

Per action id (``NUM_ACTIONS`` rows of ``FEATURES``, row-major; all zero for actions that
are not legal, or when the observer is not the one to act):

* ``politics`` / ``politics_own``: change of the election model's score
  (``analysis.politics.PoliticalModel``: projected leaderships, their statue and military
  value, cubes; the default personality's spite towards the others for the first, only
  the observer's own gain for the second) after the action: setup and Any City cubes, tile
  picks (with the best use of the tile's follow-up, ``tile_value``), proposals, Assassin
  targets, Perikles and Plague;
* ``war`` / ``war_own``: change of the battle model's value of the location
  (``analysis.battlefield.Battlefield``: exact C.5-C.6 odds on expected strengths, the
  side facing him reinforced as the heuristic expects) if the counter is placed there,
  relative to the others / his own; ``war_pair``: the same for two counters like it
  (one counter rarely decides a battle);
* ``cost``: what the action spends: the counter's strength / 7 for a placement, 1/7 (one
  cube, 1 VP) for spending a cube; ``cost_kept``: the counter's strength times how much
  it could still do if kept (his remaining commit steps / 3, at most 1): a counter
  placed now is not available for a later step (B.7.5), which matters less as the steps
  run out;
* ``permission``: the placement needs the owner's permission (B.7.8);
* ``scored``: 1 where this module computed the action's consequences (0: Alkibiades, the
  battle specials and the small decisions, which the policy's flat head learns alone).

VP values are divided by 7 (the largest location VP) and clipped to [-1, 1]. Everything
goes through ``PlayerView`` (docs/rules.md section F), legality through the game's legal
actions and the engine's ``placement_status``: hidden components never enter (tested by
perturbing them).
"""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..engine import data as D
from ..engine.game import Game
from ..engine.phases import Phase
from ..engine.queries import NEEDS_PERMISSION, placement_status
from .battlefield import Battlefield
from .params import HeuristicParams
from .politics import Layout, PoliticalModel, seat_of, tile_value
from .view import PlayerView

FEATURES = (
    "politics",
    "politics_own",
    "war",
    "war_own",
    "war_pair",
    "cost",
    "cost_kept",
    "permission",
    "scored",
)
PER_ACTION = len(FEATURES)
SIZE = A.NUM_ACTIONS * PER_ACTION
POLITICS, POLITICS_OWN, WAR, WAR_OWN, WAR_PAIR, COST, COST_KEPT, PERMISSION, SCORED = range(
    PER_ACTION
)
_VP = 7.0
_PARAMS = HeuristicParams()
_OWN = HeuristicParams(spite=0.0)
_POLITICAL_PHASES = frozenset(
    (
        Phase.SETUP_PLACE,
        Phase.INFLUENCE_PICK,
        Phase.ANY_CITY,
        Phase.CANDIDATE_TILE,
        Phase.ASSASSIN_TILE,
        Phase.POST_PICK_SPECIAL,
        Phase.PROPOSE,
    )
)


def action_features(game: Game, player: int) -> np.ndarray:
    """``SIZE`` floats: ``FEATURES`` for every action id, from ``player``'s knowledge."""
    out = np.zeros((A.NUM_ACTIONS, PER_ACTION), dtype=np.float32)
    if game.is_terminal or game.current != player:
        return out.reshape(-1)
    legal = game.legal_actions()
    view = PlayerView(game, player)
    if view.phase in _POLITICAL_PHASES:
        _political(view, legal, out)
    elif view.phase == Phase.COMMIT:
        _commit(view, legal, out)
    out[:, :PERMISSION] /= _VP  # the VP columns; ``permission`` and ``scored`` are flags
    return np.clip(out, -1.0, 1.0, out=out).reshape(-1)


def _political(view: PlayerView, legal: list[int], out: np.ndarray) -> None:
    models = (PoliticalModel(view, _PARAMS), PoliticalModel(view, _OWN))
    now = [m.score(view.cubes, view.cand) for m in models]
    for a in legal:
        kind, arg, arg2, _ = A.decode(a)
        if kind == "TAKE_TILE":
            scores = [tile_value(m, view, arg) for m in models]
        elif kind == "END_PICK":
            scores = now
        else:
            layout = _after(view, kind, arg, arg2)
            if layout is None:
                continue
            scores = [m.score(layout.cubes, layout.cand) for m in models]
        out[a, POLITICS] = scores[0] - now[0]
        out[a, POLITICS_OWN] = scores[1] - now[1]
        out[a, SCORED] = 1.0


def _after(view: PlayerView, kind: str, arg: int, arg2: int) -> Layout | None:
    """The cube layout after an influence action (the engine's effects, via ``Layout``),
    or None for actions this module does not model."""
    layout = Layout.of(view)
    if kind in ("SETUP_CUBE", "ANY_CITY"):
        layout.add(view.me, arg, 1)
    elif kind == "PROPOSE":
        layout.propose(arg, seat_of(view, arg2))
    elif kind == "ASSASSINATE":
        if arg2 < D.MAX_PLAYERS:
            victim = seat_of(view, arg2)
        else:
            victim = view.cand[arg * 2 + arg2 - A.ASSASSIN_ALPHA]
        layout.assassinate(arg, arg2, victim)
    elif kind == "PLAY_PERIKLES":
        layout.add(view.me, D.ATHENS, 2)  # D.1
    elif kind == "PLAY_PLAGUE":
        layout.plague(arg, view.n)
    else:
        return None
    return layout


def _commit(view: PlayerView, legal: list[int], out: np.ndarray) -> None:
    me = view.me
    later = min(1.0, view.steps_left(me) / 3)  # a counter kept back can still be used
    bf = Battlefield(view, _PARAMS)
    base: dict[tuple[int, int], tuple[object, list[float]]] = {}
    for a in legal:
        kind, klass, slot, side = A.decode(a)
        if kind == "PLACE":
            if (slot, side) not in base:
                reinforce = bf.reinforcement(slot, side)
                base[(slot, side)] = (reinforce, bf.values(slot, reinforce))
            reinforce, before = base[(slot, side)]
            trial = bf.copy()
            trial.place(me, klass, slot, side)
            after = trial.values(slot, reinforce)  # type: ignore[arg-type]
            out[a, WAR] = bf.relative(after) - bf.relative(before)
            out[a, WAR_OWN] = after[me] - before[me]
            trial.place(me, klass, slot, side)
            pair = trial.values(slot, reinforce)  # type: ignore[arg-type]
            out[a, WAR_PAIR] = bf.relative(pair) - bf.relative(before)
            out[a, COST] = D.CLASS_STRENGTH[klass]
            out[a, COST_KEPT] = D.CLASS_STRENGTH[klass] * later
            status = placement_status(view, me, D.CLASS_CITY[klass], slot, side)
            out[a, PERMISSION] = float(status == NEEDS_PERMISSION)
            out[a, SCORED] = 1.0
        elif kind == "SPEND_CUBE":
            out[a, COST] = 1.0
            out[a, SCORED] = 1.0
        elif kind == "END_STEP":
            out[a, SCORED] = 1.0
