"""Tianshou drives the PettingZoo AEC env through its ``PettingZooEnv``: docs/ecosystem.md's
example runs as written and every collected action is legal. Needs the ``interop`` extra;
skipped without it."""

from __future__ import annotations

import ast

import pytest

pytest.importorskip("tianshou")

import numpy as np  # noqa: E402
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

from perikles_env import perikles_v0  # noqa: E402
from tests.ecosystem_examples import run_example  # noqa: E402


def test_tianshou_example_in_the_docs_runs_as_written() -> None:
    episodes, returns = run_example("tianshou").strip().splitlines()[-2:]
    words = episodes.split()
    assert words[:2] == ["episodes", "2"] and int(words[3]) > 200, episodes
    rows = ast.literal_eval(returns.removeprefix("returns per seat "))
    assert len(rows) == 2 and all(len(r) == 3 and abs(sum(r)) < 1e-6 for r in rows), rows


def test_collected_actions_are_legal_and_seats_take_turns() -> None:
    env = PettingZooEnv(perikles_v0.env(num_players=4))
    policy = MultiAgentPolicy({
        agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(env.action_space)
        for agent in env.agents
    })
    buffer = VectorReplayBuffer(2000, 1)
    collector = Collector(policy, DummyVectorEnv([lambda: env]), buffer)
    stats = collector.collect(n_episode=1, reset_before_collect=True)
    batch, _ = buffer.sample(0)  # every stored transition, in order
    assert len(batch) == stats.n_collected_steps > 0
    masks = np.asarray(batch.obs.mask, dtype=bool)
    assert masks[np.arange(len(batch)), batch.act].all()
    assert set(batch.obs.agent_id) == set(env.agents)
    assert bool(batch.terminated[-1] or batch.truncated[-1])
