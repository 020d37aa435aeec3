"""The C++ election side of the league (native/analysis/politics.hpp,
players/heuristic_influence.cpp, env/features_politics.cpp) against its Python reference
(analysis/politics.py, agents/heuristic/agent.py, analysis/action_features.py): the same
doubles for every score of every influence-phase decision (compared with ==), the same action
for the same tie-break seed, and byte-identical action-feature blocks for every seat.

Games run on the C++ core with a mix of heuristic and random moves (specials favoured, so
that Alkibiades, Plague and Perikles are played often), for 3, 4 and 5 players and several
personalities; each influence phase must be compared many times. Hand-built states cover
the rare paths: Alkibiades' pruned search, Plague with candidate cubes, the Assassin
removing a candidate.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pytest

from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.agents.tiebreak import tie_break
from perikles_env.analysis.action_features import (
    PER_ACTION,
    POLITICS,
    POLITICS_OWN,
    SCORED,
    action_features,
)
from perikles_env.analysis.params import HeuristicParams
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import GameConfig, Phase, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.determinize import determinize
from perikles_env.engine.phases import BEFORE_ELECTIONS
from tests.engine.builders import (
    clear_cubes,
    game_at_pick,
    influence_ids,
    seat_offset,
    set_candidate,
    set_cubes,
)
from tests.native.helpers import require_native, unvalidated_twin

native = require_native()
X = native.extension

# The heuristic phases of this side: setup, the influence phase and proposals (B.1-B.5).
INFLUENCE_PHASES = tuple(sorted(BEFORE_ELECTIONS))
_draw = random.Random(2025)
PERSONALITIES = (
    HeuristicParams(),
    HeuristicParams(aggression=1.5, caution=0.2),
    HeuristicParams(politics=1.8, aggression=0.2),
    HeuristicParams(spite=1.5),
    HeuristicParams(**{k: _draw.uniform(0.0, 2.0) for k in HeuristicParams.names()}),
)
SPECIALS = range(A.PLAY_PERIKLES, A.ALKIBIADES_DEST)  # Perikles, Plague, first Alkibiades cube


def params5(params: HeuristicParams) -> tuple[float, ...]:
    return tuple(getattr(params, k) for k in HeuristicParams.names())


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def compare_scores(game, params: HeuristicParams) -> list[float]:  # noqa: ANN001
    """The C++ scores of the player to act, asserted equal (==) to the Python scores."""
    player, legal = game.current, game.legal_actions()
    python = score_actions(params, PlayerView(game, player), legal)
    cpp = X.heuristic_scores(game.core, player, params5(params))
    assert cpp == python, (
        f"{game.phase.name} p{player}: "
        f"{[(a, x, y) for a, x, y in zip(legal, python, cpp, strict=True) if x != y][:5]}"
    )
    return cpp


def compare_features(game) -> int:  # noqa: ANN001
    """Every seat's action-feature block, byte for byte; returns the rows scored."""
    scored = 0
    for q in range(game.n):
        python = action_features(game, q)
        cpp = np.full(X.ACTION_FEATURES_SIZE, np.nan, dtype=np.float32)
        X.action_features(game.core, q, cpp)
        assert same_bytes(cpp, python), f"{game.phase.name} seat {q}: action features differ"
        rows = cpp.reshape(-1, PER_ACTION)
        if q != game.current:
            assert not rows.any(), "a seat not to act gets features"
        scored += int(rows[:, SCORED].sum())
    return scored


@dataclass
class Tally:
    scores: Counter = field(default_factory=Counter)  # decisions compared per phase
    features: Counter = field(default_factory=Counter)  # scored feature rows per phase
    decided: int = 0  # heuristic_decide checked against the Python tie-break
    specials_chosen: int = 0  # picks where the heuristic would play a special (score 1e6+)


def play(seeds: range, tally: Tally) -> None:
    """Seeded games on the C++ core; every influence decision compared (see module doc)."""
    for seed in seeds:
        params = PERSONALITIES[seed % len(PERSONALITIES)]
        game = new_game(GameConfig(num_players=3 + seed % 3), seed=seed, backend="native")
        rng = random.Random(seed)
        while not game.is_terminal:
            legal = game.legal_actions()
            phase = game.phase
            if phase != Phase.COMMIT:  # the commit rows are the battle side's
                tally.features[phase.name] += compare_features(game)
            if phase not in INFLUENCE_PHASES:
                action = rng.choice(legal)
            else:
                scores = compare_scores(game, params)
                tally.scores[phase.name] += 1
                tally.specials_chosen += phase == Phase.INFLUENCE_PICK and max(scores) > 1e5
                specials = [a for a in legal if a in SPECIALS]
                if specials and rng.random() < 0.35:
                    action = rng.choice(specials)
                elif rng.random() < 0.7 and len(legal) > 1:
                    tie_seed = rng.getrandbits(64)
                    action = X.heuristic_decide(game.core, game.current, params5(params), tie_seed)
                    assert action == legal[tie_break(scores, tie_seed, params.noise)]
                    tally.decided += 1
                else:
                    action = rng.choice(legal)
            game.apply_action(action)


