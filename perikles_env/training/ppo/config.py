"""Training configuration: the schema of ``configs/*.yaml`` (docs/training.md explains each key).

Every key is declared here with its type, bounds and default; an unknown key, a wrong type or
a value out of range raises one ``InvalidConfigError`` line naming the key
(``ppo.n_steps: must be > 0, got -3``). Command-line overrides (``--override
ppo.learning_rate=1e-4``) are YAML scalars applied to the file's values before validation, so
they are checked the same way. ``configs/schema/train.json`` is this schema for editors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from perikles_env.analysis.encoding import check_features
from perikles_env.engine import MAX_GAME_DECISIONS
from perikles_env.engine import data as D
from perikles_env.jobs.config_fields import (
    Positive,
    PositiveFloat,
    Spec,
    check_backend,
    check_league_spec,
)
from perikles_env.jobs.config_schema import (
    Config,
    FieldError,
    Schema,
    build_with_overrides,
    load_file,
)
from perikles_env.jobs.config_schema import parse_override as parse_override
from perikles_env.jobs.run_folder import folder_path, plain_folder_name
from perikles_env.single_agent import RewardConfig
from perikles_env.vector.seat_draw import MAX_WEIGHT

from .self_play_pool import SELF_KEYS as SELF_KEYS
from .self_play_pool import SELF_LATEST as SELF_LATEST
from .self_play_pool import SELF_PAST as SELF_PAST

# ppo.action_head -> the policy class (an allowed name of perikles_env.agents.ppo_policy)
ACTION_HEADS = {
    "flat": "MaskableActorCriticPolicy",
    "battle": "BattleGainPolicy",
    "scoring": "ActionScoringPolicy",
}

Count = Annotated[int, Field(ge=0)]
Weight = Annotated[float, Field(ge=0, le=MAX_WEIGHT)]  # vector/seat_draw.py
Players = Annotated[int, Field(ge=D.MIN_PLAYERS, le=D.MAX_PLAYERS)]
Backend = Literal["auto", "native", "python"]


class EnvSection(Schema):
    """The games the learner plays: player counts, its seat, features, engine."""

    num_players: int | list[int] = 4
    learner_seat: int | Literal["random"] = "random"
    illegal_action_penalty: float = -1.0
    max_decisions: Positive = MAX_GAME_DECISIONS
    features: list[str] = Field(default_factory=list)
    backend: Backend | None = None  # engine of every game; None: $PERIKLES_BACKEND, else auto
    vector: Backend = "auto"  # the training envs: C++ vector env (native) or Python envs

    @property
    def player_counts(self) -> tuple[int, ...]:
        """``num_players`` as a tuple, whether one count or a list was configured."""
        n = self.num_players
        return tuple(n) if isinstance(n, list) else (n,)

    @property
    def seat(self) -> int | None:
        return None if isinstance(self.learner_seat, str) else self.learner_seat

    @field_validator("num_players")
    @classmethod
    def _counts(cls, value: int | list[int]) -> int | list[int]:
        counts = value if isinstance(value, list) else [value]
        if not counts or any(not D.MIN_PLAYERS <= n <= D.MAX_PLAYERS for n in counts):
            raise ValueError(
                f"must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS} (or a list of such), got {value!r}"
            )
        return value

    @field_validator("features")
    @classmethod
    def _features(cls, value: list[str]) -> list[str]:
        return list(check_features(value))

    _backend = field_validator("backend")(check_backend)

    @model_validator(mode="after")
    def _seat(self) -> EnvSection:
        if self.seat is not None and not 0 <= self.seat < min(self.player_counts):
            raise FieldError(
                "learner_seat",
                f"must be below the smallest player count {min(self.player_counts)}, "
                f"got {self.seat}",
            )
        return self


class RewardSection(Schema):
    """The learner's reward (``single_agent/rewards.py``): win share, VP margin, shaping."""

    win: float = 1.0
    vp_margin: float = 0.0
    shaping: float = 0.0
    vp_scale: PositiveFloat = 10.0

    @model_validator(mode="after")
    def _some_outcome(self) -> RewardSection:
        if self.win == 0 and self.vp_margin == 0:
            raise ValueError("win and vp_margin cannot both be 0")
        return self

    def reward_config(self) -> RewardConfig:
        return RewardConfig(**self.model_dump())


