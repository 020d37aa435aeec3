"""Aggregating game records into per-agent results for each matchup and player count.

A *matchup* is one lineup (agent spec per lineup position) at one player count; seats of
the same spec are pooled as one agent. Win rates average the win share of every seat the
agent held (ties split, B.10), with a Wilson interval over those seats; mean VP and mean
rank use a percentile bootstrap over games (the agent's seats averaged per game, so the
resampled units are independent games). Timings are kept apart from everything else:
they are the only numbers that change between identical runs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .runner import GameRecord
from .stats import bootstrap_mean_ci, head_to_head, openskill_ratings, wilson_interval


@dataclass
class AgentStats:
    agent: str
    seats_played: int
    win_rate: float
    win_ci: tuple[float, float]
    mean_rank: float
    rank_ci: tuple[float, float]
    mean_vp: float
    vp_ci: tuple[float, float]
    win_rate_by_seat: list[float]
    games_by_seat: list[int]
    decisions: int
    illegal_actions: int
    forfeits: int
    truncated_games: int = 0  # games of this agent stopped at MAX_GAME_DECISIONS


@dataclass
class Timing:
    agent: str
    mean_decision_ms: float
    max_decision_ms: float
    mean_cpu_ms: float
    max_cpu_ms: float
    decisions_per_game: float
    timed_games: int = 0  # games with timings (fewer only in a resumed run of an older version)
    # the 95th percentile (nearest rank) of CPU ms per decision; None: no decision was
    # recorded one by one (games kept by an older version)
    p95_cpu_ms: float | None = None


def percentile_ms(values: list[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile of ``values`` (None for none): a value that
    was measured, never one interpolated between two decisions."""
    return float(np.percentile(values, q, method="inverted_cdf")) if values else None


@dataclass
class MatchupResult:
    index: int
    players: int
    lineup: list[str]
    games: int
    agents: dict[str, AgentStats]
    head_to_head: dict[str, dict[str, float]]
    timing: dict[str, Timing] = field(default_factory=dict)
    truncated_games: int = 0

    def numbers(self) -> dict[str, Any]:
        """Everything but timings (deterministic for the same arguments)."""
        return {
            "index": self.index,
            "players": self.players,
            "lineup": self.lineup,
            "games": self.games,
            "truncated_games": self.truncated_games,
            "agents": {k: asdict(v) for k, v in self.agents.items()},
            "head_to_head": self.head_to_head,
        }


def summarise_matchup(
    index: int, lineup: list[str], records: list[GameRecord], seed: int
) -> MatchupResult:
    players = len(lineup)
    names = sorted(set(lineup))
    stats: dict[str, AgentStats] = {}
    timing: dict[str, Timing] = {}
    for a, name in enumerate(names):
        shares: list[float] = []
        vp_per_game: list[float] = []
        rank_per_game: list[float] = []
        by_seat = [0.0] * players
        seat_games = [0] * players
        decisions = illegal = forfeits = truncated = timed_decisions = timed_games = 0
        think = slowest = cpu = cpu_slowest = 0.0
        decision_cpu: list[float] = []
        for r in records:
            seats = [s for s in range(players) if r.seats[s] == name]
            if not seats:
                continue
            for s in seats:
                shares.append(r.win_share[s])
                by_seat[s] += r.win_share[s]
                seat_games[s] += 1
                decisions += r.decisions[s]
                illegal += r.illegal[s]
                forfeits += int(r.forfeit == s)
                if r.cpu_seconds:
                    timed_decisions += r.decisions[s]
                    think += r.think_seconds[s]
                    slowest = max(slowest, r.max_think_seconds[s])
                    cpu += r.cpu_seconds[s]
                    cpu_slowest = max(cpu_slowest, r.max_cpu_seconds[s])
                if r.decision_cpu_ms:
                    decision_cpu.extend(r.decision_cpu_ms[s])
            timed_games += int(bool(r.cpu_seconds))
            truncated += int(r.truncated)
            vp_per_game.append(sum(r.scores[s] for s in seats) / len(seats))
            rank_per_game.append(sum(r.ranks[s] for s in seats) / len(seats))
        n = len(shares)
        wins = sum(shares)
        stats[name] = AgentStats(
            agent=name,
            seats_played=n,
            win_rate=wins / n if n else 0.0,
            win_ci=wilson_interval(wins, n),
            mean_rank=_mean(rank_per_game),
            rank_ci=bootstrap_mean_ci(rank_per_game, seed=seed * 7919 + 2 * a),
            mean_vp=_mean(vp_per_game),
            vp_ci=bootstrap_mean_ci(vp_per_game, seed=seed * 7919 + 2 * a + 1),
            win_rate_by_seat=[
                by_seat[s] / seat_games[s] if seat_games[s] else 0.0 for s in range(players)
            ],
            games_by_seat=seat_games,
            decisions=decisions,
            illegal_actions=illegal,
            forfeits=forfeits,
            truncated_games=truncated,
        )
        timing[name] = Timing(
            agent=name,
            mean_decision_ms=1000.0 * think / timed_decisions if timed_decisions else 0.0,
            max_decision_ms=1000.0 * slowest,
            mean_cpu_ms=1000.0 * cpu / timed_decisions if timed_decisions else 0.0,
            max_cpu_ms=1000.0 * cpu_slowest,
            decisions_per_game=decisions / len(vp_per_game) if vp_per_game else 0.0,
            timed_games=timed_games,
            p95_cpu_ms=percentile_ms(decision_cpu, 95),
        )
    ranks_by_game = []
    for r in records:
        game: dict[str, list[float]] = {}
        for s, name in enumerate(r.seats):
            game.setdefault(name, []).append(r.ranks[s])
        ranks_by_game.append(game)
    return MatchupResult(
        index=index,
        players=players,
        lineup=list(lineup),
        games=len(records),
        agents=stats,
        head_to_head=head_to_head(ranks_by_game),
        timing=timing,
        truncated_games=sum(r.truncated for r in records),
    )


def ratings_by_player_count(records: list[GameRecord]) -> dict[int, dict[str, dict[str, float]]]:
    """OpenSkill Plackett-Luce ratings per player count, games in a fixed order."""
    ordered = sorted(records, key=lambda r: (len(r.seats), r.matchup, r.seed_index, r.rotation))
    out: dict[int, dict[str, dict[str, float]]] = {}
    for players in sorted({len(r.seats) for r in ordered}):
        games = [
            (list(r.seats), [float(x) for x in _integer_ranks(r.ranks)])
            for r in ordered
            if len(r.seats) == players
        ]
        out[players] = openskill_ratings(games)
    return out


def _integer_ranks(ranks: list[float]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) from fractional ones: ties keep one rank."""
    return [1 + sum(1 for other in ranks if other < mine) for mine in ranks]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
