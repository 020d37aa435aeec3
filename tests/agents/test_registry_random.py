"""Agent registry specs and the uniform random agent."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import (
    AgentError,
    RandomAgent,
    agent_names,
    make_agent,
    parse_spec,
    register_agent,
    split_specs,
)
from perikles_env.engine import NUM_ACTIONS
from perikles_env.errors import PeriklesError
from tests.agents.helpers import play


def test_parse_spec() -> None:
    assert parse_spec("random") == ("random", {})
    assert parse_spec("heuristic:aggression=0.8, spite=1") == (
        "heuristic",
        {"aggression": 0.8, "spite": 1},
    )
    assert parse_spec("ismcts:sims=200,rollout=heuristic") == (
        "ismcts",
        {"sims": 200, "rollout": "heuristic"},
    )
    assert parse_spec("ppo:runs/a,b/model.zip") == ("ppo", {"path": "runs/a,b/model.zip"})
    assert parse_spec("ppo:m.zip,deterministic=false") == (
        "ppo",
        {"path": "m.zip", "deterministic": False},
    )
    assert set(agent_names()) >= {"random", "heuristic", "ismcts", "ppo"}


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "alphazero",
        "heuristic:aggression",
        "heuristic:bogus=1",
        "random:x=1",
        "ppo:no/such/model.zip",
        "ismcts:sims=0",
        "ismcts:rollout=greedy",
        "heuristic:aggression=9",
    ],
)
def test_bad_specs_raise_typed_errors(spec: str) -> None:
    with pytest.raises(PeriklesError) as info:  # AgentError or InvalidConfigError
        make_agent(spec)
    assert isinstance(info.value, ValueError)


def test_split_specs_keeps_options_with_their_agent() -> None:
    """Command lines list agents with commas, and options use commas too."""
    assert split_specs("heuristic, random,random") == ["heuristic", "random", "random"]
    assert split_specs("ismcts:sims=30,rollout=heuristic,heuristic:aggression=0.8,random") == [
        "ismcts:sims=30,rollout=heuristic",
        "heuristic:aggression=0.8",
        "random",
    ]
    assert split_specs("ppo:runs/lr=1e-3/model.zip,deterministic=false,random") == [
        "ppo:runs/lr=1e-3/model.zip,deterministic=false",
        "random",
    ]
    assert parse_spec(split_specs("ppo:m.zip,deterministic=false,random")[0]) == (
        "ppo",
        {"path": "m.zip", "deterministic": False},
    )


def test_register_agent() -> None:
    register_agent("always_random", lambda **kw: RandomAgent())
    assert isinstance(make_agent("always_random"), RandomAgent)
    with pytest.raises(AgentError):
        register_agent("not a name", lambda **kw: RandomAgent())


def test_random_agent_respects_the_mask() -> None:
    agent = RandomAgent()
    rng = np.random.default_rng(0)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    allowed = [3, 17, 500, 956]
    mask[allowed] = 1
    picks = {agent.act(None, mask, rng) for _ in range(400)}
    assert picks == set(allowed)
    with pytest.raises(AgentError):
        agent.act(None, np.zeros(NUM_ACTIONS, dtype=np.int8), rng)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_games_are_legal_and_reproducible(n: int) -> None:
    a = [x for _, _, x in play(["random"] * n, seed=n)]
    b = [x for _, _, x in play(["random"] * n, seed=n)]
    assert a == b and len(a) > 100


def test_state_agents_refuse_observations() -> None:
    with pytest.raises(AgentError):
        make_agent("heuristic").act(None, np.ones(NUM_ACTIONS), np.random.default_rng(0))