class CurriculumStage(Schema):
    """One stage of ``opponents.curriculum``: the league until ``until`` learner steps."""

    until: Positive
    weights: dict[str, Weight] = Field(min_length=1)

    @field_validator("weights")
    @classmethod
    def _fixed_agents(cls, weights: dict[str, float]) -> dict[str, float]:
        for key in weights:
            if key in SELF_KEYS:
                raise ValueError(f"{key}: a stage names fixed agents (snapshots: `weights`)")
            check_league_spec(key)
        if sum(weights.values()) <= 0:
            raise ValueError("a stage needs a positive weight")
        return weights


class OpponentSection(Schema):
    """Who plays the other seats: agent specs and snapshots of the learner, by weight;
    ``curriculum``: earlier leagues, each until a number of learner steps, before
    ``weights`` (every spec of every stage is dealt from the first game on, at weight 0
    outside its stages: the C++ vector env seats the players it was made with)."""

    weights: dict[str, Weight] = Field(default_factory=lambda: {"random": 1.0}, min_length=1)
    curriculum: list[CurriculumStage] = Field(default_factory=list)
    snapshot_every: Count = 0
    max_snapshots: Positive = 5
    snapshot_deterministic: bool = False
    same_table: Annotated[float, Field(ge=0, le=1)] = 0.0  # share of one-spec tables

    @field_validator("curriculum")
    @classmethod
    def _ordered(cls, stages: list[CurriculumStage]) -> list[CurriculumStage]:
        ends = [stage.until for stage in stages]
        if ends != sorted(set(ends)):
            raise ValueError(f"the stages' `until` must increase, got {ends}")
        return stages

    @field_validator("weights")
    @classmethod
    def _specs(cls, weights: dict[str, float]) -> dict[str, float]:
        for key in weights:
            if key not in SELF_KEYS:
                check_league_spec(key)
        return weights

    @model_validator(mode="after")
    def _self_play(self) -> OpponentSection:
        if sum(w for k, w in self.weights.items() if k not in SELF_KEYS) <= 0:
            raise FieldError(
                "weights",
                "needs a positive weight on a non-self opponent (random, heuristic, ...): "
                "there is no snapshot before the first one is taken",
            )
        if any(self.weights.get(k, 0) > 0 for k in SELF_KEYS) and self.snapshot_every <= 0:
            raise FieldError(
                "snapshot_every", "must be > 0 when self_latest/self_past have weight"
            )
        return self


class PPOSection(Schema):
    """MaskablePPO's settings and the policy network."""

    learning_rate: PositiveFloat = 3e-4
    lr_schedule: Literal["constant", "linear"] = "constant"
    n_steps: Positive = 512
    batch_size: Positive = 256
    n_epochs: Positive = 4
    gamma: Annotated[float, Field(gt=0, le=1)] = 0.995
    gae_lambda: Annotated[float, Field(gt=0, le=1)] = 0.95
    clip_range: PositiveFloat = 0.2
    ent_coef: Annotated[float, Field(ge=0)] = 0.01
    vf_coef: Annotated[float, Field(ge=0)] = 0.5
    max_grad_norm: PositiveFloat = 0.5
    target_kl: PositiveFloat | None = None
    net_arch: list[Positive] = Field(default_factory=lambda: [256, 256], min_length=1)
    # widths of first layers the policy and the value share, before net_arch's own layers
    # (action_head: scoring); []: two separate networks
    trunk: list[Positive] = Field(default_factory=list)
    activation: Literal["tanh", "relu"] = "tanh"
    action_head: Literal[tuple(ACTION_HEADS)] = "flat"  # type: ignore[valid-type]
    # a search network to start from: a .pkn file, net (the shipped one) or expert-iteration
    init_net: str | None = None
    # sb3: sb3-contrib's MaskablePPO as it is; lean: the same algorithm with a sparse rollout
    # (training/ppo/lean_ppo.py; needs action_head: scoring). Both write the same model files.
    learner: Literal["sb3", "lean"] = "sb3"

    def init_net_path(self) -> str:
        """``init_net`` as a path: ``net`` is the shipped network (the ``net`` agent's), a
        name of ``NAMED_NETS`` (``expert-iteration``) another network the package ships."""
        from perikles_env.agents.search.net_agent import net_path

        return str(net_path(None if self.init_net == "net" else self.init_net))


