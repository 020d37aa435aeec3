"""The schema of ``configs/rllib_*.yaml`` (docs/ecosystem.md, "Ray RLlib").

Flat keys, each declared here with its type, bounds and default; an unknown key, a wrong type
or a value out of range raises one ``InvalidConfigError`` line naming the key. The training
budget is whichever of ``iterations``, ``env_steps`` and ``max_minutes`` is reached first (at
least one must be set). ``configs/schema/rllib.json`` is this schema for editors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from perikles_env.jobs.config_fields import Positive, PositiveFloat, Spec, check_league_spec
from perikles_env.jobs.config_schema import Config, FieldError, build, read_yaml
from perikles_env.jobs.run_folder import folder_path, plain_folder_name

from ...agents.rllib_policy import ACTIVATIONS
from ...engine import MAX_GAME_DECISIONS
from ...engine import data as D
from ...environment.aec import REWARD_MODES
from ...errors import InvalidConfigError
from ...single_agent.opponents import OpponentPool

Unit = Annotated[float, Field(gt=0, le=1)]


class RLlibConfig(Config):
    """A ``perikles-train-rllib`` config (docs/ecosystem.md, "Ray RLlib")."""

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True)

    name: str = "rllib"
    out: str = "runs/rllib"
    seed: Annotated[int, Field(ge=0)] = 0
    # env (perikles_env.training.rllib.env)
    num_players: Annotated[int, Field(ge=D.MIN_PLAYERS, le=D.MAX_PLAYERS)] = 4
    reward: Literal[REWARD_MODES] = "win"  # type: ignore[valid-type]
    opponent_seats: Annotated[int, Field(ge=0)] = 0  # 0: the shared policy plays every seat
    opponents: str | list[str] | dict[str, float] = "random"  # an OpponentPool value
    illegal_penalty: float = -1.0
    max_decisions: Positive = MAX_GAME_DECISIONS
    # budget: the first one reached stops training
    iterations: Positive | None = None
    env_steps: Positive | None = None
    max_minutes: PositiveFloat | None = None
    # resources: local by default; ``--address`` runs the same on a Ray cluster
    num_cpus: Positive = 2  # for the local Ray instance only
    num_env_runners: Annotated[int, Field(ge=0)] = 1
    envs_per_env_runner: Positive = 1
    num_learners: Annotated[int, Field(ge=0)] = 0  # 0: the learner runs in the driver process
    # PPO
    train_batch_size: Positive = 4000
    minibatch_size: Positive = 256
    num_epochs: Positive = 4
    lr: PositiveFloat = 3e-4
    gamma: Unit = 0.995
    lambda_: Unit = Field(0.95, alias="lambda")
    entropy_coeff: float = 0.01
    clip_param: float = 0.2
    vf_loss_coeff: float = 0.5
    hidden: list[Positive] = Field(default_factory=lambda: [128, 128], min_length=1)
    activation: Literal[ACTIVATIONS] = "relu"  # type: ignore[valid-type]
    # checkpoints and the final evaluation (the project's evaluator)
    checkpoint_every: Positive = 10  # iterations; the last iteration is always saved
    eval_games: Annotated[int, Field(ge=0)] = 0  # 0: no final evaluation
    eval_opponents: list[Spec] = Field(default_factory=lambda: ["random"])

    _name = field_validator("name")(plain_folder_name)
    _out = field_validator("out")(folder_path)

    @field_validator("opponents")
    @classmethod
    def _pool(cls, value: Any) -> Any:
        for spec in OpponentPool.of(value).specs:  # InvalidConfigError on a bad value
            check_league_spec(spec)
        return value

    @model_validator(mode="after")
    def _across_keys(self) -> RLlibConfig:
        if self.opponent_seats >= self.num_players:
            raise FieldError(
                "opponent_seats",
                f"must be in 0..{self.num_players - 1}, got {self.opponent_seats}",
            )
        pool = OpponentPool.of(self.opponents)
        if self.opponent_seats == 0 and (len(pool.specs) > 1 or pool.specs[0] != "random"):
            raise FieldError("opponents", "opponents play only with opponent_seats > 0")
        if self.iterations is None and self.env_steps is None and self.max_minutes is None:
            raise FieldError("iterations", "set at least one of iterations, env_steps, max_minutes")
        if self.minibatch_size > self.train_batch_size:
            raise FieldError(
                "minibatch_size",
                f"must not exceed train_batch_size {self.train_batch_size}, "
                f"got {self.minibatch_size}",
            )
        return self

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


def from_dict(data: dict[str, Any]) -> RLlibConfig:
    """A checked config from plain data (YAML's ``lambda`` is the field ``lambda_``)."""
    return build(RLlibConfig, data, "an RLlib config")


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RLlibConfig:
    """Read ``path`` (or a shipped config name), apply ``overrides``, check everything."""
    file, data = read_yaml(path)
    try:
        return from_dict({**data, **(overrides or {})})
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{file}: {exc}") from None
