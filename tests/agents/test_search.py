"""Network-guided IS-MCTS (agents/search): the targets of hand-built trees, blindness to
hidden information, reproducibility, exact end-of-game values, budgets and refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perikles_env.agents.search import (
    EvaluationError,
    Search,
    SearchAgent,
    SearchParams,
    UniformEvaluator,
    search_agent,
)
from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game
from perikles_env.engine.backend import native_available
from perikles_env.errors import InvalidConfigError
from tests.agents.hidden import hidden_differs, perturb_hidden
from tests.agents.search_games import after, game_at

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")


class Scripted:
    """Answers evaluator call i with outputs[i] (batch 1) and records what it was shown."""

    features = ("battle", "actions")

    def __init__(self, num_players, outputs):
        self.num_players = num_players
        self.outputs = outputs
        self.masks: list[np.ndarray] = []

    def evaluate(self, obs, masks):
        assert len(obs) == 1
        self.masks.append(masks[0].copy())
        logits, values = self.outputs[len(self.masks) - 1]
        return logits[None, :], np.asarray(values, np.float32)[None, :]


class Hashing:
    """Logits and values that depend on every observation entry (fixed random weights),
    row by row so that a row's answer does not depend on the batch it came in."""

    features = ("battle", "actions")

    def __init__(self, num_players=4):
        self.num_players = num_players
        self.rng = np.random.default_rng(11)
        self.w: np.ndarray | None = None

    def evaluate(self, obs, masks):
        if self.w is None:
            self.w = self.rng.normal(size=(obs.shape[1], 4))
            self.a = self.rng.normal(size=(4, NUM_ACTIONS))
        h = np.tanh(np.stack([row.astype(np.float64) @ self.w for row in obs]))
        values = np.exp(h) / np.exp(h).sum(axis=1, keepdims=True)
        logits = np.stack([row @ self.a for row in h])
        return logits.astype(np.float32), values.astype(np.float32)


def rotate(relative, actor, n):
    out = np.zeros(n)
    for k in range(n):
        out[(actor + k) % n] = relative[k]
    return out


@pytest.mark.parametrize("rescale", [True, False])
def test_gumbel_targets_of_a_hand_built_tree(rescale) -> None:
    """The completed Q's σ transform, min-max rescaled (mctx's default) or of the win
    shares as they are (``q_rescale=false``: a small lead stays a small boost)."""
    g = game_at()
    n, player, legal = g.n, g.current, g.legal_actions()
    rng = np.random.default_rng(5)
    root_logits = np.zeros(NUM_ACTIONS, np.float32)
    root_logits[legal] = rng.normal(size=len(legal))
    root_values = [0.4, 0.3, 0.2, 0.1]
    leaf_values = [list(rng.dirichlet(np.ones(n))) for _ in range(3)]
    outputs = [(root_logits, root_values)] + [
        (np.zeros(NUM_ACTIONS, np.float32), v) for v in leaf_values
    ]
    ev = Scripted(n, outputs)
    params = SearchParams(sims=3, gumbel_m=3, gumbel_scale=0.0, batch=1, q_rescale=rescale)
    r = Search(ev, params).run([g], [player], [0])[0]

    order = sorted(legal, key=lambda a: -root_logits[a])[:3]  # visited best logit first
    children = [after(g, a) for a in order]
    assert not any(c.is_terminal for c in children)
    for mask, child in zip(ev.masks[1:], children, strict=True):  # each leaf: its actor's options
        assert np.flatnonzero(mask).tolist() == child.legal_actions()
    v0 = rotate(root_values, player, n)
    v = [rotate(lv, c.current, n) for lv, c in zip(leaf_values, children, strict=True)]
    assert r.values == pytest.approx((v0 + sum(v)) / 4, abs=1e-6)
    assert r.sims == 3 and r.visits[order].tolist() == [1, 1, 1] and r.visits.sum() == 3

    logit = root_logits[legal].astype(np.float64)
    prior = np.exp(logit - logit.max()) / np.exp(logit - logit.max()).sum()
    q = {a: vi[player] for a, vi in zip(order, v, strict=True)}
    p = {a: prior[legal.index(a)] for a in order}
    mixed = (v0[player] + 3 * sum(p[a] * q[a] for a in order) / sum(p.values())) / 4
    completed = np.array([q.get(a, mixed) for a in legal])
    if rescale:
        completed = (completed - completed.min()) / (completed.max() - completed.min())
    sigma = (50 + 1) * 0.1 * completed
    target = np.exp(logit + sigma - (logit + sigma).max())
    target /= target.sum()
    assert r.policy[legal] == pytest.approx(target, abs=1e-5)
    assert r.policy.sum() == pytest.approx(1.0)
    assert r.prior[legal] == pytest.approx(prior, abs=1e-6)
    assert r.action == max(order, key=lambda a: logit[legal.index(a)] + sigma[legal.index(a)])


