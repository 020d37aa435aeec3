"""The league's one seat draw (``perikles_env/vector/seat_draw.py``) keeps the streams of
the draws it replaced: ``OpponentPool.sample`` and expert self-play's seats give, seed for
seed, what numpy's ``Generator.choice`` gave, and leave the generator in the same state.
(tests/native/test_vector_league.py replays the C++ vector env's draws through it.)"""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.single_agent import OpponentPool
from perikles_env.vector.seat_draw import cumulative, draw_seats, pick


def pools(count: int):
    """Random leagues: 1 to 9 specs, some weights 0, weights over ten orders of magnitude."""
    for trial in range(count):
        r = np.random.default_rng(trial)
        k = int(r.integers(1, 10))
        w = r.random(k) * (r.random(k) < 0.8) * 10 ** r.uniform(-5, 5)
        if w.sum() > 0:
            yield trial, [float(x) for x in w], [0.0, 0.3, 1.0][trial % 3], int(r.integers(1, 5))


def old_sample(pool: OpponentPool, rng: np.random.Generator, count: int) -> list[str]:
    """OpponentPool.sample as it was written before the declaration."""
    if len(pool.specs) == 1:
        return [pool.specs[0]] * count
    whole = pool.same_table > 0 and rng.random() < pool.same_table
    picks = rng.choice(len(pool.specs), size=1 if whole else count, p=pool.probabilities)
    specs = [pool.specs[int(i)] for i in picks]
    return specs * count if whole else specs


def test_the_pool_draws_what_numpy_s_choice_drew() -> None:
    checked = 0
    for trial, weights, share, count in pools(1500):
        specs = tuple(f"heuristic:noise={k / 100}" for k in range(len(weights)))
        pool = OpponentPool(specs, tuple(weights), share)
        a, b = np.random.default_rng(trial + 7), np.random.default_rng(trial + 7)
        for _ in range(3):
            assert pool.sample(a, count) == old_sample(pool, b, count)
        assert a.random() == b.random()  # the same number of draws
        checked += 1
    assert checked > 1000


def test_expert_self_play_seats_are_numpy_s_choice() -> None:
    """SelfPlay._table drew ``rng.choice(len(keys), size=n, p=weights / sum)``."""
    for trial, weights, _, _ in pools(500):
        w = np.asarray(weights)
        for n in (3, 4, 5):
            a, b = np.random.default_rng(trial), np.random.default_rng(trial)
            old = [int(i) for i in a.choice(len(w), size=n, p=w / w.sum())]
            assert draw_seats(b.random, cumulative(w), 0.0, n) == old
            assert a.random() == b.random()


def test_the_draw_never_picks_a_zero_weight_and_covers_the_rest() -> None:
    cdf = cumulative([0.0, 1.0, 0.0, 3.0, 0.0])
    assert cdf[-1] == 1.0
    picks = {pick(u, cdf) for u in np.linspace(0, 1, 1001, endpoint=False)}
    assert picks == {1, 3}
    assert pick(0.0, cdf) == 1 and pick(0.25, cdf) == 3 and pick(np.nextafter(1.0, 0.0), cdf) == 3


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_a_whole_table_game_draws_one_spec_for_every_seat(share) -> None:
    cdf = cumulative([1.0, 1.0, 1.0])
    stream = iter([0.5, 0.1, 0.5, 0.9, 0.2])
    seats = draw_seats(lambda k: np.array([next(stream) for _ in range(k)]), cdf, share, 3)
    assert seats == ([0, 0, 0] if share else [1, 0, 1])
