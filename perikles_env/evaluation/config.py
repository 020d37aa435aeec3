"""Evaluation settings from the command line or a YAML file (``configs/eval_*.yaml``).

YAML form (``configs/schema/evaluate.json`` is its schema)::

    name: heuristic_vs_random     # run folder name (default: a timestamp)
    games: 400                    # games per matchup, rounded up to whole seat rotations
    seed: 0                       # base of the shared game-seed list (CRN)
    workers: 2                    # worker processes
    out: runs/eval                # parent folder of the run folder
    plots: true
    backend: auto                 # engine of every game: auto | native | python
    matchups:
      - agents: [heuristic, random]   # padded with its last entry up to `players`
        players: [3, 4, 5]            # one matchup per player count

Command-line values given explicitly override the file's. Errors are one line naming the
key (``games: must be > 0, got 0``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from perikles_env.agents import split_specs
from perikles_env.engine import data as D
from perikles_env.errors import InvalidConfigError
from perikles_env.jobs.config_fields import check_backend, check_spec, check_spec_plays
from perikles_env.jobs.config_schema import Config, Schema, build, read_yaml
from perikles_env.jobs.run_folder import folder_path, plain_folder_name

Lineup = tuple[str, ...]
Players = Annotated[int, Field(ge=D.MIN_PLAYERS, le=D.MAX_PLAYERS)]


class _Settings(Config):
    """The keys a YAML file and the command line share."""

    games: Annotated[int, Field(gt=0)] = 400
    seed: Annotated[int, Field(ge=0)] = 0
    workers: Annotated[int, Field(gt=0)] = 1
    out: str = "runs/eval"
    name: str = ""  # "" : a timestamp
    plots: bool = True
    backend: Literal["auto", "native", "python"] | None = None  # None: Game.new's default

    _out = field_validator("out")(folder_path)
    _backend = field_validator("backend")(check_backend)

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        return name and plain_folder_name(name)


class EvalConfig(_Settings):
    """A checked evaluation: every lineup has 3..5 agents, each agent builds (so a missing
    or unsafe ``ppo:`` file fails before any game)."""

    lineups: tuple[Lineup, ...] = Field(strict=False, min_length=1)

    @field_validator("lineups")
    @classmethod
    def _lineups(cls, lineups: tuple[Lineup, ...]) -> tuple[Lineup, ...]:
        for lineup in lineups:
            if not D.MIN_PLAYERS <= len(lineup) <= D.MAX_PLAYERS:
                raise ValueError(
                    f"a lineup must have {D.MIN_PLAYERS}-{D.MAX_PLAYERS} agents, got {list(lineup)}"
                )
        for spec in sorted({spec for lineup in lineups for spec in lineup}):
            check_spec(spec)
        for lineup in lineups:
            for spec in set(lineup):
                check_spec_plays(spec, len(lineup))
        return lineups


class Matchup(Schema):
    """Agents (padded with the last one) at one or several player counts."""

    agents: str | list[str]  # a list, or comma-separated specs
    players: Players | list[Players] | None = None  # None: as many as agents


class EvalFile(_Settings):
    """A ``perikles-evaluate`` config: settings and matchups, each expanded to one lineup
    per player count (docs/evaluation.md)."""

    matchups: list[Matchup] = Field(default_factory=list)


def expand_lineup(agents: list[str], players: list[int] | int | None) -> list[Lineup]:
    """One lineup per player count; ``agents`` is padded with its last entry (``heuristic,
    random`` at 4 players is heuristic + 3 random). Without ``players``: one game of
    ``len(agents)`` players, which must then be 3..5."""
    agents = [a.strip() for a in agents if a.strip()]
    if not agents:
        raise InvalidConfigError("no agents given")
    low, high = D.MIN_PLAYERS, D.MAX_PLAYERS
    if players is None:
        if len(agents) < low:
            raise InvalidConfigError(
                f"{len(agents)} agents name a {len(agents)}-player game; Perikles needs "
                f"{low}..{high} players: give --players N ({low}..{high}, or matchup key "
                f"players) to fill the table with the last agent ({agents[-1]}), or name "
                f"{low}..{high} agents"
            )
        players = len(agents)
    counts = players if isinstance(players, list) else [players]
    out = []
    for n in counts:
        if isinstance(n, bool) or not isinstance(n, int):
            raise InvalidConfigError(f"players: must be an int, got {n!r}")
        if not low <= n <= high:
            raise InvalidConfigError(f"players: must be in {low}..{high}, got {n}")
        if len(agents) > n:
            raise InvalidConfigError(f"{len(agents)} agents given for a {n}-player game: {agents}")
        out.append(tuple(agents + [agents[-1]] * (n - len(agents))))
    return out


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> EvalConfig:
    """Read a YAML evaluation config; ``overrides`` (non-None values) win over the file."""
    file, data = read_yaml(path)
    try:
        spec = build(EvalFile, data)
        lineups: list[Lineup] = []
        for i, m in enumerate(spec.matchups):
            agents = split_specs(m.agents) if isinstance(m.agents, str) else m.agents
            try:
                lineups += expand_lineup(list(agents), m.players)
            except InvalidConfigError as exc:
                raise InvalidConfigError(f"matchups[{i}]: {exc}") from None
        values = spec.model_dump(exclude={"matchups"}, exclude_unset=True)
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        values.setdefault("lineups", lineups)
        return build(EvalConfig, values)
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{file}: {exc}") from None
