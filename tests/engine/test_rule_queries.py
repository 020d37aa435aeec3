"""The rule queries (``engine.queries``, ``engine.information``) checked against what the
engine then actually does, over seeded random play for 3, 4 and 5 players, plus hand-built
cases for the B.7.6 main-player rule and the B.10 all-tie convention.

* placement status: for every counter, slot and side at every commit decision, the query
  (on the game and on the heuristic's ``PlayerView``) says LEGAL or NEEDS_PERMISSION
  exactly when the PLACE action is legal, and NEEDS_PERMISSION exactly when taking it asks
  the owner (phase PERMISSION);
* battle rounds: the rounds predicted from the counters revealed at each location (C.2)
  have the kinds (empty / automatic / dice) and CRT strengths of the rounds the engine then
  logs, Brasidas / Phormio doubling included;
* influence effects: every legal Plague play removes exactly ``plague_losses``; the
  heuristic's ``Layout`` simulation of every legal Plague, proposal and Assassin action
  ends with the cube layout the engine produces;
* information: ``unseen_counters`` equals the counters in hands and face-down boxes;
* end of game: winners, ranks, win shares and zero-sum win rewards agree with the scores.
"""

from __future__ import annotations

import pytest

from perikles_env.analysis.politics import Layout
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine import queries as Q
from perikles_env.engine.information import revealed_slot, unseen_counters
from perikles_env.engine.phases import BEFORE_ELECTIONS
from perikles_env.engine.rng import Rng
from tests.engine.builders import (
    klass,
    main_defender_allied_by_permission,
)

GAMES = 8  # per player count
# An action's effect on the cube layout is compared only while the elections (B.6), which
# would follow it automatically, are still ahead.
INFLUENCE_PHASES = BEFORE_ELECTIONS
CLASS_BY_NAME = {D.class_name(k): k for k in range(D.NUM_CLASSES)}
KIND_OF_EVENT = {"empty": Q.ROUND_EMPTY, "dice": Q.ROUND_DICE}


