"""The YAML schema of ``configs/rllib_*.yaml`` (docs/ecosystem.md, "Ray RLlib").

Flat keys, each declared here with its type and default; an unknown key, a wrong type or
a value out of range raises ``InvalidConfigError`` naming the key. The training budget is
whichever of ``iterations``, ``env_steps`` and ``max_minutes`` is reached first (at least
one must be set).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...agents import AgentError
from ...agents.rllib_policy import ACTIVATIONS
from ...engine import MAX_GAME_DECISIONS
from ...engine import data as D
from ...environment.aec import REWARD_MODES
from ...errors import InvalidConfigError
from ...single_agent.opponents import OpponentPool

# the SB3 trainer's spec check and its YAML fix-up (``3e-4`` read as a float), reused
from ..config import _check_spec as check_spec
from ..config import _floats_in_yaml as floats_in_yaml
from ..config_files import find_config


@dataclass(frozen=True)
class RLlibConfig:
    name: str = "rllib"
    out: str = "runs/rllib"
    seed: int = 0
    # env (perikles_env.training.rllib.env)
    num_players: int = 4
    reward: str = "win"
    opponent_seats: int = 0  # 0: the shared policy plays every seat
    opponents: Any = "random"  # an OpponentPool value: spec, list or {spec: weight}
    illegal_penalty: float = -1.0
    max_decisions: int = MAX_GAME_DECISIONS
    # budget: the first one reached stops training
    iterations: int | None = None
    env_steps: int | None = None
    max_minutes: float | None = None
    # resources: local by default; ``--address`` runs the same on a Ray cluster
    num_cpus: int = 2  # for the local Ray instance only
    num_env_runners: int = 1
    envs_per_env_runner: int = 1
    num_learners: int = 0  # 0: the learner runs in the driver process
    # PPO
    train_batch_size: int = 4000
    minibatch_size: int = 256
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.995
    lambda_: float = 0.95
    entropy_coeff: float = 0.01
    clip_param: float = 0.2
    vf_loss_coeff: float = 0.5
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    activation: str = "relu"
    # checkpoints and the final evaluation (the project's evaluator)
    checkpoint_every: int = 10  # iterations; the last iteration is always saved
    eval_games: int = 0  # 0: no final evaluation
    eval_opponents: list[str] = field(default_factory=lambda: ["random"])

    def check(self) -> None:
        def bad(key: str, why: str) -> InvalidConfigError:
            return InvalidConfigError(f"{key}: {why}")

        if not D.MIN_PLAYERS <= self.num_players <= D.MAX_PLAYERS:
            raise bad("num_players", f"must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}")
        if self.reward not in REWARD_MODES:
            raise bad("reward", f"must be one of {REWARD_MODES}")
        if not 0 <= self.opponent_seats < self.num_players:
            raise bad("opponent_seats", f"must be in 0..{self.num_players - 1}")
        pool = OpponentPool.of(self.opponents)  # raises InvalidConfigError on a bad spec
        if self.opponent_seats == 0 and (len(pool.specs) > 1 or pool.specs[0] != "random"):
            raise bad("opponents", "opponents play only with opponent_seats > 0")
        self._check_specs("opponents", pool.specs)
        self._check_specs("eval_opponents", self.eval_opponents)
        if self.iterations is None and self.env_steps is None and self.max_minutes is None:
            raise bad("iterations", "set at least one of iterations, env_steps, max_minutes")
        positive = {
            "max_decisions": self.max_decisions,
            "iterations": self.iterations,
            "env_steps": self.env_steps,
            "max_minutes": self.max_minutes,
            "num_cpus": self.num_cpus,
            "envs_per_env_runner": self.envs_per_env_runner,
            "train_batch_size": self.train_batch_size,
            "minibatch_size": self.minibatch_size,
            "num_epochs": self.num_epochs,
            "lr": self.lr,
            "checkpoint_every": self.checkpoint_every,
        }
        for key, value in positive.items():
            if value is not None and not value > 0:
                raise bad(key, f"must be > 0, got {value!r}")
        for key in ("num_env_runners", "num_learners", "eval_games"):
            if getattr(self, key) < 0:
                raise bad(key, "must be >= 0")
        if self.minibatch_size > self.train_batch_size:
            raise bad("minibatch_size", "must not exceed train_batch_size")
        if not self.hidden or any(isinstance(h, bool) or h < 1 for h in self.hidden):
            raise bad("hidden", "must be a non-empty list of positive layer sizes")
        if self.activation not in ACTIVATIONS:
            raise bad("activation", f"must be one of {ACTIVATIONS}")
        for key in ("gamma", "lambda_"):
            if not 0 < getattr(self, key) <= 1:
                raise bad(key, "must be in (0, 1]")

    @staticmethod
    def _check_specs(key: str, specs: Sequence[str]) -> None:
        """Build each agent now (checkpoints: check the folder) so a bad option fails here."""
        for spec in specs:
            try:
                check_spec(spec)
            except AgentError as exc:
                raise InvalidConfigError(f"{key}: {exc}") from exc

    def env_config(self) -> dict[str, Any]:
        """The options of ``PeriklesMultiAgentEnv`` (RLlib's ``env_config``)."""
        pool = OpponentPool.of(self.opponents)
        return {
            "num_players": self.num_players,
            "reward": self.reward,
            "opponent_seats": self.opponent_seats,
            "opponents": dict(zip(pool.specs, pool.weights, strict=True)),
            "illegal_penalty": self.illegal_penalty,
            "max_decisions": self.max_decisions,
        }

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _check_type(key: str, value: Any, hint: str) -> Any:
    """``value`` for a field typed ``hint`` (ints accepted for floats)."""
    if value is None and "None" in hint:
        return None
    if "float" in hint and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint.startswith("list"):
        if not isinstance(value, list):
            raise InvalidConfigError(f"{key}: must be a list, got {value!r}")
        item = int if "int" in hint else str
        if any(isinstance(v, bool) or not isinstance(v, item) for v in value):
            raise InvalidConfigError(f"{key}: must be a list of {item.__name__}, got {value!r}")
        return value
    if hint == "Any":
        return value
    kinds = {"int": int, "float": float, "str": str}
    kind = kinds[hint.split(" ")[0]]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise InvalidConfigError(f"{key}: must be {hint}, got {value!r}")
    return value


def from_dict(data: dict[str, Any]) -> RLlibConfig:
    """A checked config from plain data (YAML's ``lambda`` is the field ``lambda_``)."""
    if not isinstance(data, dict):
        raise InvalidConfigError(f"an RLlib config must be a mapping, got {type(data).__name__}")
    data = {("lambda_" if k == "lambda" else k): v for k, v in data.items()}
    fields = {f.name: f for f in dataclasses.fields(RLlibConfig)}
    unknown = set(data) - set(fields)
    if unknown:
        raise InvalidConfigError(f"unknown key(s) {sorted(unknown)}; known: {sorted(fields)}")
    values = {key: _check_type(key, value, str(fields[key].type)) for key, value in data.items()}
    config = RLlibConfig(**values)
    config.check()
    return config


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RLlibConfig:
    """Read ``path`` (or a shipped config name), apply ``overrides``, check everything."""
    file = find_config(path)
    try:
        data = yaml.safe_load(file.read_text()) or {}
    except yaml.YAMLError as exc:
        raise InvalidConfigError(f"{file}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{file}: must be a mapping of keys to values")
    try:
        return from_dict(floats_in_yaml({**data, **(overrides or {})}))
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{file}: {exc}") from exc