class TrainSection(Schema):
    """The budget (steps, minutes), the envs and processes, checkpoints, output."""

    total_timesteps: Positive = 100_000
    max_minutes: PositiveFloat | None = None  # the time budget of PPO (evaluation excluded)
    n_envs: Positive = 16
    vec_env: Literal["auto", "batched", "subproc", "dummy"] = "auto"
    workers: Positive = 2
    checkpoint_every: Count = 0
    keep_checkpoints: Positive = 3
    torch_threads: Positive = 1
    update_threads: Positive | None = None  # torch threads during PPO's update (None: same)
    progress_bar: bool = True
    tensorboard: bool = True


class EvalSection(Schema):
    """Periodic and final evaluation with the tournament evaluator."""

    every: Count = 0
    games: Count | dict[str, Count] = 40
    opponents: list[Spec] = Field(default_factory=lambda: ["random", "heuristic"], min_length=1)
    players: Players = 4
    final_games: Count | dict[str, Count] = 400
    final_players: list[Players] = Field(default_factory=lambda: [4], min_length=1)
    workers: Positive = 2
    seed: Count = 1000
    agreement_games: Count = 0  # held-out heuristic games scoring the final model's agreement
    # an agent played in the model's place on the final evaluation's games (the policy
    # training started from, e.g. net:expert-iteration): the report shows what training added
    baseline: Spec | None = None

    @model_validator(mode="after")
    def _games_name_opponents(self) -> EvalSection:
        for key in ("games", "final_games"):
            value = getattr(self, key)
            unknown = sorted(set(value) - set(self.opponents)) if isinstance(value, dict) else []
            if unknown:
                raise FieldError(key, f"names {unknown}, which are not in eval.opponents")
        return self

    def games_vs(self, opponent: str, final: bool = False) -> int:
        """Evaluation games against ``opponent`` (periodic or final): ``games`` /
        ``final_games`` are one count for every opponent or a count per opponent."""
        value = self.final_games if final else self.games
        return value.get(opponent, 0) if isinstance(value, dict) else value


class PretrainSection(Schema):
    """Imitation warm start: teacher games recorded, then cloned into the policy."""

    decisions: Count = 0
    teacher: Spec = "heuristic"
    opponents: dict[Spec, Weight] = Field(default_factory=lambda: {"random": 1.0}, min_length=1)
    epochs: Positive = 4
    batch_size: Positive = 256
    learning_rate: PositiveFloat = 1e-3
    value_weight: Annotated[float, Field(ge=0)] = 0.5
    # 0: the teacher's games fit the critic only (with ppo.init_net: the policy is the
    # network's already, the critic would otherwise start from nothing)
    policy_weight: Annotated[float, Field(ge=0)] = 1.0
    workers: Positive = 2
    agreement_games: Count = 0  # held-out heuristic games scoring the imitation (agreement.py)

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, opponents: dict[str, float]) -> dict[str, float]:
        if sum(opponents.values()) <= 0:
            raise ValueError(f"needs weights with a positive sum, got {opponents}")
        return opponents