def test_scores_and_features_match_python() -> None:
    tally = Tally()
    play(range(40), tally)
    for phase in INFLUENCE_PHASES:
        least = 15 if phase.name.startswith("ALKIBIADES") else 100
        assert tally.scores[phase.name] >= least, (phase.name, tally.scores)
    for phase in INFLUENCE_PHASES:
        if phase.name.startswith("ALKIBIADES"):
            assert tally.features[phase.name] == 0  # not a modelled phase (SCORED stays 0)
        else:
            assert tally.features[phase.name] >= 100, (phase.name, tally.features)
    assert tally.decided >= 1000 and tally.specials_chosen >= 10


@pytest.mark.slow
def test_scores_and_features_match_python_many_games() -> None:
    tally = Tally()
    play(range(80, 500), tally)
    for phase in INFLUENCE_PHASES:
        assert tally.scores[phase.name] >= 150, (phase.name, tally.scores)
    assert tally.specials_chosen >= 100


def test_hidden_information_changes_nothing() -> None:
    """The C++ scores and feature rows read only what the player may know (section F):
    resampling everything hidden from him (other specials, counter strengths, deck orders)
    leaves them unchanged, bit for bit."""
    compared = Counter()
    for seed in range(12):
        game = new_game(GameConfig(num_players=3 + seed % 3), seed=seed, backend="native")
        rng = random.Random(seed)
        while not game.is_terminal:
            p = game.current
            if game.phase in INFLUENCE_PHASES:
                other = determinize(game, p, rng)
                for params in (PERSONALITIES[0], PERSONALITIES[seed % len(PERSONALITIES)]):
                    assert X.heuristic_scores(other.core, p, params5(params)) == (
                        X.heuristic_scores(game.core, p, params5(params))
                    )
                blocks = [np.zeros(X.ACTION_FEATURES_SIZE, dtype=np.float32) for _ in range(2)]
                for g, out in zip((game, other), blocks, strict=True):
                    X.action_features(g.core, p, out)
                assert same_bytes(*blocks)
                compared[game.phase.name] += 1
                hidden = ("special", "influence_deck", "loc_deck", "pool")
                compared["hidden changed"] += any(
                    list(getattr(game, f)) != list(getattr(other, f)) for f in hidden
                )
            game.apply_action(rng.choice(game.legal_actions()))
    assert compared[Phase.INFLUENCE_PICK.name] >= 200 and len(compared) >= 8, compared
    assert compared["hidden changed"] >= 500, compared


# ---- hand-built states -------------------------------------------------------------------

ATHENS_ASSASSIN = influence_ids("athens", "assassin")[0]
ARGOS_PLAIN = influence_ids("argos", "plain")[0]
ANY = influence_ids("any", "any")[0]


def twin(game):  # noqa: ANN001
    """The C++ copy of a hand-built Python state (the builders leave the tile display
    short, which validation refuses; the rules read here do not care)."""
    return unvalidated_twin(game)


def spread_cubes(game, seed: int) -> None:  # noqa: ANN001
    """Uneven main areas: 0..4 cubes per player and city."""
    rng = random.Random(seed)
    clear_cubes(game)
    for city in D.CITY_NAMES[: D.NUM_CITIES]:
        for p in range(game.n):
            set_cubes(game, city, p, rng.randrange(5))


