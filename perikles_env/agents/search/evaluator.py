"""What network-guided search asks of a network: the ``Evaluator`` protocol, plus the
uniform evaluator (no network: search on exact end-of-game values alone, benchmarks, tests).

An evaluator scores a batch of leaves. Row ``b`` is the observation of the player ``p`` to
act at that leaf, ``encode_with_features(game, p, features)`` (the C++ blocks on a
``NativeGame``), with his legal-action mask. It returns logits over every action id (entries
of illegal actions are ignored) and, per row, the predicted final win share of each seat
relative to the observer: ``values[b, k]`` belongs to seat ``(p + k) % n`` (``k = 0``: the
observer himself); columns past the game's player count ``n`` are ignored. ``obs`` and
``masks`` are views of the search's buffers, overwritten by the next batch.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ...analysis.observation import OFFSETS
from ...engine import NUM_ACTIONS
from ..base import AgentError

DEFAULT_FEATURES: tuple[str, ...] = ("battle", "actions")


class EvaluationError(AgentError):
    """An evaluator returned arrays of the wrong shape, type or with non-finite entries."""


class Evaluator(Protocol):
    num_players: int  # the values' columns: the seats of the largest table it evaluates
    players: tuple[int, ...]  # the counts it evaluates (optional: else num_players only)
    features: tuple[str, ...]

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """obs float32 [B, obs_size], masks bool [B, NUM_ACTIONS] -> (logits float32
        [B, NUM_ACTIONS], values float32 [B, num_players]) as the module docstring says."""
        ...


def players_of(obs: np.ndarray) -> np.ndarray:
    """The player count of each observation row (its ``num_players`` one-hot block)."""
    start, _ = OFFSETS["num_players"]
    return 3 + np.argmax(obs[:, start : start + 3], axis=1)


class UniformEvaluator:
    """Equal logits and an equal share 1/n for every seat: the prior is uniform over the
    legal actions and only end-of-game values tell moves apart. Deterministic."""

    def __init__(self, num_players: int = 5, features: tuple[str, ...] = DEFAULT_FEATURES) -> None:
        self.num_players = num_players
        self.players = tuple(range(3, num_players + 1))
        self.features = tuple(features)

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits = np.zeros((len(obs), NUM_ACTIONS), dtype=np.float32)
        values = np.zeros((len(obs), self.num_players), dtype=np.float32)
        n = players_of(obs)
        for k in range(self.num_players):
            values[:, k] = np.where(k < n, 1.0 / n, 0.0)
        return logits, values
