"""The observation encoder the wrapper shares with ``perikles_env.environment`` and
``ppo:<path>``.

One source of truth: the learner sees exactly what the PettingZoo env's ``observe`` gives
that player (``perikles_env/environment/observation.py``, docs/observation.md), and a
trained policy is later fed by the same encoder (``agents/ppo.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from ..engine.game import Game


@dataclass(frozen=True)
class Encoder:
    encode: Callable[[Game, int], np.ndarray]
    space: gym.spaces.Box


def default_encoder() -> Encoder:
    """A fresh encoder (incremental: keep one per env or agent, not one per call)."""
    from ..environment.observation import ObservationEncoder, observation_space

    return Encoder(ObservationEncoder().encode, observation_space())
