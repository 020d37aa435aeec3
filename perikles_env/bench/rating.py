"""The agent's numbers from a run's game records: per table, its win share, multiple of the
equal share, mean rank and VP with 95 % intervals (``evaluation.stats``); and one rating on
the pool's scale: a Bradley-Terry fit of the agent's pairwise finishes against each pool
member, the members held at fixed anchors (their ratings on the leaderboard published for
the protocol, ``anchored_rating``; every member at 0 where none is), with a seeded
bootstrap interval over games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from perikles_env.evaluation.runner import GameRecord
from perikles_env.evaluation.stats import bootstrap_mean_ci, wilson_interval

from .plan import Table


def agent_seat(record: GameRecord, agent: str) -> int:
    """The agent's seat (lineup entry 0 sits at seat ``rotation``)."""
    return record.rotation % len(record.seats)


def table_summary(table: Table, records: Sequence[GameRecord], seed: int) -> dict[str, object]:
    n = table.players
    seats = [agent_seat(r, table.lineup[0]) for r in records]
    shares = [r.win_share[s] for r, s in zip(records, seats, strict=True)]
    ranks = [r.ranks[s] for r, s in zip(records, seats, strict=True)]
    vps = [float(r.scores[s]) for r, s in zip(records, seats, strict=True)]
    games = len(records)
    share = sum(shares) / games if games else math.nan
    low, high = wilson_interval(sum(shares), games)
    return {
        "players": n, "kind": table.kind, "opponents": list(table.opponents), "games": games,
        "win_share": share, "win_share_ci": [low, high],
        "equal_share_multiple": share * n, "equal_share_multiple_ci": [low * n, high * n],
        "mean_rank": float(np.mean(ranks)) if games else math.nan,
        "mean_rank_ci": list(bootstrap_mean_ci(ranks, seed)),
        "mean_vp": float(np.mean(vps)) if games else math.nan,
        "mean_vp_ci": list(bootstrap_mean_ci(vps, seed + 1)),
    }


def pairwise(records: Sequence[GameRecord], names: Sequence[str]) -> list[tuple[float, float]]:
    """Per game, (agent's pairwise wins, pairwise meetings) against its n-1 opponents
    (ties one half); ``names[i]`` is the pool member name of lineup entry i (0: the agent)."""
    out = []
    for r in records:
        s = agent_seat(r, names[0])
        wins = sum(1.0 if r.ranks[s] < r.ranks[o] else 0.5 if r.ranks[s] == r.ranks[o] else 0.0
                   for o in range(len(r.seats)) if o != s)
        out.append((wins, float(len(r.seats) - 1)))
    return out


def member_pairs(records: Sequence[GameRecord], names: Sequence[str],
                 members: Sequence[str]) -> np.ndarray:
    """(games, members, 2): per game, the agent's pairwise score and meetings against the
    seats of each pool member (``names[i]``: the member of lineup entry i, 0 the agent)."""
    index = {m: k for k, m in enumerate(members)}
    out = np.zeros((len(records), len(members), 2))
    for g, r in enumerate(records):
        n, s = len(r.seats), agent_seat(r, names[0])
        for o in range(n):
            if o == s:
                continue
            k = index[names[(o - r.rotation) % n]]  # lineup entry i sits at seat i + rotation
            out[g, k, 0] += 1.0 if r.ranks[s] < r.ranks[o] else 0.5 if r.ranks[s] == r.ranks[o] \
                else 0.0
            out[g, k, 1] += 1.0
    return out


def strength(wins: np.ndarray, meetings: np.ndarray, anchors: np.ndarray,
             prior: float = 0.5) -> float:
    """The log-strength against opponents held at ``anchors`` (Newton's method on the
    Bradley-Terry likelihood), each member met given ``prior`` pseudo-games split evenly,
    as the leaderboard's fit does."""
    met = meetings > 0
    if not met.any():
        return math.nan
    w, n, a = wins[met] + prior / 2, meetings[met] + prior, anchors[met]
    theta = float(np.average(a, weights=n)) + math.log(w.sum() / (n - w).sum())
    for _ in range(100):
        p = 1 / (1 + np.exp(a - theta))
        step = float((w - n * p).sum() / (n * p * (1 - p)).sum())
        theta += step
        if abs(step) < 1e-12:
            break
    return theta


def anchored_rating(per_game: np.ndarray, anchors: np.ndarray, seed: int, scale: str,
                    resamples: int = 1000) -> dict[str, object]:
    """``strength`` of ``member_pairs`` data with a 95 % bootstrap interval over games."""
    if not len(per_game):
        return {"rating": math.nan, "rating_ci": [math.nan, math.nan], "games": 0}
    totals = per_game.sum(axis=0)
    point = strength(totals[:, 0], totals[:, 1], anchors)
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(resamples):
        counts = np.bincount(rng.integers(0, len(per_game), len(per_game)),
                             minlength=len(per_game)).astype(float)
        t = np.tensordot(counts, per_game, axes=1)
        boot.append(strength(t[:, 0], t[:, 1], anchors))
    low, high = np.quantile(boot, [0.025, 0.975])
    return {"rating": point, "rating_ci": [float(low), float(high)], "games": len(per_game),
            "scale": scale}


def bradley_terry(wins: float, meetings: float, anchor: float = 0.0) -> float:
    """The agent's log-strength against opponents fixed at ``anchor`` (closed form for one
    free strength; clipped so a perfect or null record stays finite)."""
    if meetings <= 0:
        return math.nan
    p = min(max(wins / meetings, 0.5 / meetings), 1 - 0.5 / meetings)
    return anchor + math.log(p / (1 - p))


def rating(per_game: Sequence[tuple[float, float]], seed: int, resamples: int = 1000
           ) -> dict[str, object]:
    """Bradley-Terry rating (natural-log odds scale, pool at 0) with a 95 % bootstrap
    interval over games."""
    if not per_game:
        return {"rating": math.nan, "rating_ci": [math.nan, math.nan], "games": 0}
    data = np.asarray(per_game, dtype=float)
    point = bradley_terry(float(data[:, 0].sum()), float(data[:, 1].sum()))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(data), size=(resamples, len(data)))
    boot = [bradley_terry(float(data[i, 0].sum()), float(data[i, 1].sum())) for i in idx]
    low, high = np.quantile(boot, [0.025, 0.975])
    return {"rating": point, "rating_ci": [float(low), float(high)], "games": len(data),
            "scale": "Bradley-Terry log-odds of finishing ahead of a pool member (pool = 0)"}
