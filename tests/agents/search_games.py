"""Seeded game states for the search tests (tests/agents/test_search.py,
tests/native/test_search_core.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from perikles_env.engine import GameConfig, new_game


def game_at(seed: int = 3, decisions: int = 40, n: int = 4, backend: str = "native") -> Any:
    """A seeded random game after at least ``decisions`` random actions, at a decision with
    three or more legal actions."""
    g = new_game(GameConfig(num_players=n), seed=seed, backend=backend)
    rng = np.random.default_rng(seed)
    while g.decisions < decisions or len(g.legal_actions()) < 3:
        legal = g.legal_actions()
        g.apply_action(legal[rng.integers(len(legal))])
    return g


def after(game: Any, action: int) -> Any:
    """A copy of ``game`` after ``action`` and the forced decisions that follow it."""
    g = game.clone()
    g.apply_action(action)
    while not g.is_terminal and len(g.legal_actions()) == 1:
        g.apply_action(g.legal_actions()[0])
    return g
