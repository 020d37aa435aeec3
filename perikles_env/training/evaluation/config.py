"""Evaluation settings from the command line or a YAML file (``configs/eval_*.yaml``).

YAML form::

    name: heuristic_vs_random     # run folder name (default: a timestamp)
    games: 400                    # games per matchup, rounded up to whole seat rotations
    seed: 0                       # base of the shared game-seed list (CRN)
    workers: 2                    # worker processes
    out: runs/eval                # parent folder of the run folder
    plots: true
    matchups:
      - agents: [heuristic, random]   # padded with its last entry up to `players`
        players: [3, 4, 5]            # one matchup per player count

Command-line values given explicitly override the file's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perikles_env.agents import AgentError, make_agent, split_specs
from perikles_env.engine import data as D
from perikles_env.engine.backend import resolve_backend
from perikles_env.errors import InvalidConfigError
from perikles_env.training.config_files import find_config
from perikles_env.training.run_folder import check_folder_name, check_out

_TOP_KEYS = {"name", "games", "seed", "workers", "out", "plots", "matchups", "backend"}
_MATCHUP_KEYS = {"agents", "players"}


@dataclass(frozen=True)
class EvalConfig:
    lineups: tuple[tuple[str, ...], ...]
    games: int = 400
    seed: int = 0
    workers: int = 1
    out: str = "runs/eval"
    name: str = ""
    plots: bool = True
    # engine of every game: "auto" | "native" | "python", or None for Game.new's default
    backend: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.lineups:
            raise InvalidConfigError("evaluation needs at least one lineup")
        for lineup in self.lineups:
            if not D.MIN_PLAYERS <= len(lineup) <= D.MAX_PLAYERS:
                raise InvalidConfigError(
                    f"a lineup must have {D.MIN_PLAYERS}-{D.MAX_PLAYERS} agents, got {list(lineup)}"
                )
        for spec in sorted({spec for lineup in self.lineups for spec in lineup}):
            try:  # built once here, so a missing or unsafe ppo: file fails before any game
                make_agent(spec)
            except AgentError as exc:
                raise InvalidConfigError(str(exc)) from exc
        _positive("games", self.games)
        _positive("workers", self.workers)
        if not isinstance(self.plots, bool):
            raise InvalidConfigError(f"plots must be true or false, got {self.plots!r}")
        check_out("out", self.out)
        if self.name != "":
            check_folder_name("name", self.name)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InvalidConfigError(f"seed must be a non-negative int, got {self.seed!r}")
        if self.backend is not None:
            resolve_backend(self.backend)  # a typed error for an unknown or unbuilt backend


def _positive(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidConfigError(f"{name} must be a positive int, got {value!r}")


def expand_lineup(agents: list[str], players: list[int] | int | None) -> list[tuple[str, ...]]:
    """One lineup per player count; ``agents`` is padded with its last entry (``heuristic,
    random`` at 4 players is heuristic + 3 random). Without ``players``: len(agents)."""
    agents = [a.strip() for a in agents if a.strip()]
    if not agents:
        raise InvalidConfigError("no agents given")
    counts = (
        [len(agents)] if players is None else players if isinstance(players, list) else [players]
    )
    out = []
    for n in counts:
        if isinstance(n, bool) or not isinstance(n, int):
            raise InvalidConfigError(f"players must be ints, got {n!r}")
        if not D.MIN_PLAYERS <= n <= D.MAX_PLAYERS:
            raise InvalidConfigError(
                f"players must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, got {n}"
            )
        if len(agents) > n:
            raise InvalidConfigError(f"{len(agents)} agents given for a {n}-player game: {agents}")
        out.append(tuple(agents + [agents[-1]] * (n - len(agents))))
    return out


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> EvalConfig:
    """Read a YAML evaluation config; ``overrides`` (non-None values) win over the file."""
    import yaml

    path = find_config(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise InvalidConfigError(f"cannot read evaluation config {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{path}: the top level must be a mapping")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise InvalidConfigError(
            f"{path}: unknown keys {sorted(unknown)}; known {sorted(_TOP_KEYS)}"
        )
    lineups: list[tuple[str, ...]] = []
    for i, m in enumerate(data.get("matchups") or []):
        if not isinstance(m, dict) or "agents" not in m:
            raise InvalidConfigError(f"{path}: matchups[{i}] must be a mapping with 'agents'")
        bad = set(m) - _MATCHUP_KEYS
        if bad:
            raise InvalidConfigError(f"{path}: matchups[{i}] has unknown keys {sorted(bad)}")
        agents = m["agents"]
        if isinstance(agents, str):
            agents = split_specs(agents)
        lineups += expand_lineup(list(agents), m.get("players"))
    values: dict[str, Any] = {
        k: data[k]
        for k in ("games", "seed", "workers", "out", "name", "plots", "backend")
        if k in data
    }
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
    if overrides and overrides.get("lineups"):
        lineups = list(overrides["lineups"])
    values.pop("lineups", None)
    return EvalConfig(lineups=tuple(lineups), **values)
