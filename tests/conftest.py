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