@pytest.mark.parametrize("temp", [1.0, 3.0, 0.5])
def test_the_prior_is_the_softmax_of_the_logits_over_prior_temp(temp) -> None:
    """``prior_temp``: a sharp policy (one trained by PPO) flattened for the search's
    exploration; the evaluator's output itself is untouched."""
    g = game_at()
    legal = g.legal_actions()
    logits = np.zeros(NUM_ACTIONS, np.float32)
    logits[legal] = np.random.default_rng(2).normal(scale=3.0, size=len(legal))
    sent = logits.copy()
    ev = Scripted(g.n, [(sent, [0.25] * 4), (np.zeros(NUM_ACTIONS, np.float32), [0.25] * 4)])
    params = SearchParams(sims=1, gumbel_m=0, batch=1, prior_temp=temp)
    r = Search(ev, params).run([g], [g.current], [0])[0]
    scaled = logits[legal].astype(np.float64) / temp
    prior = np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()
    assert r.prior[legal] == pytest.approx(prior, abs=1e-6)
    np.testing.assert_array_equal(sent, logits)
    first = max(legal, key=lambda a: logits[a])  # PUCT's first visit: the highest prior
    assert r.visits[first] == 1 and r.visits.sum() == 1


def test_the_extreme_prior_temperatures_still_search() -> None:
    """The declared range's ends (1e-3, 1e3) keep logits / prior_temp finite: the search
    plays (a smaller temperature is refused; it used to make every move fail)."""
    g = game_at()
    legal = g.legal_actions()
    logits = np.zeros(NUM_ACTIONS, np.float32)
    logits[legal] = np.random.default_rng(2).normal(scale=30.0, size=len(legal))
    for temp in (1e-3, 1e3):
        ev = Scripted(g.n, [(logits, [0.25] * 4), (np.zeros(NUM_ACTIONS, np.float32), [0.25] * 4)])
        r = Search(ev, SearchParams(sims=1, batch=1, prior_temp=temp)).run([g], [g.current], [0])[0]
        assert r.action in legal and np.isfinite(r.prior).all()
        assert r.prior[legal].sum() == pytest.approx(1.0, abs=1e-5)


def test_puct_backs_up_every_seat_through_two_levels() -> None:
    g = game_at(seed=4)
    n, player, legal = g.n, g.current, g.legal_actions()
    first = after(g, legal[0])  # all priors equal: the lowest action id goes first
    actor = first.current
    v0 = [0.25] * n
    v1 = [0.0] * n
    v1[(player - actor) % n] = 1.0  # the root player wins: the second simulation returns
    v2 = [0.1, 0.2, 0.3, 0.4]
    zeros = np.zeros(NUM_ACTIONS, np.float32)
    ev = Scripted(n, [(zeros, v0), (zeros, v1), (zeros, v2)])
    r = Search(ev, SearchParams(sims=2, gumbel_m=0, batch=1)).run([g], [player], [1])[0]
    second = after(first, first.legal_actions()[0])
    assert np.flatnonzero(ev.masks[2]).tolist() == second.legal_actions()
    expected = rotate(v0, player, n) + rotate(v1, actor, n) + rotate(v2, second.current, n)
    assert r.values == pytest.approx(expected / 3, abs=1e-6)
    assert r.visits[legal[0]] == 2 and r.visits.sum() == 2
    assert r.action == legal[0] and r.policy[legal[0]] == 1.0


class ActorWins(UniformEvaluator):
    """Uniform logits; every leaf's value says its actor (the seat whose observation it is)
    takes the whole win."""

    def evaluate(self, obs, masks):
        logits, values = super().evaluate(obs, masks)
        values[:] = 0.0
        values[:, 0] = 1.0
        return logits, values