def test_alkibiades_pruned_search() -> None:
    """With many movable cubes, only the pruned first cubes (his best 3 and the best 5
    overall) get a gain after the tile; the second cube and destination phases follow."""
    game = game_at_pick(n=5, first=0, display=[ARGOS_PLAIN], specials={0: D.ALKIBIADES})
    spread_cubes(game, 7)
    set_candidate(game, "corinth", "alpha", 2)
    game.apply_action_checked(A.TAKE_TILE)
    assert game.phase == Phase.POST_PICK_SPECIAL
    cpp = twin(game)
    scores = compare_scores(cpp, PERSONALITIES[0])
    legal = cpp.legal_actions()
    first = [
        s for a, s in zip(legal, scores, strict=True) if A.ALKIBIADES_CUBE <= a < A.ALKIBIADES_DEST
    ]
    assert len(first) > 15
    assert 5 <= sum(s != -1e6 for s in first) <= 8
    compare_features(cpp)
    best = legal[
        max(range(len(legal)), key=lambda i: scores[i] if legal[i] != A.END_PICK else -1e9)
    ]
    game.apply_action_checked(best)
    assert game.phase == Phase.ALKIBIADES_CUBE
    for params in PERSONALITIES:
        compare_scores(twin(game), params)
    game.apply_action_checked(game.legal_actions()[0])
    assert game.phase == Phase.ALKIBIADES_DEST
    for params in PERSONALITIES:
        scores = compare_scores(twin(game), params)
        assert all(s > -1e9 for s in scores)


def test_plague_counts_candidate_cubes() -> None:
    """Plague (D.2, E19): the candidate cube counts towards the half lost, so the gains of
    the six Plague actions differ; both engines value them alike, before and after the tile."""
    game = game_at_pick(n=4, first=1, display=[ARGOS_PLAIN, ANY], specials={1: D.PLAGUE})
    spread_cubes(game, 3)
    set_candidate(game, "athens", "alpha", 0)
    set_candidate(game, "athens", "beta", 2)
    set_candidate(game, "sparta", "alpha", 1)
    for params in PERSONALITIES:
        scores = compare_scores(twin(game), params)
    features = action_features(twin(game), 1).reshape(-1, PER_ACTION)
    plague = features[A.PLAY_PLAGUE : A.PLAY_PLAGUE + D.NUM_CITIES]
    assert len(set(plague[:, POLITICS].tolist())) > 1 and plague[:, SCORED].all()
    compare_features(twin(game))
    game.apply_action_checked(A.TAKE_TILE + 1)  # the Any City tile
    assert game.phase == Phase.ANY_CITY
    compare_scores(twin(game), PERSONALITIES[2])
    compare_features(twin(game))
    game.apply_action_checked(A.ANY_CITY + D.ATHENS)
    assert game.phase == Phase.POST_PICK_SPECIAL
    scores = compare_scores(twin(game), PERSONALITIES[3])
    assert scores[game.legal_actions().index(A.END_PICK)] == 0.0
    compare_features(twin(game))


def test_assassin_of_a_candidate() -> None:
    """The Assassin may remove a candidate: a lone beta moves up to alpha (E16). Athens:
    p1 (alpha, 3 cubes) beats p0 (beta, 2 with the tile's cube); removing the alpha makes
    p0 the projected leader, which beats every other target for a player who values
    leadership and has spite; both engines agree on every target."""
    game = game_at_pick(n=3, first=0, display=[ATHENS_ASSASSIN])
    clear_cubes(game)
    set_cubes(game, "athens", 0, 1)
    set_cubes(game, "athens", 1, 3)
    set_cubes(game, "athens", 2, 1)
    set_cubes(game, "sparta", 2, 2)
    set_candidate(game, "athens", "alpha", 1)
    set_candidate(game, "athens", "beta", 0)
    game.apply_action_checked(A.TAKE_TILE)
    assert game.phase == Phase.ASSASSIN_TILE
    legal = game.legal_actions()
    alpha = A.assassinate(D.ATHENS, A.ASSASSIN_ALPHA)
    assert alpha in legal and A.assassinate(D.ATHENS, A.ASSASSIN_BETA) in legal
    for params in PERSONALITIES:
        scores = compare_scores(twin(game), params)
        if params.spite > 0 and params.politics >= 1.0:
            assert legal[scores.index(max(scores))] == alpha, params
    features = action_features(twin(game), 0).reshape(-1, PER_ACTION)
    assert features[alpha, POLITICS_OWN] > 0 and features[alpha, SCORED] == 1
    compare_features(twin(game))


def test_candidate_tile_and_proposals() -> None:
    """The Candidate tile's proposal (CANDIDATE_TILE) and phase 3's (PROPOSE): nominees by
    seat offset from the proposer, one slot already taken."""
    game = game_at_pick(n=4, first=2, display=[influence_ids("sparta", "candidate")[0]])
    spread_cubes(game, 5)
    set_candidate(game, "sparta", "alpha", 3)
    game.apply_action_checked(A.TAKE_TILE)
    assert game.phase == Phase.CANDIDATE_TILE and game.current == 2
    offsets = {seat_offset(game, q) for q in range(game.n)}
    assert offsets == set(range(game.n))
    for params in PERSONALITIES:
        compare_scores(twin(game), params)
    compare_features(twin(game))
