"""Training configuration: the YAML schema of ``configs/*.yaml``, validated with clear errors.

Every key is declared here, with its type and default; an unknown key, a wrong type or a
value out of range raises ``InvalidConfigError`` naming the key (``ppo.n_steps``).
Overrides from the command line (``--override ppo.learning_rate=1e-4``) are parsed as
YAML scalars and applied to the file's values before validation, so they are checked the
same way. See docs/training.md for the meaning of each key.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml

from perikles_env.agents import AgentError, make_agent
from perikles_env.analysis.encoding import check_features
from perikles_env.engine import MAX_GAME_DECISIONS
from perikles_env.engine import data as D
from perikles_env.engine.backend import resolve_backend
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import RewardConfig
from perikles_env.training.config_files import find_config
from perikles_env.training.run_folder import check_folder_name, check_out

SELF_LATEST = "self_latest"
SELF_PAST = "self_past"
SELF_KEYS = (SELF_LATEST, SELF_PAST)
# ppo.action_head -> the policy class (an allowed name of perikles_env.agents.ppo_policy)
ACTION_HEADS = {
    "flat": "MaskableActorCriticPolicy",
    "battle": "BattleGainPolicy",
    "scoring": "ActionScoringPolicy",
}


def _check_spec(spec: str) -> None:
    """Build the agent of a spec, so that unknown options and missing, damaged or unsafe
    ``ppo:`` model files fail at config time, before any work starts. Raises AgentError."""
    make_agent(spec)


@dataclass(frozen=True)
class EnvSection:
    num_players: int | list[int] = 4
    learner_seat: int | str = "random"
    illegal_action_penalty: float = -1.0
    max_decisions: int = MAX_GAME_DECISIONS
    features: list[str] = field(default_factory=list)
    backend: str | None = None  # engine of every game: auto | native | python (docs/native.md)
    vector: str = "auto"  # the training envs: auto | native (C++ vector env) | python

    @property
    def player_counts(self) -> tuple[int, ...]:
        """``num_players`` as a tuple, whether one count or a list was configured."""
        n = self.num_players
        return tuple(n) if isinstance(n, list) else (n,)

    def check(self) -> None:
        counts = self.player_counts
        if not counts or any(not D.MIN_PLAYERS <= n <= D.MAX_PLAYERS for n in counts):
            raise InvalidConfigError(
                f"env.num_players must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS} (or a list of "
                f"such), got {self.num_players!r}"
            )
        if isinstance(self.learner_seat, str):
            if self.learner_seat != "random":
                raise InvalidConfigError(
                    f"env.learner_seat must be 'random' or a seat index, got {self.learner_seat!r}"
                )
        elif not 0 <= self.learner_seat < min(counts):
            raise InvalidConfigError(
                f"env.learner_seat must be below the smallest player count {min(counts)}, "
                f"got {self.learner_seat}"
            )
        _positive("env.max_decisions", self.max_decisions)
        try:
            check_features(self.features)
        except InvalidConfigError as exc:
            raise InvalidConfigError(f"env.features: {exc}") from exc
        _choice("env.vector", self.vector, ("auto", "native", "python"))
        if self.backend is not None:
            try:
                resolve_backend(self.backend)
            except InvalidConfigError as exc:
                raise InvalidConfigError(f"env.{exc}") from exc

    @property
    def seat(self) -> int | None:
        return None if isinstance(self.learner_seat, str) else self.learner_seat


@dataclass(frozen=True)
class OpponentSection:
    weights: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_every: int = 0
    max_snapshots: int = 5
    snapshot_deterministic: bool = False
    same_table: float = 0.0  # share of games whose opponent seats all play one spec

    def check(self) -> None:
        if not self.weights:
            raise InvalidConfigError("opponents.weights is empty")
        for key, w in self.weights.items():
            if key not in SELF_KEYS:
                try:
                    _check_spec(key)
                except AgentError as exc:
                    raise InvalidConfigError(f"opponents.weights: {exc}") from exc
            if w < 0:
                raise InvalidConfigError(f"opponents.weights.{key} must be >= 0, got {w}")
        fixed = sum(w for k, w in self.weights.items() if k not in SELF_KEYS)
        if fixed <= 0:
            raise InvalidConfigError(
                "opponents.weights needs a positive weight on a non-self opponent (random, "
                "heuristic, ...): there is no snapshot before the first one is taken"
            )
        uses_self = any(self.weights.get(k, 0) > 0 for k in SELF_KEYS)
        if uses_self and self.snapshot_every <= 0:
            raise InvalidConfigError(
                "opponents.snapshot_every must be > 0 when self_latest/self_past have weight"
            )
        if self.snapshot_every < 0:
            raise InvalidConfigError(
                f"opponents.snapshot_every must be >= 0, got {self.snapshot_every}"
            )
        _positive("opponents.max_snapshots", self.max_snapshots)
        if not 0 <= self.same_table <= 1:
            raise InvalidConfigError(
                f"opponents.same_table must be in [0, 1], got {self.same_table}"
            )


@dataclass(frozen=True)
class PPOSection:
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    action_head: str = "flat"

    def check(self) -> None:
        _positive_float("ppo.learning_rate", self.learning_rate)
        _choice("ppo.lr_schedule", self.lr_schedule, ("constant", "linear"))
        _positive("ppo.n_steps", self.n_steps)
        _positive("ppo.batch_size", self.batch_size)
        _positive("ppo.n_epochs", self.n_epochs)
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise InvalidConfigError(f"ppo.{name} must be in (0, 1], got {value}")
        _positive_float("ppo.clip_range", self.clip_range)
        for name in ("ent_coef", "vf_coef"):
            if getattr(self, name) < 0:
                raise InvalidConfigError(f"ppo.{name} must be >= 0, got {getattr(self, name)}")
        _positive_float("ppo.max_grad_norm", self.max_grad_norm)
        if self.target_kl is not None:
            _positive_float("ppo.target_kl", self.target_kl)
        if not self.net_arch or any(w < 1 for w in self.net_arch):
            raise InvalidConfigError(
                f"ppo.net_arch must be a non-empty list of layer widths, got {self.net_arch}"
            )
        _choice("ppo.activation", self.activation, ("tanh", "relu"))
        _choice("ppo.action_head", self.action_head, tuple(ACTION_HEADS))


@dataclass(frozen=True)
class TrainSection:
    total_timesteps: int = 100_000
    max_minutes: float | None = None
    n_envs: int = 16
    vec_env: str = "auto"
    workers: int = 2
    checkpoint_every: int = 0
    keep_checkpoints: int = 3
    torch_threads: int = 1
    update_threads: int | None = None  # torch threads during PPO's update (None: torch_threads)
    progress_bar: bool = True
    tensorboard: bool = True

    def check(self) -> None:
        _positive("train.total_timesteps", self.total_timesteps)
        if self.max_minutes is not None:
            _positive_float("train.max_minutes", self.max_minutes)
        _positive("train.n_envs", self.n_envs)
        _choice("train.vec_env", self.vec_env, ("auto", "batched", "subproc", "dummy"))
        _positive("train.workers", self.workers)
        if self.checkpoint_every < 0:
            raise InvalidConfigError(
                f"train.checkpoint_every must be >= 0, got {self.checkpoint_every}"
            )
        _positive("train.keep_checkpoints", self.keep_checkpoints)
        _positive("train.torch_threads", self.torch_threads)
        if self.update_threads is not None:
            _positive("train.update_threads", self.update_threads)


@dataclass(frozen=True)
class EvalSection:
    every: int = 0
    games: int | dict[str, int] = 40
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    players: int = 4
    final_games: int | dict[str, int] = 400
    final_players: list[int] = field(default_factory=lambda: [4])
    workers: int = 2
    seed: int = 1000
    agreement_games: int = 0  # held-out heuristic games scoring the final model's agreement

    def check(self) -> None:
        if self.every < 0:
            raise InvalidConfigError(f"eval.every must be >= 0, got {self.every}")
        if self.agreement_games < 0:
            raise InvalidConfigError(
                f"eval.agreement_games must be >= 0, got {self.agreement_games}"
            )
        for key in ("games", "final_games"):
            value = getattr(self, key)
            counts = value if isinstance(value, dict) else {"": value}
            if any(g < 0 for g in counts.values()):
                raise InvalidConfigError(f"eval.{key} must be >= 0, got {value}")
            unknown = set(counts) - set(self.opponents) - {""}
            if unknown:
                raise InvalidConfigError(
                    f"eval.{key} names {sorted(unknown)}, which are not in eval.opponents"
                )
        if not self.opponents:
            raise InvalidConfigError("eval.opponents is empty")
        for spec in self.opponents:
            try:
                _check_spec(spec)
            except AgentError as exc:
                raise InvalidConfigError(f"eval.opponents: {exc}") from exc
        for n in [self.players, *self.final_players]:
            if not D.MIN_PLAYERS <= n <= D.MAX_PLAYERS:
                raise InvalidConfigError(
                    f"eval player counts must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, got {n}"
                )
        if not self.final_players:
            raise InvalidConfigError("eval.final_players is empty")
        _positive("eval.workers", self.workers)
        if self.seed < 0:
            raise InvalidConfigError(f"eval.seed must be >= 0, got {self.seed}")

    def games_vs(self, opponent: str, final: bool = False) -> int:
        """Evaluation games against ``opponent`` (periodic or final): ``games`` /
        ``final_games`` are one count for every opponent or a count per opponent."""
        value = self.final_games if final else self.games
        return value.get(opponent, 0) if isinstance(value, dict) else value


@dataclass(frozen=True)
class PretrainSection:
    decisions: int = 0
    teacher: str = "heuristic"
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_weight: float = 0.5
    workers: int = 2
    agreement_games: int = 0  # held-out heuristic games scoring the imitation (agreement.py)

    def check(self) -> None:
        if self.decisions < 0:
            raise InvalidConfigError(f"pretrain.decisions must be >= 0, got {self.decisions}")
        for spec in [self.teacher, *self.opponents]:
            try:
                _check_spec(spec)
            except AgentError as exc:
                raise InvalidConfigError(f"pretrain: {exc}") from exc
        if (
            not self.opponents
            or any(w < 0 for w in self.opponents.values())
            or (sum(self.opponents.values()) <= 0)
        ):
            raise InvalidConfigError(
                f"pretrain.opponents needs weights >= 0 with a positive sum, got {self.opponents}"
            )
        _positive("pretrain.epochs", self.epochs)
        _positive("pretrain.batch_size", self.batch_size)
        _positive_float("pretrain.learning_rate", self.learning_rate)
        if self.value_weight < 0:
            raise InvalidConfigError(f"pretrain.value_weight must be >= 0, got {self.value_weight}")
        _positive("pretrain.workers", self.workers)
        if self.agreement_games < 0:
            raise InvalidConfigError(
                f"pretrain.agreement_games must be >= 0, got {self.agreement_games}"
            )


@dataclass(frozen=True)
class TrainConfig:
    name: str = "run"
    seed: int = 0
    out: str = "runs"
    env: EnvSection = field(default_factory=EnvSection)
    reward: RewardConfig = field(default_factory=RewardConfig)  # validated on creation
    opponents: OpponentSection = field(default_factory=OpponentSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    pretrain: PretrainSection = field(default_factory=PretrainSection)
    train: TrainSection = field(default_factory=TrainSection)
    eval: EvalSection = field(default_factory=EvalSection)

    def check(self) -> None:
        check_folder_name("name", self.name)
        check_out("out", self.out)
        if self.seed < 0:
            raise InvalidConfigError(f"seed must be >= 0, got {self.seed}")
        for f in dataclasses.fields(self):
            check = getattr(getattr(self, f.name), "check", None)
            if check is not None:
                check()
        if self.env.vector == "native":  # fails here, before any work, where it cannot run
            from .native_vec_env import choose_vector

            choose_vector("native", self.opponents.weights, self.env.backend)
        if self.ppo.action_head == "battle" and "battle" not in self.env.features:
            raise InvalidConfigError(
                "ppo.action_head: battle reads the battle block: set env.features: [battle]"
            )
        if self.ppo.action_head == "scoring" and self.env.features[-1:] != ["actions"]:
            raise InvalidConfigError(
                "ppo.action_head: scoring reads the per-action block, which must come last: "
                "end env.features with actions"
            )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ---- building and type checking ---------------------------------------------------------------


def _positive(name: str, value: int) -> None:
    if value < 1:
        raise InvalidConfigError(f"{name} must be a positive int, got {value}")


def _positive_float(name: str, value: float) -> None:
    if not value > 0:
        raise InvalidConfigError(f"{name} must be > 0, got {value}")


def _choice(name: str, value: str, options: tuple[str, ...]) -> None:
    if value not in options:
        raise InvalidConfigError(f"{name} must be one of {list(options)}, got {value!r}")


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _coerce(tp: Any, value: Any, key: str) -> Any:
    """Check ``value`` against the annotation ``tp`` (ints are accepted as floats)."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        for option in typing.get_args(tp):
            try:
                return _coerce(option, value, key)
            except InvalidConfigError:
                continue
        raise InvalidConfigError(f"{key} has the wrong type: {value!r} is not {_type_name(tp)}")
    if tp is type(None):
        if value is None:
            return None
    elif origin is list:
        if isinstance(value, list):
            (item,) = typing.get_args(tp)
            return [_coerce(item, v, f"{key}[{i}]") for i, v in enumerate(value)]
    elif origin is dict:
        if isinstance(value, dict):
            kt, vt = typing.get_args(tp)
            return {_coerce(kt, k, key): _coerce(vt, v, f"{key}.{k}") for k, v in value.items()}
    elif tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise InvalidConfigError(f"{key} must be a finite number, got {value!r}")
            return float(value)
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(value, tp):
        return value
    raise InvalidConfigError(f"{key} must be {_type_name(tp)}, got {value!r}")


