"""Statistics for tournament results: confidence intervals, ranks, ratings, head-to-head.

Everything here is a pure function of its inputs (bootstrap resampling uses a seeded
generator), so the same games give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# Ranks and win shares follow the engine's one convention (docs/rules.md B.10).
from perikles_env.engine.queries import fractional_ranks as fractional_ranks
from perikles_env.engine.queries import win_shares as win_shares

Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; ``successes`` may be fractional (split ties)."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_mean_ci(
    values: Sequence[float], seed: int, resamples: int = 2000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean (one value per independent game)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (math.nan, math.nan)
    if data.size == 1:
        return (float(data[0]), float(data[0]))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.size, size=(resamples, data.size))
    means = data[idx].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return (float(low), float(high))


def head_to_head(ranks_by_game: Sequence[dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    """P(row agent finishes ahead of column agent), over every pair of their seats in the same
    game; ties count one half. ``ranks_by_game`` maps agent -> ranks of its seats, per game."""
    wins: dict[tuple[str, str], float] = {}
    meetings: dict[tuple[str, str], int] = {}
    for game in ranks_by_game:
        names = sorted(game)
        for a in names:
            for b in names:
                if a == b:
                    continue
                for ra in game[a]:
                    for rb in game[b]:
                        key = (a, b)
                        meetings[key] = meetings.get(key, 0) + 1
                        wins[key] = wins.get(key, 0.0) + (
                            1.0 if ra < rb else 0.5 if ra == rb else 0
                        )
    table: dict[str, dict[str, float]] = {}
    for (a, b), n in sorted(meetings.items()):
        table.setdefault(a, {})[b] = wins[(a, b)] / n
    return table


def openskill_ratings(
    games: Sequence[tuple[list[str], list[float]]],
) -> dict[str, dict[str, float]]:
    """Plackett-Luce ratings (OpenSkill) from games given as (agent per seat, rank per seat),
    processed in the given order. Several seats of one agent in a game are rated as separate
    entrants, and the agent's rating is then set to the mean of their updated ratings."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, object] = {}
    for seats, ranks in games:
        for name in seats:
            if name not in ratings:
                ratings[name] = model.rating(name=name)
        teams = [[model.rating(mu=ratings[n].mu, sigma=ratings[n].sigma)] for n in seats]  # type: ignore[attr-defined]
        result = model.rate(teams, ranks=list(ranks))
        updated: dict[str, list[tuple[float, float]]] = {}
        for name, team in zip(seats, result, strict=True):
            updated.setdefault(name, []).append((team[0].mu, team[0].sigma))
        for name, values in updated.items():
            mu = sum(v[0] for v in values) / len(values)
            sigma = sum(v[1] for v in values) / len(values)
            ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)
    out = {}
    for name, r in sorted(ratings.items()):
        mu, sigma = r.mu, r.sigma  # type: ignore[attr-defined]
        out[name] = {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma}
    return out
