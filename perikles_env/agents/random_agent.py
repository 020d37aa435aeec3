"""The uniform random baseline: any allowed action, each with equal probability."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .base import Agent, legal_from_mask

if TYPE_CHECKING:
    from ..engine.game import Game


class RandomAgent(Agent):
    name = "random"
    uses_state = True
    read_only = True

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = legal_from_mask(action_mask)
        return int(legal[rng.integers(legal.size)])

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        legal = game.legal_actions()  # the acting player's own options (public + own pool)
        return legal[int(rng.integers(len(legal)))]
