"""Shared pytest set-up for the perikles_env test suite."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Stable-Baselines3 makes a ``SB3-<time>`` folder under the system's temporary folder
    for every ``learn()`` without a logger (the docs' examples, direct MaskablePPO tests);
    ``SB3_LOGDIR`` keeps them in pytest's own temporary folder, which pytest cleans up."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))


@pytest.fixture
def four_player_network(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> str:
    """The shipped network (``net``, ``search``) replaced by one that plays 4-player games
    only, as a user's own ``net:<file>`` may: what every tool must refuse at 3 and 5."""
    from perikles_env.agents.search import net_agent
    from tests.agents.helpers import write_four_player_network

    path = write_four_player_network(tmp_path_factory.mktemp("net") / "four.pkn")
    monkeypatch.setattr(net_agent, "SHIPPED_NET", type(net_agent.SHIPPED_NET)(path))
    return path
