"""The C++ search core (native/players/search.hpp): its selection rules against Python references,
the leaves it writes, and its refusals of bad input (a typed error, nothing changed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.native.helpers import require_native

native = require_native()
X = native.extension

from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game  # noqa: E402
from perikles_env.vector.encoder import encode_with_features  # noqa: E402
from tests.agents.search_games import game_at  # noqa: E402

PARAMS = dict(
    sims=8,
    c_puct=1.25,
    fpu=0.2,
    gumbel_m=4,
    gumbel_scale=1.0,
    c_visit=50.0,
    c_scale=0.1,
    q_rescale=True,
    leaves_per_search=1,
    heuristic_opponents=False,
    rollout_mix=0.0,
)


def puct_reference(prior, visits, value_sum, parent_q, c, fpu):
    total = sum(prior)
    root = math.sqrt(max(1, sum(visits)))
    scores = [
        (w / n if n else parent_q - fpu) + c * (p / total) * root / (1 + n)
        for p, n, w in zip(prior, visits, value_sum, strict=True)
    ]
    return scores.index(max(scores))


def considered_reference(m, sims):  # mctx get_sequence_of_considered_visits
    if m <= 1:
        return list(range(sims))
    log2max = math.ceil(math.log2(m))
    out, visits, num = [], [0] * m, m
    while len(out) < sims:
        extra = max(1, int(sims / (log2max * num)))
        for _ in range(extra):
            out.extend(visits[:num])
            for i in range(num):
                visits[i] += 1
        num = max(2, num // 2)
    return out[:sims]


def buffers(search, rows):
    return (np.zeros((rows, search.obs_size), np.float32), np.zeros((rows, NUM_ACTIONS), np.bool_))


def test_puct_pick_on_a_tiny_example() -> None:
    prior, visits, value_sum = [5.0, 3.0, 2.0], [10, 2, 0], [6.0, 1.6, 0.0]
    # Q 0.6, 0.8, unvisited 0.65 - fpu; U = 1.25 * p * sqrt(12) / (1 + n), p renormalised
    # scores 0.797, 1.233, 0.45 + 0.866 = 1.316: the unvisited child
    assert X.puct_pick(prior, visits, value_sum, 0.65, 1.25, 0.2) == 2
    # a larger first-play reduction: 0.05 + 0.866 < 1.233
    assert X.puct_pick(prior, visits, value_sum, 0.65, 1.25, 0.6) == 1
    # no exploration: the best Q
    assert X.puct_pick(prior, visits, value_sum, 0.65, 0.0, 0.2) == 1
    # a tie goes to the lowest index
    assert X.puct_pick([1.0, 1.0], [0, 0], [0.0, 0.0], 0.5, 1.0, 0.0) == 0


def test_puct_pick_matches_the_reference() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(1, 9))
        prior = list(rng.random(k) + 0.01)
        visits = [int(v) for v in rng.integers(0, 5, k)]
        value_sum = [float(rng.random() * n) for n in visits]
        args = (prior, visits, value_sum, float(rng.random()), float(rng.random() * 3), 0.2)
        assert X.puct_pick(*args) == puct_reference(*args)


@pytest.mark.parametrize("m, sims", [(1, 5), (2, 7), (4, 8), (16, 64), (16, 10), (5, 100), (13, 3)])
def test_sequential_halving_schedule_matches_mctx(m: int, sims: int) -> None:
    assert X.considered_visits(m, sims) == considered_reference(m, sims)


def test_completed_q_mixes_unvisited_actions_and_rescales() -> None:
    prior, visits, q = [0.5, 0.25, 0.25], [2, 1, 0], [0.6, 0.9, 0.0]
    out = X.completed_q(prior, visits, q, 0.3, 50.0, 0.1)
    weighted = (0.5 * 0.6 + 0.25 * 0.9) / 0.75
    mixed = (0.3 + 3 * weighted) / 4
    completed = [0.6, 0.9, mixed]
    low, high = min(completed), max(completed)
    expected = [(50 + 2) * 0.1 * (c - low) / (high - low) for c in completed]
    assert out == pytest.approx(expected)
    raw = X.completed_q(prior, visits, q, 0.3, 50.0, 0.1, rescale=False)
    assert raw == pytest.approx([(50 + 2) * 0.1 * c for c in completed])


def test_leaves_are_the_observation_and_mask_of_the_player_to_act() -> None:
    g = game_at()
    s = X.Search(**PARAMS, features=[0, 1])
    s.start([g.core], [g.current], [9])
    obs, mask = buffers(s, 4)
    assert s.collect(obs, mask) == 1  # the root first, alone
    assert np.array_equal(obs[0], encode_with_features(g, g.current, ["battle", "actions"]))
    assert np.flatnonzero(mask[0]).tolist() == g.legal_actions()
    s.feed(np.zeros((1, NUM_ACTIONS), np.float32), np.full((1, 4), 0.25, np.float32))
    n = s.collect(obs, mask)
    assert n == 1 and mask[0].any()  # one leaf in flight per search by default
    plain = X.Search(**PARAMS, features=[])
    assert plain.obs_size == X.OBS_SIZE
    assert s.obs_size == X.OBS_SIZE + X.BATTLE_FEATURES_SIZE + X.ACTION_FEATURES_SIZE


def test_virtual_loss_lets_one_search_fill_a_batch() -> None:
    g = game_at()
    s = X.Search(**{**PARAMS, "leaves_per_search": 4, "sims": 16}, features=[])
    s.start([g.core], [g.current], [1])
    obs, mask = buffers(s, 8)
    assert s.collect(obs, mask) == 1
    s.feed(np.zeros((1, NUM_ACTIONS), np.float32), np.full((1, 4), 0.25, np.float32))
    assert s.collect(obs, mask) == 4
    assert s.pending == 4


@pytest.mark.parametrize(
    "change, message",
    [
        ({"sims": -1}, "sims"),
        ({"c_puct": -1.0}, "c_puct"),
        ({"fpu": math.nan}, "fpu"),
        ({"gumbel_m": 2000}, "gumbel_m"),
        ({"gumbel_scale": math.inf}, "gumbel_scale"),
        ({"leaves_per_search": 0}, "leaves_per_search"),
        ({"rollout_mix": -0.1}, "rollout_mix"),
        ({"rollout_mix": math.nan}, "rollout_mix"),
    ],
)
def test_bad_params_are_refused(change, message) -> None:
    with pytest.raises(ValueError, match=message):
        X.Search(**{**PARAMS, **change}, features=[])


def test_bad_features_and_roots_are_refused() -> None:
    with pytest.raises(ValueError, match="feature"):
        X.Search(**PARAMS, features=[7])
    with pytest.raises(ValueError, match="twice"):
        X.Search(**PARAMS, features=[1, 1])
    g = game_at()
    s = X.Search(**PARAMS, features=[])
    with pytest.raises(ValueError, match="seat to act"):
        s.start([g.core], [(g.current + 1) % 4], [0])
    with pytest.raises(ValueError, match="one player and one seed"):
        s.start([g.core], [g.current], [0, 1])
    over = new_game(GameConfig(num_players=3), seed=1, backend="native")
    over.random_playout(1)
    with pytest.raises(ValueError, match="over"):
        s.start([over.core], [0], [0])


def test_bad_buffers_are_refused_and_change_nothing() -> None:
    g = game_at()
    s = X.Search(**PARAMS, features=[0])
    s.start([g.core], [g.current], [5])
    obs, mask = buffers(s, 2)
    with pytest.raises(ValueError, match="obs"):
        s.collect(np.zeros((2, s.obs_size + 1), np.float32), mask)
    with pytest.raises(ValueError, match="mask"):
        s.collect(obs, np.zeros((2, 956), np.bool_))
    with pytest.raises(ValueError, match="rows"):
        s.collect(obs, np.zeros((3, NUM_ACTIONS), np.bool_))
    with pytest.raises(TypeError):
        s.collect(obs.astype(np.float64), mask)
    with pytest.raises(TypeError):
        s.collect(obs, mask.astype(np.int8))
    with pytest.raises(TypeError):
        s.collect(np.zeros((s.obs_size, 2), np.float32).T, mask)
    assert s.collect(obs, mask) == 1
    with pytest.raises(ValueError, match="feed"):
        s.collect(obs, mask)
    logits, values = np.zeros((1, NUM_ACTIONS), np.float32), np.full((1, 4), 0.25, np.float32)
    with pytest.raises(ValueError, match="one row per leaf"):
        s.feed(np.zeros((2, NUM_ACTIONS), np.float32), np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="not finite"):
        s.feed(logits, np.full((1, 4), math.nan, np.float32))
    bad = logits.copy()
    bad[0, g.legal_actions()[0]] = math.inf
    with pytest.raises(ValueError, match="not finite"):
        s.feed(bad, values)
    with pytest.raises(ValueError, match="one column per player"):
        s.feed(logits, np.zeros((1, 3), np.float32))
    results = [
        np.zeros(1, np.int32),
        np.zeros(1, np.int32),
        np.zeros((1, NUM_ACTIONS), np.float32),
        np.zeros((1, NUM_ACTIONS), np.int32),
        np.zeros((1, NUM_ACTIONS), np.float32),
        np.zeros((1, 5), np.float32),
    ]
    with pytest.raises(ValueError, match="not finished"):
        s.results(*results)
    s.feed(logits, values)  # the refused calls changed nothing: the search goes on
    while n := s.collect(obs, mask):
        s.feed(np.zeros((n, NUM_ACTIONS), np.float32), np.full((n, 4), 0.25, np.float32))
    with pytest.raises(ValueError, match="values"):
        s.results(*results[:5], np.zeros((1, 4), np.float32))
    s.results(*results)
    assert results[1][0] == PARAMS["sims"] and results[3].sum() == PARAMS["sims"]
    assert results[0][0] in g.legal_actions()