def test_heuristic_opponents_leave_only_the_players_own_decisions_as_leaves() -> None:
    """Other seats' decisions are played by the heuristic inside the simulation: every leaf is
    the searching player's decision, so an evaluator that says "the actor wins" gives him the
    whole root value; with every seat in the tree, other seats' leaves take a share."""
    for seed in (3, 5, 8):
        g = game_at(seed, 60)
        p = g.current
        modelled = Search(ActorWins(4), SearchParams(sims=16, opponents="heuristic"))
        r = modelled.run([g], [p], [seed])[0]
        assert r.values[p] == pytest.approx(1.0) and r.values.sum() == pytest.approx(1.0)
        tree = Search(ActorWins(4), SearchParams(sims=16)).run([g], [p], [seed])[0]
        assert tree.values[p] < 0.9


def test_rollout_mix_weights_a_heuristic_playout_against_the_value_head() -> None:
    """rollout_mix=1: a leaf's value is the playout's win shares alone (the evaluator's values
    change nothing); 0.5: half of each."""
    g = game_at(5, 120)
    p = g.current
    runs = {}
    for mix in (0.5, 1.0):
        for ev in (ActorWins(4), UniformEvaluator(4)):
            params = SearchParams(sims=12, gumbel_m=0, opponents="heuristic", rollout_mix=mix)
            runs[mix, type(ev).__name__] = Search(ev, params).run([g], [p], [2])[0]
    a, b = runs[1.0, "ActorWins"], runs[1.0, "UniformEvaluator"]
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)
    assert a.values.sum() == pytest.approx(1.0)  # every value a playout's exact win shares
    half = runs[0.5, "ActorWins"]
    assert half.values.sum() == pytest.approx(1.0) and half.values[p] >= 0.5 - 1e-6
    assert not np.array_equal(half.values, a.values)


