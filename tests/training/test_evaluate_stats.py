"""Evaluator statistics on small synthetic results (Wilson, ranks, shares, head-to-head,
ratings) and the job layout (seat rotations, common random numbers)."""

from __future__ import annotations

import math

import pytest

from perikles_env.evaluation.config import EvalConfig, expand_lineup
from perikles_env.evaluation.matchup_results import summarise_matchup
from perikles_env.evaluation.runner import GameRecord, game_seeds, seat_lineup
from perikles_env.evaluation.stats import (
    bootstrap_mean_ci,
    fractional_ranks,
    head_to_head,
    openskill_ratings,
    wilson_interval,
    win_shares,
)
from perikles_env.evaluation.tournament import build_jobs


def test_wilson_interval_known_values() -> None:
    # Reference values (Wilson 1927; e.g. statsmodels proportion_confint(method="wilson")).
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and high == pytest.approx(0.1611, abs=1e-4)
    low, high = wilson_interval(320, 400)
    assert low == pytest.approx(0.7580, abs=1e-4) and high == pytest.approx(0.8363, abs=1e-4)
    # Fractional successes (split ties) are allowed; out-of-range counts are not.
    assert wilson_interval(2.5, 5)[0] < 0.5 < wilson_interval(2.5, 5)[1]
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_fractional_ranks_share_tied_places() -> None:
    assert fractional_ranks([(50, 10, 2), (40, 0, 0), (60, 5, 1)]) == [2.0, 3.0, 1.0]
    # Two players tied for first share places 1 and 2; the B.10 tie-break keys decide first.
    assert fractional_ranks([(50, 4, 1), (50, 4, 1), (30, 0, 0), (50, 3, 9)]) == [
        1.5,
        1.5,
        4.0,
        3.0,
    ]
    assert fractional_ranks([(1,), (1,), (1,)]) == [2.0, 2.0, 2.0]


def test_win_shares_split_ties() -> None:
    assert win_shares([2], 4) == [0.0, 0.0, 1.0, 0.0]
    assert win_shares([0, 3], 4) == [0.5, 0.0, 0.0, 0.5]


def test_head_to_head_counts_every_seat_pair() -> None:
    games = [
        {"a": [1.0], "b": [2.0, 3.0]},  # a beats both b seats
        {"a": [3.0], "b": [1.0, 2.0]},  # both b seats beat a
        {"a": [1.5], "b": [1.5, 3.0]},  # one tie, one win
    ]
    table = head_to_head(games)
    assert table["a"]["b"] == pytest.approx((2 + 0 + 1.5) / 6)
    assert table["b"]["a"] == pytest.approx(1 - table["a"]["b"])


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [10, 12, 9, 14, 11, 13, 8, 12]
    ci = bootstrap_mean_ci(values, seed=3)
    assert ci == bootstrap_mean_ci(values, seed=3)
    assert ci[0] < sum(values) / len(values) < ci[1]
    assert math.isnan(bootstrap_mean_ci([], seed=0)[0])


def test_openskill_orders_a_dominant_agent_first() -> None:
    games = [(["strong", "weak", "weak"], [1, 2, 3])] * 30
    ratings = openskill_ratings(games)
    assert ratings["strong"]["mu"] > ratings["weak"]["mu"] + 5
    assert ratings["strong"]["ordinal"] == pytest.approx(
        ratings["strong"]["mu"] - 3 * ratings["strong"]["sigma"]
    )


def test_seat_rotations_cover_every_seat_on_the_same_seeds() -> None:
    config = EvalConfig(lineups=(("heuristic", "random", "random", "random"),), games=10, seed=5)
    jobs = build_jobs(config)
    assert len(jobs) == 12  # rounded up to whole rotations: 3 seeds x 4 rotations
    seeds = game_seeds(5, 3)
    for seed in seeds:
        mine = [j for j in jobs if j.seed == seed]
        assert sorted(j.rotation for j in mine) == [0, 1, 2, 3]
        seats_of_heuristic = {seat_lineup(j.lineup, j.rotation).index("heuristic") for j in mine}
        assert seats_of_heuristic == {0, 1, 2, 3}


