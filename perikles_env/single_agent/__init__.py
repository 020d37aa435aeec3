"""Single-agent views of Perikles for single-agent RL libraries (docs/training.md).

``PeriklesSingleAgentEnv``: one learner seat against opponents drawn from an
``OpponentPool``; rewards from the learner's point of view (``RewardConfig``).
"""

from .env import PeriklesSingleAgentEnv, make_env_fn
from .opponents import OpponentPool
from .rewards import RewardConfig

__all__ = ["OpponentPool", "PeriklesSingleAgentEnv", "RewardConfig", "make_env_fn"]