@pytest.mark.parametrize(
    "options", [{}, {"opponents": "heuristic", "rollout_mix": 0.5, "gumbel_m": 0}]
)
def test_search_never_reads_hidden_information(options) -> None:
    """Changing what the searching player cannot know (decks, RNG, others' specials, unknown
    strengths) leaves every result the same for the same seed (the modelled opponents and
    the playouts play the player's samples, never the real game)."""
    agent_params = SearchParams(sims=24, batch=8, **options)
    changed = differs = 0
    for seed, decisions in [(3, 40), (5, 120), (8, 200)]:
        g = game_at(seed, decisions)
        p = g.current
        other = perturb_hidden(g, p, seed=seed)
        changed += hidden_differs(g, other)
        search = Search(Hashing(), agent_params)
        a, b, c = (search.run([x], [p], [s])[0] for x, s in ((g, 7), (other, 7), (g, 8)))
        for field in ("policy", "visits", "prior", "values"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
        assert a.action == b.action
        differs += not np.array_equal(a.policy, c.policy)  # yet the seed matters
    assert changed == 3 and differs >= 1


def test_a_seed_fixes_the_result_and_one_leaf_per_search_ignores_the_batch() -> None:
    g, h = game_at(3), game_at(6, 90)
    runs = []
    for batch in (1, 16):
        search = Search(Hashing(), SearchParams(sims=20, batch=batch))
        runs.append(search.run([g], [g.current], [42])[0])
        runs.append(search.run([h, g], [h.current, g.current], [1, 42])[1])  # beside another
    for r in runs[1:]:
        assert r.action == runs[0].action
        assert np.array_equal(r.policy, runs[0].policy) and np.array_equal(r.visits, runs[0].visits)
    # several leaves in flight (virtual loss): reproducible for one batch size
    params = SearchParams(sims=20, batch=8, leaves_per_search=4)
    x, y = (Search(Hashing(), params).run([g], [g.current], [42])[0] for _ in range(2))
    assert np.array_equal(x.policy, y.policy) and x.action == y.action


def test_exact_end_values_choose_the_winning_battle_special() -> None:
    """A battle special one decision before the end: playing it (947) wins in almost every
    sample, passing (946) far less often; a uniform network must still find it (PUCT's
    visit counts need more simulations than the Gumbel root to settle between two)."""
    g = new_game(GameConfig(num_players=4), seed=409, backend="native")
    rng = np.random.default_rng(409)
    for _ in range(396):
        legal = g.legal_actions()
        g.apply_action(legal[rng.integers(len(legal))])
    assert g.legal_actions() == [946, 947]
    share = {}
    for a in (946, 947):
        outcomes = [after(g.determinized(g.current, s, False), a) for s in range(40)]
        assert all(o.is_terminal for o in outcomes)
        share[a] = np.mean([o.win_shares()[g.current] for o in outcomes])
    assert share[947] > share[946] + 0.15
    for params in (SearchParams(sims=32), SearchParams(sims=128, gumbel_m=0)):
        r = Search(UniformEvaluator(4), params).run([g], [g.current], [3])[0]
        assert r.action == 947 and r.policy[947] > 0.5


def test_time_budget_stops_after_one_simulation() -> None:
    g = game_at()
    search = Search(UniformEvaluator(4), SearchParams(sims=5000, seconds=1e-6))
    r = search.run([g], [g.current], [0])[0]
    assert 1 <= r.sims < 5000 and r.visits.sum() == r.sims
    full = Search(UniformEvaluator(4), SearchParams(sims=30)).run([g], [g.current], [0])[0]
    assert full.sims == 30


def test_agent_plays_legal_games_on_either_engine() -> None:
    agent = search_agent(UniformEvaluator(), sims=4, batch=4)
    assert isinstance(agent, SearchAgent) and agent.describe() == "search:sims=4,batch=4"
    g = new_game(GameConfig(num_players=3), seed=2, backend="native")
    rng = np.random.default_rng(0)
    while not g.is_terminal:
        g.apply_action_checked(agent.act_state(g, g.current, rng))
    python = game_at(backend="python")
    native = game_at()
    a = agent.act_state(python, python.current, np.random.default_rng(9))
    b = agent.act_state(native, native.current, np.random.default_rng(9))
    assert a == b and a in native.legal_actions()
    games = [game_at(s) for s in (3, 4, 5)]
    actions = agent.act_batch(games, [x.current for x in games], np.random.default_rng(1))
    assert all(a in x.legal_actions() for a, x in zip(actions, games, strict=True))


def test_a_forced_root_needs_no_evaluation() -> None:
    g = new_game(GameConfig(num_players=4), seed=1, backend="native")
    while len(g.legal_actions()) != 1:
        g.apply_action(g.legal_actions()[0])
    ev = Scripted(4, [])
    r = Search(ev, SearchParams()).run([g], [g.current], [0])[0]
    assert r.action == g.legal_actions()[0] and r.policy[r.action] == 1.0 and r.sims == 0
    assert not ev.masks


@pytest.mark.parametrize(
    "options",
    [
        {"sims": -1},
        {"sims": 1.5},
        {"batch": 0},
        {"seconds": -1.0},
        {"c_puct": math.inf},
        {"fpu": math.nan},
        {"gumbel_m": True},
        {"leaves_per_search": 0},
        {"opponents": "random"},
        {"rollout_mix": 1.5},
        {"rollout_mix": "half"},
        {"prior_temp": 0},
        {"prior_temp": -1.0},
        {"prior_temp": math.inf},
        {"prior_temp": True},
        {"prior_temp": 1e-300},  # accepted once, and then every move failed
        {"prior_temp": 1e300},
        {"q_rescale": 1},
        {"q_rescale": "no"},
        {"bogus": 1},
    ],
)
def test_bad_params_are_refused(options) -> None:
    with pytest.raises(InvalidConfigError):
        search_agent(UniformEvaluator(), **options)


def test_bad_evaluators_are_refused() -> None:
    g = game_at()
    with pytest.raises(InvalidConfigError, match="feature"):
        Search(UniformEvaluator(features=("nope",)))

    class Wrong(UniformEvaluator):
        def __init__(self, shape=None, value=None):
            super().__init__(4)
            self.shape, self.value = shape, value

        def evaluate(self, obs, masks):
            logits, values = super().evaluate(obs, masks)
            if self.shape:
                logits = logits[:, : self.shape]
            if self.value is not None:
                values[:] = self.value
            return logits, values

    for bad in (Wrong(shape=10), Wrong(value=math.nan)):
        with pytest.raises(EvaluationError):
            Search(bad).run([g], [g.current], [0])
    with pytest.raises(Exception, match="seat to act"):
        Search(UniformEvaluator()).run([g], [(g.current + 1) % 4], [0])