@pytest.fixture(autouse=True)
def python_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The queries are checked against the Python reference engine, whose states these
    tests also edit by hand (the C++ core's agreement with it is tested in tests/native)."""
    monkeypatch.setenv("PERIKLES_BACKEND", "python")


def play(n: int, seed: int, visit) -> Game:  # type: ignore[no-untyped-def]
    """A uniform random game; ``visit(g, legal)`` runs before every decision."""
    g = new_game(GameConfig(num_players=n), seed=seed)
    policy = Rng(7_000_000 + seed)
    while not g.is_terminal:
        legal = g.legal_actions()
        visit(g, legal)
        g.apply_action(legal[policy.randrange(len(legal))])
    return g


def check_placements(g: Game, legal: list[int]) -> None:
    if g.phase != Phase.COMMIT:
        return
    p = g.step_player
    reference = g if type(g) is Game else g.to_python()  # a rule helper of the Python engine
    placeable = reference._placeable_cities()
    view = PlayerView(g, p)
    for x in range(D.NUM_MILITARY_CITIES):  # the view answers like the game
        assert Q.placement_targets(view, p, x) == g.placement_targets(p, x)
    legal_set = set(legal)
    for k in D.EXISTING_CLASSES:
        x = D.CLASS_CITY[k]
        for slot in range(D.LOCATION_SLOTS):
            for side in (A.ATTACK, A.DEFEND):
                status = Q.class_placement_status(g, p, k, slot, side)
                action = A.place(k, slot, side)
                may = bool(g.pool[k]) and bool(placeable >> x & 1)
                assert (action in legal_set) == (may and status > 0), (k, slot, side, status)
                if action in legal_set:
                    h = g.clone()
                    h.apply_action(action)
                    asked = h.phase == Phase.PERMISSION and h.pending == [k, slot, side]
                    assert asked == (status == Q.NEEDS_PERMISSION)


def check_influence_effects(g: Game, legal: list[int]) -> None:
    for a in legal:
        if A.PLAY_PLAGUE <= a < A.PLAY_PLAGUE + D.NUM_CITIES:
            city = a - A.PLAY_PLAGUE
            losses = Q.plague_losses(g.cubes, g.cand, city, g.n)
            layout = Layout(g.cubes, g.cand, g.supply)
            layout.plague(city, g.n)
            h = g.clone()
            h.apply_action(a)
            if h.phase not in INFLUENCE_PHASES:
                continue
            for q in range(g.n):
                i = city * D.MAX_PLAYERS + q
                assert g.cubes[i] - h.cubes[i] == losses[q]
                assert h.supply[q] - g.supply[q] == losses[q]
            assert (layout.cubes, layout.cand, layout.supply) == (h.cubes, h.cand, h.supply)
        elif g.phase in (Phase.PROPOSE, Phase.CANDIDATE_TILE):
            city, offset = divmod(a - A.PROPOSE, D.MAX_PLAYERS)
            nominee = (g.current + offset) % g.n
            layout = Layout(g.cubes, g.cand, g.supply)
            assert (city, nominee) in layout.proposals(g.current, g.n)
            layout.propose(city, nominee)
            h = g.clone()
            h.apply_action(a)
            if h.phase in INFLUENCE_PHASES:
                assert (layout.cubes, layout.cand) == (h.cubes, h.cand)
        elif g.phase == Phase.ASSASSIN_TILE:
            city, target = divmod(a - A.ASSASSINATE, A.ASSASSIN_TARGETS)
            layout = Layout(g.cubes, g.cand, g.supply)
            code = (g.current + target) % g.n if target < D.MAX_PLAYERS else target
            (victim,) = [v for c, t, v in layout.removals(g.n) if (c, t) == (city, code)]
            layout.assassinate(city, code, victim)
            h = g.clone()
            h.apply_action(a)
            if h.phase in INFLUENCE_PHASES:
                assert (layout.cubes, layout.cand, layout.supply) == (h.cubes, h.cand, h.supply)
    if g.phase in (Phase.PROPOSE, Phase.CANDIDATE_TILE):
        assert len(legal) == len(Q.proposals(g.cubes, g.cand, g.current, g.n))
    if g.phase == Phase.ASSASSIN_TILE:
        assert len(legal) == len(Q.assassination_targets(g.cubes, g.cand, g.n, g.current))


def check_unseen(g: Game, legal: list[int]) -> None:
    revealed = revealed_slot(g)
    hidden = list(g.pool)
    for box in range(D.LOCATION_SLOTS * 4):
        if box // 4 != revealed:
            for k in range(D.NUM_CLASSES):
                hidden[k] += g.at[box * D.NUM_CLASSES + k]
    assert unseen_counters(g) == hidden


def check_battle_log(g: Game) -> int:
    """Compare every logged round with the rounds predicted at its location's reveal;
    returns the number of rounds compared."""
    compared = 0
    predicted: list[tuple[int, int, int, int]] = []
    revealed: list[list[object]] = []
    doubled = False
    for event in g.event_log:
        kind = event[0]
        if kind == "battle":
            _, slot, name, revealed = event
            tile = D.LOCATION_TILES[D.LOCATION_IDS[name]]
            counts, strengths = [0] * 4, [0] * 4
            for side_name, _box, class_name, count in revealed:
                k = CLASS_BY_NAME[class_name]
                i = A.SIDE_NAMES.index(side_name) * 2 + D.CLASS_TYPE[k]
                counts[i] += count
                strengths[i] += count * D.CLASS_STRENGTH[k]
            predicted = Q.location_rounds(tile, counts, strengths)
        elif kind == "special" and len(event) == 4:  # Brasidas / Phormio on this round
            doubled = True
        elif kind == "dice_round":
            _, _slot, type_name, attack, defence = event[:5]
            t = D.UNIT_TYPE_NAMES.index(type_name)
            (round_,) = [r for r in predicted if r[0] == t]
            extra = [0, 0]
            if doubled:
                for side_name, _box, class_name, count in revealed:
                    k = CLASS_BY_NAME[class_name]
                    if D.CLASS_TYPE[k] == t and D.CLASS_CITY[k] == Q.doubled_city(t):
                        extra[A.SIDE_NAMES.index(side_name)] += count * D.CLASS_STRENGTH[k]
            assert (attack, defence) == (round_[2] + extra[0], round_[3] + extra[1]), event
        elif kind == "round":
            t = D.UNIT_TYPE_NAMES.index(event[2])
            (round_,) = [r for r in predicted if r[0] == t]
            if event[3] == "empty":
                expected = Q.ROUND_EMPTY
            elif event[4] == "dice":
                expected = Q.ROUND_DICE
            else:
                expected = Q.ROUND_ATTACKER if event[3] == "attack" else Q.ROUND_DEFENDER
            assert round_[1] == expected, (event, predicted)
            doubled = False
            compared += 1
    return compared


def check_end(g: Game) -> None:
    scores = g.scores()
    keys = g.ranking_keys()
    assert [k[0] for k in keys] == scores
    winners = g.winners()
    assert all(scores[p] == max(scores) for p in winners)
    assert winners == Q.winners_of(keys)
    shares, rewards, ranks = g.win_shares(), g.win_rewards(), g.ranks()
    assert sum(shares) == pytest.approx(1.0)
    assert sum(rewards) == pytest.approx(0.0)
    for p in range(g.n):
        assert (shares[p] > 0) == (p in winners) == (ranks[p] == min(ranks))
        for q in range(g.n):
            if keys[p] > keys[q]:
                assert ranks[p] < ranks[q] and rewards[p] >= rewards[q]


@pytest.mark.parametrize("n", (3, 4, 5))
def test_rule_queries_match_the_engine_in_random_play(n: int) -> None:
    rounds = 0
    for seed in range(GAMES):

        def visit(g: Game, legal: list[int]) -> None:
            check_placements(g, legal)
            check_influence_effects(g, legal)
            check_unseen(g, legal)

        g = play(n, seed, visit)
        rounds += check_battle_log(g)
        check_end(g)
    assert rounds > GAMES * 5  # the battle check really ran


def test_heuristic_view_applies_the_main_player_rule() -> None:
    """B.7.6 [ENGINE]: a main defender emptied by Slave Revolt keeps his mark and may not
    attack the same location. The heuristic's former copy of the placement rule missed
    this; it now asks the engine query through its ``PlayerView`` and agrees."""
    g = main_defender_allied_by_permission()  # player 1 defends Mantinea (Argos)
    g.apply_action_checked(A.SLAVE_REVOLT + 1 + 0)  # takes his only counter there
    g.apply_action_checked(A.END_STEP)
    assert g.current_player == 1 and g.side_cities[0 * 2 + A.DEFEND] == 0
    view = PlayerView(g, 1)
    for state in (g, view):
        assert Q.placement_status(state, 1, D.CORINTH, 0, A.ATTACK) == Q.ILLEGAL
        assert Q.placement_status(state, 1, D.CORINTH, 1, A.ATTACK) == Q.LEGAL
    assert A.place(klass("corinth", "H", 2), 0, A.ATTACK) not in g.legal_actions()


@pytest.mark.parametrize(
    ("scores", "shares", "rewards", "ranks"),
    [
        ((7, 7, 7, 7), [0.25] * 4, [0.0] * 4, [2.5] * 4),  # all-way tie: a draw
        ((9, 9, 3, 1), [0.5, 0.5, 0, 0], [0.5, 0.5, -0.5, -0.5], [1.5, 1.5, 3, 4]),
        ((1, 9, 3, 3), [0, 1, 0, 0], [-1 / 3, 1, -1 / 3, -1 / 3], [4, 1, 2.5, 2.5]),
    ],
)
def test_b10_tie_convention(
    scores: tuple[int, ...], shares: list[float], rewards: list[float], ranks: list[float]
) -> None:
    """One convention everywhere (docs/rules.md B.10): k tied winners get a win share of
    1/k each and a zero-sum reward of +1/k, the others -1/(n-k); an all-way tie is a draw
    (share 1/n, reward 0); tied players share the mean of the places they span."""
    g = new_game(GameConfig(num_players=4), seed=0)
    g.cubes = [0] * len(g.cubes)
    g.statues = [0] * len(g.statues)
    g.loc_claim = [0] * len(g.loc_claim)
    g.cand = [-1] * len(g.cand)
    for p, s in enumerate(scores):
        g.cubes[p] = s
    assert g.win_shares() == pytest.approx(shares)
    assert g.win_rewards() == pytest.approx(rewards)
    assert g.ranks() == pytest.approx(ranks)
    # a location tile breaks the score tie (B.10), statues the next one
    g.loc_claim[D.LOCATION_IDS["cythera"]] = 1 << 3
    g.cubes[3] = max(scores) - D.LOCATION_TILES[D.LOCATION_IDS["cythera"]].vp
    assert g.winners() == [3]