class TrainConfig(Config):
    """A ``perikles-train`` config (docs/training.md, "Configuration")."""

    name: str = "run"
    seed: Count = 0
    out: str = "runs"
    env: EnvSection = Field(default_factory=EnvSection)
    reward: RewardSection = Field(default_factory=RewardSection)
    opponents: OpponentSection = Field(default_factory=OpponentSection)
    ppo: PPOSection = Field(default_factory=PPOSection)
    pretrain: PretrainSection = Field(default_factory=PretrainSection)
    train: TrainSection = Field(default_factory=TrainSection)
    eval: EvalSection = Field(default_factory=EvalSection)

    @model_validator(mode="before")
    @classmethod
    def _empty_sections(cls, data: Any) -> Any:
        """A section written with no keys (``pretrain:``) takes its defaults."""
        if not isinstance(data, dict):
            return data
        sections = {k for k, f in cls.model_fields.items() if isinstance(f.annotation, type)
                    and issubclass(f.annotation, Schema)}
        return {k: {} if v is None and k in sections else v for k, v in data.items()}

    _name = field_validator("name")(plain_folder_name)
    _out = field_validator("out")(folder_path)

    @model_validator(mode="after")
    def _across_sections(self) -> TrainConfig:
        if self.env.vector == "native":  # fails here, before any work, where it cannot run
            from .native_vec_env import choose_vector

            choose_vector("native", self.opponents.weights, self.env.backend)
        if self.ppo.action_head == "battle" and "battle" not in self.env.features:
            raise FieldError(
                "ppo.action_head", "battle reads the battle block: set env.features: [battle]"
            )
        if self.ppo.action_head == "scoring" and self.env.features[-1:] != ["actions"]:
            raise FieldError(
                "ppo.action_head",
                "scoring reads the per-action block, which must come last: "
                "end env.features with actions",
            )
        if self.ppo.learner == "lean" and self.ppo.action_head != "scoring":
            raise FieldError("ppo.learner", "lean needs ppo.action_head: scoring")
        if self.ppo.trunk and self.ppo.action_head != "scoring":
            raise FieldError("ppo.trunk", "a shared trunk needs ppo.action_head: scoring")
        if self.ppo.init_net is not None:
            if self.ppo.trunk:
                raise FieldError(
                    "ppo.init_net", "the search network has no shared trunk: set ppo.trunk: []"
                )
            if self.ppo.action_head != "scoring":
                raise FieldError("ppo.init_net", "needs ppo.action_head: scoring (the network's)")
            if self.pretrain.decisions > 0 and self.pretrain.policy_weight > 0:
                raise FieldError(
                    "ppo.init_net",
                    "starts from a trained policy: set pretrain.decisions: 0, or "
                    "pretrain.policy_weight: 0 to fit only the critic on the teacher's games",
                )
            self._check_init_net()
        return self

    def _check_init_net(self) -> None:
        """The network file is read here, before any work: it must be the policy that
        ``ppo`` describes."""
        from perikles_env.agents.ppo_file import ModelFileError
        from perikles_env.agents.search.net_file import load_net

        try:
            settings = load_net(self.ppo.init_net_path()).settings
        except ModelFileError as exc:
            raise FieldError("ppo.init_net", str(exc)) from exc
        mine = (list(self.env.features), list(self.ppo.net_arch), self.ppo.activation)
        theirs = (list(settings.features), list(settings.policy_arch), settings.activation)
        if mine != theirs or list(settings.value_arch) != list(self.ppo.net_arch):
            raise FieldError(
                "ppo.init_net",
                f"the network has features {theirs[0]}, policy {theirs[1]}, value "
                f"{list(settings.value_arch)}, {theirs[2]}; env.features, ppo.net_arch and "
                f"ppo.activation say {mine[0]}, {mine[1]}, {mine[2]}",
            )

    def reward_config(self) -> RewardConfig:
        return self.reward.reward_config()


def config_from_dict(
    data: dict[str, Any] | None, overrides: list[str] | None = None
) -> TrainConfig:
    """A checked config from plain data (a YAML file's mapping) and ``--override`` texts."""
    return build_with_overrides(TrainConfig, data, overrides)


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read and validate a YAML training config; errors name the file and the key."""
    return load_file(TrainConfig, path, overrides)