def test_common_random_numbers_across_lineups_and_player_counts() -> None:
    lineups = tuple(expand_lineup(["heuristic", "random"], [3, 4, 5]))
    jobs = build_jobs(EvalConfig(lineups=lineups, games=15, seed=1))
    by_matchup: dict[int, set[int]] = {}
    for j in jobs:
        by_matchup.setdefault(j.matchup, set()).add(j.seed)
    assert by_matchup[0] == set(game_seeds(1, 5))
    assert by_matchup[1] == set(game_seeds(1, 4))  # ceil(15 / 4) seeds
    assert by_matchup[1] <= by_matchup[0] and by_matchup[2] <= by_matchup[0]
    assert game_seeds(1, 5) != game_seeds(2, 5)


def test_expand_lineup_pads_with_the_last_agent() -> None:
    assert expand_lineup(["heuristic", "random"], 4) == [
        ("heuristic", "random", "random", "random")
    ]
    assert expand_lineup(["a", "b", "c"], None) == [("a", "b", "c")]
    from perikles_env.errors import InvalidConfigError

    with pytest.raises(InvalidConfigError):
        expand_lineup(["heuristic"], 6)
    with pytest.raises(InvalidConfigError):
        expand_lineup(["a", "b", "c", "d"], 3)


def _record(seats: list[str], scores: list[int], winners: list[int], rotation: int = 0):
    keys = [(s, 0, 0) for s in scores]
    n = len(seats)
    return GameRecord(
        matchup=0,
        seed_index=0,
        seed=1,
        rotation=rotation,
        seats=seats,
        scores=scores,
        location_vp=[0] * n,
        statues=[0] * n,
        ranks=fractional_ranks(keys),
        win_share=win_shares(winners, n),
        decisions=[10] * n,
        think_seconds=[0.01] * n,
        max_think_seconds=[0.002] * n,
        cpu_seconds=[0.005] * n,
        max_cpu_seconds=[0.001] * n,
        illegal=[0] * n,
    )


def test_summary_pools_seats_of_one_agent() -> None:
    records = [
        _record(["h", "r", "r"], [50, 30, 20], [0]),
        _record(["r", "h", "r"], [40, 40, 10], [0, 1]),  # shared win
        _record(["r", "r", "h"], [45, 20, 30], [0]),
    ]
    m = summarise_matchup(0, ["h", "r", "r"], records, seed=0)
    h, r = m.agents["h"], m.agents["r"]
    assert h.seats_played == 3 and r.seats_played == 6
    assert h.win_rate == pytest.approx(1.5 / 3)
    assert r.win_rate == pytest.approx(1.5 / 6)
    assert h.win_rate_by_seat == [1.0, 0.5, 0.0]
    assert h.games_by_seat == [1, 1, 1]
    assert h.mean_vp == pytest.approx((50 + 40 + 30) / 3)
    assert h.mean_rank == pytest.approx((1 + 1.5 + 2) / 3)
    # r's per-game mean VP: (30+20)/2, (40+10)/2, (45+20)/2
    assert r.mean_vp == pytest.approx((25 + 25 + 32.5) / 3)
    assert m.head_to_head["h"]["r"] == pytest.approx((2 + 1.5 + 1) / 6)
    assert m.timing["h"].mean_decision_ms == pytest.approx(1.0)
    assert m.timing["h"].mean_cpu_ms == pytest.approx(0.5)
    assert m.timing["r"].max_cpu_ms == pytest.approx(1.0)


def test_the_95th_percentile_of_cpu_per_decision_is_a_measured_decision() -> None:
    """Pooled over an agent's seats and games, nearest rank: of 40 decisions of 1..40 ms
    the 95th percentile is the 38th (no interpolation); games kept without per-decision
    times leave it unknown rather than zero."""
    a = _record(["h", "r", "r"], [50, 30, 20], [0])
    b = _record(["r", "h", "r"], [40, 40, 10], [0])
    a.decision_cpu_ms = [[float(x) for x in range(1, 21)], [1.0], [2.0]]
    b.decision_cpu_ms = [[3.0], [float(x) for x in range(21, 41)], [4.0]]
    m = summarise_matchup(0, ["h", "r", "r"], [a, b], seed=0)
    assert m.timing["h"].p95_cpu_ms == 38.0
    assert m.timing["r"].p95_cpu_ms == 4.0  # of 1, 2, 3, 4
    untimed = summarise_matchup(0, ["h", "r", "r"], [_record(["h", "r", "r"], [1, 0, 0], [0])],
                                seed=0)
    assert untimed.timing["h"].p95_cpu_ms is None