def _build(cls: type, data: Any, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{prefix or 'the config'} must be a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        where = f" in {prefix}" if prefix else ""
        raise InvalidConfigError(f"unknown key(s) {unknown}{where}; known: {sorted(names)}")
    values = {}
    for name, value in data.items():
        key = f"{prefix}.{name}" if prefix else name
        tp = hints[name]
        if dataclasses.is_dataclass(tp):
            values[name] = _build(tp, value if value is not None else {}, key)
        else:
            values[name] = _coerce(tp, value, key)
    return cls(**values)


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"ppo.learning_rate=1e-4"`` -> ``(["ppo", "learning_rate"], 0.0001)``."""
    if "=" not in text:
        raise InvalidConfigError(f"override {text!r} is not key=value")
    key, raw = text.split("=", 1)
    path = [p for p in key.strip().split(".") if p]
    if not path:
        raise InvalidConfigError(f"override {text!r} has no key")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        raise InvalidConfigError(f"override {text!r}: bad value ({exc})") from exc
    value = _floats_in_yaml(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidConfigError(f"override {text!r}: {value} is not allowed")
    return path, value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    out = yaml.safe_load(yaml.safe_dump(data)) or {}
    for text in overrides:
        path, value = parse_override(text)
        node = out
        for part in path[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                raise InvalidConfigError(f"override {text!r}: {part} is not a section")
            node = child
        node[path[-1]] = value
    return out


def _floats_in_yaml(data: Any) -> Any:
    """YAML 1.1 reads ``3e-4`` (no dot) as a string; convert such numeric strings."""
    if isinstance(data, dict):
        return {k: _floats_in_yaml(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_floats_in_yaml(v) for v in data]
    if isinstance(data, str):
        try:
            return float(data) if any(c in data for c in "eE") else data
        except ValueError:
            return data
    return data


def config_from_dict(
    data: dict[str, Any] | None, overrides: list[str] | None = None
) -> TrainConfig:
    raw = apply_overrides(data or {}, overrides or [])
    config = _build(TrainConfig, _floats_in_yaml(raw), "")
    config.check()
    return config


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read and validate a YAML training config; errors name the file and the key."""
    p = find_config(path)
    try:
        data = yaml.safe_load(p.read_text()) or {}
    except yaml.YAMLError as exc:
        raise InvalidConfigError(f"{p}: not valid YAML ({exc})") from exc
    try:
        return config_from_dict(data, overrides)
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{p}: {exc}") from exc
