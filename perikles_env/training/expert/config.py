"""The schema of an expert-iteration config (``perikles-search-train --config search_smoke``;
docs/training.md, "Expert iteration (search + network)").

As for ``perikles-train``: every key is declared with its type, bounds and default, and a
bad value is one ``InvalidConfigError`` line naming the key (``search.sims: must be >= 0,
got -1``). ``configs/schema/search.json`` is this schema for editors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, create_model, field_validator, model_validator

from perikles_env.agents.search import SearchParams
from perikles_env.agents.search.network import MAX_LAYERS, MAX_WIDTH, NetSettings
from perikles_env.analysis.knobs import knob_fields, pydantic_field
from perikles_env.engine import data as D
from perikles_env.errors import InvalidConfigError
from perikles_env.jobs.config_fields import check_spec
from perikles_env.jobs.config_schema import (
    Config,
    FieldError,
    Schema,
    build_with_overrides,
    load_file,
)
from perikles_env.jobs.run_folder import folder_path, plain_folder_name
from perikles_env.vector.seat_draw import MAX_WEIGHT

from .population import POPULATION_KEYS, SELF

Positive = Annotated[int, Field(gt=0)]
Count = Annotated[int, Field(ge=0)]
PositiveFloat = Annotated[float, Field(gt=0)]
Weight = Annotated[float, Field(ge=0, le=MAX_WEIGHT)]  # vector/seat_draw.py
Width = Annotated[int, Field(ge=1, le=MAX_WIDTH)]
Arch = Annotated[list[Width], Field(min_length=1, max_length=MAX_LAYERS)]


class NetSection(Schema):
    """The network built when there is no warm start (random weights)."""

    num_players: Annotated[int, Field(ge=D.MIN_PLAYERS, le=D.MAX_PLAYERS)] = 4
    # the counts it plays (self-play draws one per game); empty: num_players only
    players: list[Annotated[int, Field(ge=D.MIN_PLAYERS, le=D.MAX_PLAYERS)]] = Field(
        default_factory=list
    )
    policy_arch: Arch = Field(default_factory=lambda: [128, 128])
    value_arch: Arch = Field(default_factory=lambda: [128, 128])
    activation: Literal["relu", "tanh"] = "relu"

    @field_validator("players")
    @classmethod
    def _sorted(cls, value: list[int]) -> list[int]:
        return sorted(set(value))

    @model_validator(mode="after")
    def _counts(self) -> NetSection:
        if self.players and self.players[-1] != self.num_players:
            raise FieldError(
                "players", f"the largest count must be num_players ({self.num_players})"
            )
        return self

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(self.players) or (self.num_players,)

    def settings(self) -> NetSettings:
        return NetSettings(
            self.num_players, ("battle", "actions"), tuple(self.policy_arch),
            tuple(self.value_arch), self.activation, self.player_counts,
        )


class WarmStartSection(Schema):
    """Where the first network comes from: a ``make train`` model (its policy copied, its
    value fitted on ``games`` recorded games), a search network file, or neither."""

    ppo: str | None = None
    net: str | None = None
    games: Positive = 1000
    epochs: Positive = 4

    @model_validator(mode="after")
    def _one_source(self) -> WarmStartSection:
        if self.ppo and self.net:
            raise FieldError("net", "give warm_start.ppo or warm_start.net, not both")
        return self

    def check_files(self) -> None:
        """``InvalidConfigError`` naming the key whose file is missing (checked when a run
        starts, not when one resumes: the warm start is then long done)."""
        for key in ("ppo", "net"):
            value = getattr(self, key)
            if value is not None and not Path(value).is_file():
                raise InvalidConfigError(f"warm_start.{key}: no such file: {value!r}")


# The search of self-play: ``SearchParams``' knobs (docs/agents.md, "Search with a
# network") but ``seconds`` and ``leaves_per_search`` (self-play searches by simulations,
# one leaf per search); ``batch`` defaults to 32 here (``SearchParams``: 16).
SEARCH_SECTION_LEFT_OUT = ("seconds", "leaves_per_search")
SEARCH_SECTION_DEFAULTS: dict[str, Any] = {"batch": 32}


class _SearchSectionBase(Schema):
    """The search of self-play (``SearchParams``: docs/agents.md, "Search with a network")."""

    def params(self) -> SearchParams:
        return SearchParams(**self.model_dump())


SearchSection = create_model(
    "SearchSection",
    __base__=_SearchSectionBase,
    __doc__=_SearchSectionBase.__doc__,
    **{  # type: ignore[call-overload]
        name: pydantic_field(k, SEARCH_SECTION_DEFAULTS.get(name))
        for name, k in knob_fields(SearchParams)
        if name not in SEARCH_SECTION_LEFT_OUT
    },
)


class PastSection(Schema):
    """The league's ``past`` seats: a snapshot of the network every ``every`` iterations
    (and the first network), the newest ``keep`` in the league (population.py)."""

    every: Positive = 1
    keep: Annotated[int, Field(ge=1, le=64)] = 8


class PrioritySection(Schema):
    """Prioritised fictitious self-play: each opponent's weight times ``(1 - p) ** power``,
    ``p`` the searcher's pairwise score against it, decayed by ``decay`` per iteration;
    ``power`` 0 keeps the configured weights (population.py)."""

    power: Annotated[float, Field(ge=0, le=8)] = 0.0
    decay: Annotated[float, Field(gt=0, le=1)] = 0.7


class SelfPlaySection(Schema):
    """The games of one iteration: how many, how many at once, and who sits where."""

    games: Positive = 64
    parallel: Positive = 32  # games at once, over all workers
    workers: Annotated[int, Field(ge=1, le=256)] = 1  # processes (one core each)
    # self, past, personalities (population.py) or agent specs, by weight
    league: dict[str, Weight] = Field(default_factory=lambda: {SELF: 1.0}, min_length=1)
    past: PastSection = Field(default_factory=PastSection)
    priority: PrioritySection = Field(default_factory=PrioritySection)

    @field_validator("league")
    @classmethod
    def _specs(cls, league: dict[str, float]) -> dict[str, float]:
        for key in league:
            if key not in POPULATION_KEYS:
                check_spec(key)
        if sum(league.values()) <= 0:
            raise ValueError(f"needs weights with a positive sum, got {league}")
        return league


class ReplaySection(Schema):
    """The training data: the positions of the last ``window`` iterations."""

    window: Positive = 4


class LearnSection(Schema):
    """Adam on ``SearchNet.loss`` over the replay window after each iteration's games;
    ``anchor_weight`` > 0 adds that many times KL(first network's policy || the policy), a
    pull towards the policy the run started from (learner.py says why)."""

    epochs: Positive = 2
    batch_size: Positive = 256
    learning_rate: PositiveFloat = 3e-4
    value_weight: Annotated[float, Field(ge=0)] = 1.0
    anchor_weight: Annotated[float, Field(ge=0)] = 0.0


class BudgetSection(Schema):
    """When the run ends: after ``iterations``, or once ``minutes`` are used (checked
    between iterations), whichever comes first."""

    iterations: Positive = 10
    minutes: PositiveFloat | None = None


class EvalSection(Schema):
    """Every ``every`` iterations (and after the last), the search network plays
    ``games`` 4-seat games against each opponent filling the other seats."""

    every: Count = 1
    games: Count = 20
    opponents: list[str] = Field(
        default_factory=lambda: ["heuristic", "ismcts:sims=30"], min_length=1
    )
    sims: Annotated[int, Field(ge=0, le=1 << 20)] = 32
    raw: bool = True  # also the network without search (net:<path>)
    workers: Positive = 1
    seed: Count = 1000

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, opponents: list[str]) -> list[str]:
        return [check_spec(spec) for spec in opponents]


class ExpertConfig(Config):
    """A ``perikles-search-train`` config (docs/training.md, "Expert iteration")."""

    name: str = "search"
    seed: Count = 0
    out: str = "runs"
    torch_threads: Positive = 1
    keep_checkpoints: Positive = 2
    progress_bar: bool = True
    net: NetSection = Field(default_factory=NetSection)
    warm_start: WarmStartSection = Field(default_factory=WarmStartSection)
    search: SearchSection = Field(default_factory=SearchSection)
    selfplay: SelfPlaySection = Field(default_factory=SelfPlaySection)
    replay: ReplaySection = Field(default_factory=ReplaySection)
    learn: LearnSection = Field(default_factory=LearnSection)
    budget: BudgetSection = Field(default_factory=BudgetSection)
    eval: EvalSection = Field(default_factory=EvalSection)

    _name = field_validator("name")(plain_folder_name)
    _out = field_validator("out")(folder_path)

    @model_validator(mode="before")
    @classmethod
    def _empty_sections(cls, data: Any) -> Any:
        """A section written with no keys (``warm_start:``) takes its defaults."""
        if not isinstance(data, dict):
            return data
        return {k: {} if v is None and k in _SECTIONS else v for k, v in data.items()}

    @model_validator(mode="after")
    def _search_params(self) -> ExpertConfig:
        try:
            self.search.params()
        except InvalidConfigError as exc:
            raise FieldError("search", str(exc)) from None
        return self

    @model_validator(mode="after")
    def _anchor_needs_warm_start(self) -> ExpertConfig:
        if self.learn.anchor_weight > 0 and not (self.warm_start.net or self.warm_start.ppo):
            raise FieldError(
                "learn", "anchor_weight > 0 pulls towards the warm start's policy: give "
                "warm_start.net or warm_start.ppo"
            )
        return self


_SECTIONS = {
    "net", "warm_start", "search", "selfplay", "replay", "learn", "budget", "eval",
}


def config_from_dict(
    data: dict[str, Any] | None, overrides: list[str] | None = None
) -> ExpertConfig:
    """A checked config from plain data and ``--override`` texts (``search.sims=128``)."""
    return build_with_overrides(ExpertConfig, data, overrides)


def load_config(path: str | Path, overrides: list[str] | None = None) -> ExpertConfig:
    """Read and validate a YAML expert-iteration config; errors name the file and the key."""
    return load_file(ExpertConfig, path, overrides)
