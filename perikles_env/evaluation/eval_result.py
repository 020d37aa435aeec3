"""``EvalResult``: what an evaluation returns and what its report and plots are written from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .config import EvalConfig
from .matchup_results import MatchupResult
from .runner import GameRecord


@dataclass
class EvalResult:
    config: EvalConfig
    matchups: list[MatchupResult]
    ratings: dict[int, dict[str, dict[str, float]]]
    records: list[GameRecord]
    run_dir: Path | None = None
    command: str = ""
    plots: list[str] = field(default_factory=list)

    @property
    def illegal_actions(self) -> int:
        return sum(sum(r.illegal) for r in self.records)

    @property
    def truncated_games(self) -> int:
        return sum(r.truncated for r in self.records)

    def win_rate(self, agent: str, players: int | None = None) -> float:
        """Win rate of ``agent`` over every matchup (at ``players``) it played, seat-weighted."""
        seats = wins = 0.0
        for m in self.matchups:
            if agent in m.agents and (players is None or m.players == players):
                a = m.agents[agent]
                seats += a.seats_played
                wins += a.win_rate * a.seats_played
        if not seats:
            raise KeyError(
                f"agent {agent!r} played no game" + (f" at {players} players" if players else "")
            )
        return wins / seats
