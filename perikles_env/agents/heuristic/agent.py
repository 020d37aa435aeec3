"""The rule-based heuristic player (docs/agents.md): one scoring rule per decision phase.

Every decision scores the legal options with the election model (``politics``) or the
battle model (``military``) and takes the best; exact ties are broken with the caller's rng.
The agent sees the game only through a ``PlayerView`` (docs/rules.md section F) and keeps no
state between decisions, so it is deterministic for a given view and rng.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ...analysis.battlefield import ATT, DEF, Battlefield
from ...analysis.odds import battle_win_probability
from ...analysis.params import HeuristicParams
from ...analysis.politics import Layout, PoliticalModel, seat_of, tile_value
from ...analysis.view import PlayerView
from ...engine import actions as A
from ...engine import data as D
from ...engine.phases import Phase
from ...engine.queries import doubled_city, location_rounds, odds_inputs
from ...engine.rng import Rng
from ..base import Agent, pick_best
from ..tiebreak import draw_seed, tie_break
from .commit import score_commit

if TYPE_CHECKING:
    from ...engine.interface import GameInterface

# Minimum gain (VP) before an influence special is spent, by turn: a tile kept has option value.
SPECIAL_HOLD = {1: 3.0, 2: 2.0, 3: 0.3}
# Minimum gain before a battle special or Slave Revolt is spent, by turn.
BATTLE_HOLD = {1: 1.2, 2: 0.8, 3: 0.1}


class HeuristicAgent(Agent):
    name = "heuristic"
    uses_state = True
    read_only = True

    def __init__(
        self, params: HeuristicParams | None = None, *, in_cpp: bool = True, **kwargs: float
    ) -> None:
        """``in_cpp``: let a game that has the C++ heuristic (the C++ core's) decide with it
        (the same choices, tests/native/test_heuristic_identity.py); False always runs this
        Python reference (benchmarks compare the two)."""
        self.params = params or HeuristicParams(**kwargs)
        self.in_cpp = in_cpp

    def describe(self) -> str:
        defaults = HeuristicParams()
        diff = [
            f"{k}={getattr(self.params, k):g}"
            for k in HeuristicParams.names()
            if getattr(self.params, k) != getattr(defaults, k)
        ]
        return self.name + (":" + ",".join(diff) if diff else "")

    def act_state(self, game: GameInterface, player: int, rng: np.random.Generator) -> int:
        """Where the game has the C++ heuristic (``native/players/heuristic.hpp``) it decides: the
        same scores and the same tie-breaking contract, so the same action for the same rng
        (its seed is drawn from ``rng`` only then)."""
        legal = game.legal_actions()  # the acting player's options: public + his own pool
        if len(legal) == 1:
            return legal[0]
        if self.in_cpp:
            choice = game.heuristic_decide(player, self.param_tuple, lambda: draw_seed(rng))
            if choice is not None:
                return choice
        return self.decide(PlayerView(game, player), legal, rng)

    def scores(self, game: GameInterface, player: int, legal: list[int]) -> list[float]:
        """``score_actions`` for ``player`` (to act) of ``game``: in C++ where it can."""
        if self.in_cpp:
            scores = game.heuristic_scores(player, self.param_tuple)
            if scores is not None:
                return scores
        return score_actions(self.params, PlayerView(game, player), legal)

    def playout(self, game: GameInterface, seed: int, horizon: int) -> int:
        """This heuristic plays every seat of ``game`` for ``horizon`` decisions with more
        than one legal action (-1: to the end), decision seeds from ``Rng(seed)``: one C++
        call where the game can, else the same moves in Python."""
        if self.in_cpp:
            made = game.heuristic_playout(self.param_tuple, seed, horizon)
            if made is not None:
                return made
        stream = Rng(seed)
        made = 0
        while made != horizon and not game.is_terminal:
            legal = game.legal_actions()
            if len(legal) == 1:
                game.apply_action(legal[0])
                continue
            scores = score_actions(self.params, PlayerView(game, game.current), legal)
            game.apply_action(legal[tie_break(scores, stream.next64(), self.params.noise)])
            made += 1
        return made

    @property
    def param_tuple(self) -> tuple[float, ...]:
        """The personality in ``HeuristicParams.names()`` order (the C++ player's Params)."""
        return tuple(getattr(self.params, k) for k in HeuristicParams.names())

    def decide(self, view: PlayerView, legal: list[int], rng: np.random.Generator) -> int:
        """Best legal action for the view's player (``view.me`` must be the one to act)."""
        if len(legal) == 1:
            return legal[0]
        scores = score_actions(self.params, view, legal)
        return legal[pick_best(scores, rng, self.params.noise)]


def score_actions(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    """The heuristic's score of each legal action (higher is better; used by search too)."""
    return _SCORERS[view.phase](params, view, legal)


# ---- influence phase (B.1, B.4, B.5, D.1-D.3) -------------------------------------------------


def _cube_scorer(first: int) -> Callable[[HeuristicParams, PlayerView, list[int]], list[float]]:
    """Scores of placing one own cube in city ``action - first`` (setup, Any City tile)."""

    def score(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
        model = PoliticalModel(view, params)
        out = []
        for a in legal:
            layout = Layout.of(view)
            layout.add(view.me, a - first, 1)
            out.append(model.score(layout.cubes, layout.cand))
        return out

    return score


_score_setup = _cube_scorer(A.SETUP_CUBE)
_score_any_city = _cube_scorer(A.ANY_CITY)


def _special_gains(
    params: HeuristicParams, view: PlayerView, legal: list[int], model: PoliticalModel
) -> dict[int, float]:
    """Gain (VP, relative) of each influence-special action, net of the value of holding."""
    now = model.score(view.cubes, view.cand)
    hold = SPECIAL_HOLD[view.turn]
    gains: dict[int, float] = {}
    alki_first = [a for a in legal if A.ALKIBIADES_CUBE <= a < A.ALKIBIADES_DEST]
    for a in legal:
        if a == A.PLAY_PERIKLES:
            layout = Layout.of(view)
            layout.add(view.me, D.ATHENS, 2)
            gains[a] = model.score(layout.cubes, layout.cand) - now  # always worth it (D.1)
        elif A.PLAY_PLAGUE <= a < A.PLAY_PLAGUE + D.NUM_CITIES:
            layout = Layout.of(view)
            layout.plague(a - A.PLAY_PLAGUE, view.n)
            gains[a] = model.score(layout.cubes, layout.cand) - now - hold
    if alki_first:
        for a, value in _alkibiades_first(view, model, alki_first).items():
            gains[a] = value - now - hold
    return gains


def _score_pick(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    model = PoliticalModel(view, params)
    gains = _special_gains(params, view, legal, model)
    play = max(gains.values(), default=-1.0)
    out = []
    for a in legal:
        if A.TAKE_TILE <= a < A.TAKE_TILE + D.INFLUENCE_DISPLAY_SIZE:
            out.append(tile_value(model, view, a - A.TAKE_TILE))
        elif a in gains and play > 0:
            out.append(1e6 + gains[a])
        else:
            out.append(-1e6)
    return out


def _score_post_pick(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    model = PoliticalModel(view, params)
    gains = _special_gains(params, view, legal, model)
    return [0.0 if a == A.END_PICK else gains.get(a, -1e6) for a in legal]


def _alkibiades_first(
    view: PlayerView, model: PoliticalModel, actions: list[int]
) -> dict[int, float]:
    """Best score reachable with each first Alkibiades cube (D.3), over a pruned search."""
    cubes = [_cube_of(view, a) for a in actions]
    base = Layout.of(view)
    single = []
    for c, q in cubes:
        trial = base.copy()
        trial.remove(q, c)
        single.append(model.score(trial.cubes, trial.cand))
    mine = sorted((i for i, (_, q) in enumerate(cubes) if q == view.me), key=lambda i: -single[i])[
        :3
    ]
    theirs = sorted(range(len(cubes)), key=lambda i: -single[i])[:5]
    keep = sorted(set(mine) | set(theirs))
    out: dict[int, float] = {}
    for i in keep:
        best = None
        for j in keep:
            for dest in range(D.NUM_CITIES):
                s = _alkibiades_score(view, model, cubes[i], cubes[j], dest)
                if s is not None and (best is None or s > best):
                    best = s
        if best is not None:
            out[actions[i]] = best
    return out


def _cube_of(view: PlayerView, action: int) -> tuple[int, int]:
    city, offset = divmod(action - A.ALKIBIADES_CUBE, D.MAX_PLAYERS)
    return city, seat_of(view, offset)


def _alkibiades_score(
    view: PlayerView,
    model: PoliticalModel,
    first: tuple[int, int],
    second: tuple[int, int],
    dest: int,
) -> float | None:
    if dest in (first[0], second[0]):
        return None
    cubes = view.cubes[:]
    for c, q in (first, second):
        if cubes[D.city_player_index(c, q)] <= 0:
            return None
        cubes[D.city_player_index(c, q)] -= 1
        cubes[D.city_player_index(dest, q)] += 1
    return model.score(cubes, view.cand)


def _score_alki_cube(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    model = PoliticalModel(view, params)
    first = (view.alki[0], view.alki[1])
    out = []
    for a in legal:
        second = _cube_of(view, a)
        scores = [_alkibiades_score(view, model, first, second, d) for d in range(D.NUM_CITIES)]
        out.append(max((s for s in scores if s is not None), default=-1e9))
    return out


def _score_alki_dest(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    model = PoliticalModel(view, params)
    first, second = (view.alki[0], view.alki[1]), (view.alki[3], view.alki[4])
    out = []
    for a in legal:
        s = _alkibiades_score(view, model, first, second, a - A.ALKIBIADES_DEST)
        out.append(-1e9 if s is None else s)
    return out


def _score_propose(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    model = PoliticalModel(view, params)
    out = []
    for a in legal:
        city, offset = divmod(a - A.PROPOSE, D.MAX_PLAYERS)
        layout = Layout.of(view)
        layout.propose(city, seat_of(view, offset))
        out.append(model.score(layout.cubes, layout.cand))
    return out


def _score_assassin(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    model = PoliticalModel(view, params)
    out = []
    for a in legal:
        city, target = divmod(a - A.ASSASSINATE, A.ASSASSIN_TARGETS)
        if target < D.MAX_PLAYERS:
            victim = seat_of(view, target)
        else:
            victim = view.cand[city * 2 + target - A.ASSASSIN_ALPHA]
        layout = Layout.of(view)
        layout.assassinate(city, target, victim)
        out.append(model.score(layout.cubes, layout.cand))
    return out


# ---- phase 5 (B.7) ------------------------------------------------------------------------------


def _score_sparta(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    """Name himself: the first commit step claims the main boxes (B.7.2, B.7.5)."""
    return [1.0 if a == A.SPARTA_FIRST else 0.0 for a in legal]


def _score_dead_pool(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    """The type whose lowest dead counter is strongest; ties go to the type the displayed
    locations fight with more (B.7.3)."""
    city = view.dp_queue[view.dp_index + 1]
    rounds = [0, 0]
    for slot in range(D.LOCATION_SLOTS):
        for t in view.location(slot).rounds:
            rounds[t] += 1
    out = []
    for a in legal:
        t = a - A.DEAD_POOL
        lowest = next((D.CLASS_STRENGTH[k] for k in D.CLASSES_OF[city][t] if view.dead[k]), 0)
        out.append(lowest + 0.01 * rounds[t])
    return out


def _score_permission(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    """Grant when the requester would only join an existing main defender, or when the
    location is attacked and the player (the owner city's leader, who gets its statue this
    turn) can no longer defend it himself; otherwise deny: the requester would become main
    defender and take the tile or the bonus cubes (B.7.8, C.2)."""
    _, _, slot, _ = view.pending
    md, ma = view.main[slot * 2 + DEF], view.main[slot * 2 + ATT]
    grant = md >= 0
    if md < 0:
        rounds = view.location(slot).rounds
        can_defend = view.steps_left(view.me) > 0 and any(
            view.my_pool[k]
            for c in range(D.NUM_CITIES)
            if view.leader[c] == view.me
            for t in rounds
            for k in D.CLASSES_OF[c][t]
        )
        grant = ma >= 0 and not can_defend
    return [1.0 if (a == A.GRANT) == grant else 0.0 for a in legal]


# ---- phase 6 (C, D.5-D.9) ------------------------------------------------------------------


def _battle_probability(view: PlayerView, tokens: tuple[int, int], doubled: bool) -> float:
    """P(attacker wins) from the current round on, with revealed (exact) strengths; the
    rounds are the engine's ``queries.location_rounds``."""
    slot = view.b_slot
    tile = view.location(slot)
    sides = [(side, t) for side in (ATT, DEF) for t in (D.HOPLITE, D.TRIREME)]
    counts = [view.side_count(slot, side, t) for side, t in sides]
    strengths = [view.side_strength(slot, side, t) for side, t in sides]
    if doubled:
        t = tile.rounds[view.b_round]
        home = doubled_city(t)
        strengths[ATT * 2 + t] += view.known_city_strength(slot, ATT, home, t)
        strengths[DEF * 2 + t] += view.known_city_strength(slot, DEF, home, t)
    rounds = odds_inputs(location_rounds(tile, counts, strengths, view.b_round))
    return battle_win_probability(list(rounds), tokens[0], tokens[1])


def _score_battle_special(
    params: HeuristicParams, view: PlayerView, legal: list[int]
) -> list[float]:
    """Play when the exact change in this location's value beats the tile's hold value."""
    bf = Battlefield(view, params)
    tokens = (view.b_tokens[0], view.b_tokens[1])
    hold = BATTLE_HOLD[view.turn]
    out = []
    for a in legal:
        if a == A.BATTLE_PASS:
            p = _battle_probability(view, tokens, view.b_double)
        elif a == A.BATTLE_DOUBLE:
            p = _battle_probability(view, tokens, True)
        else:
            side = a - A.BATTLE_TOKEN
            p = _battle_probability(
                view, (tokens[0] or side == ATT, tokens[1] or side == DEF), view.b_double
            )
        value = bf.relative(bf.values(view.b_slot, p_attack=p))
        out.append(value - (0.0 if a == A.BATTLE_PASS else hold))
    return out


def _score_casualty(params: HeuristicParams, view: PlayerView, legal: list[int]) -> list[float]:
    """Lose a Persian counter if possible (it returns to the shield, B.11), else one of the
    city with the most counters of that type (C.7)."""
    t = D.CLASS_TYPE[view.b_cas[0]]
    out = []
    for a in legal:
        x = a - A.CASUALTY
        out.append(
            100.0
            if x == D.PERSIA
            else float(sum(D.INITIAL_COUNTERS[k] for k in D.CLASSES_OF[x][t]))
        )
    return out


_SCORERS: dict[Phase, Callable[[HeuristicParams, PlayerView, list[int]], list[float]]] = {
    Phase.SETUP_PLACE: _score_setup,
    Phase.INFLUENCE_PICK: _score_pick,
    Phase.ALKIBIADES_CUBE: _score_alki_cube,
    Phase.ALKIBIADES_DEST: _score_alki_dest,
    Phase.ANY_CITY: _score_any_city,
    Phase.CANDIDATE_TILE: _score_propose,
    Phase.ASSASSIN_TILE: _score_assassin,
    Phase.POST_PICK_SPECIAL: _score_post_pick,
    Phase.PROPOSE: _score_propose,
    Phase.SPARTA_CHOICE: _score_sparta,
    Phase.DEAD_POOL: _score_dead_pool,
    Phase.COMMIT: score_commit,
    Phase.PERMISSION: _score_permission,
    Phase.BATTLE_SPECIAL: _score_battle_special,
    Phase.CASUALTY: _score_casualty,
}

__all__ = ["HeuristicAgent", "HeuristicParams", "score_actions"]
