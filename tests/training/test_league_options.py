"""Bad league options: weights such as ``1e308`` or
``10**400``, wrong types and bad specs are one ``InvalidConfigError`` naming the field, in
every place that takes a league (the PPO, expert-iteration and RLlib configs, the opponent
pool and the vector env's league), never a ``ValueError`` from numpy, an ``OverflowError``,
an ``AttributeError`` or a ``TypeError``."""

from __future__ import annotations

import pytest

from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool
from perikles_env.training.expert.config import config_from_dict as expert_config
from perikles_env.training.ppo.config import config_from_dict as train_config
from perikles_env.vector.league import League
from perikles_env.vector.seat_draw import MAX_WEIGHT

BAD_WEIGHTS = [1e308, 10**400, float("inf"), float("nan"), -1.0, "1", None, True]


@pytest.mark.parametrize("weight", BAD_WEIGHTS, ids=repr)
def test_a_bad_weight_in_a_ppo_config_names_it(weight) -> None:
    with pytest.raises(InvalidConfigError, match=r"opponents\.weights\.heuristic"):
        train_config({"opponents": {"weights": {"random": 1.0, "heuristic": weight}}})


@pytest.mark.parametrize("weight", BAD_WEIGHTS, ids=repr)
def test_a_bad_weight_in_an_expert_config_names_it(weight) -> None:
    with pytest.raises(InvalidConfigError, match=r"selfplay\.league\.self"):
        expert_config({"selfplay": {"league": {"self": weight}}})


@pytest.mark.parametrize("weight", BAD_WEIGHTS, ids=repr)
def test_a_bad_weight_in_a_pool_or_league_is_one_typed_error(weight) -> None:
    league = {"random": 1.0, "heuristic": weight}
    for build in (
        lambda: OpponentPool.of(league),
        lambda: OpponentPool(("random", "heuristic"), (1.0, weight)),
        lambda: League.of(league),
    ):
        with pytest.raises(InvalidConfigError, match="weights must be finite numbers"):
            build()


def test_the_largest_weight_is_taken_and_draws() -> None:
    import numpy as np

    pool = OpponentPool.of({"random": MAX_WEIGHT, "heuristic": MAX_WEIGHT})
    assert set(pool.sample(np.random.default_rng(0), 40)) == {"random", "heuristic"}
    assert League.of({"random": MAX_WEIGHT, "heuristic": 1.0}).weights == (MAX_WEIGHT, 1.0)


@pytest.mark.parametrize(
    "opponents, message",
    [
        ({1: 1.0}, "opponent spec must be a non-empty string"),
        ([["random"]], "opponent spec must be a non-empty string"),
        ({"": 1.0}, "opponent spec must be a non-empty string"),
        ({"random": 0.0}, "positive sum"),
        (5, "opponents must be"),
        ({"heuristic:aggression=1e400": 1.0}, "aggression must be in"),
    ],
)
def test_bad_specs_in_a_pool_or_league_are_one_typed_error(opponents, message) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        League.of(opponents)
    with pytest.raises(InvalidConfigError):
        OpponentPool.of(opponents)


def test_bad_league_arguments_are_one_typed_error() -> None:
    league = League.of({"random": 1.0, "heuristic": 1.0})
    with pytest.raises(InvalidConfigError, match="weights must be a"):
        league.reweighted(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigError, match="same_table"):
        league.reweighted({"random": 1.0}, float("nan"))
    with pytest.raises(InvalidConfigError, match="controllers"):
        League.of("random", 0.0, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigError, match="specs must be a list"):
        OpponentPool("random", (1.0,))  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigError, match="same_table"):
        OpponentPool(("random",), (1.0,), "x")  # type: ignore[arg-type]


def test_a_bad_weight_in_an_rllib_config_names_the_field() -> None:
    rllib = pytest.importorskip("perikles_env.training.rllib.config")
    for weight in (1e308, 10**400):
        with pytest.raises(InvalidConfigError, match="opponents"):
            rllib.RLlibConfig(opponents={"random": 1.0, "heuristic": weight})
