"""Single-agent views of Perikles for single-agent RL libraries (docs/training.md).

``PeriklesSingleAgentEnv``: one learner seat against opponents drawn from an
``OpponentPool``; rewards from the learner's point of view (``RewardConfig``). ``Table``:
the opponent loop it shares with the RLlib env.
"""

from ..environment.rewards import RewardConfig
from .env import PeriklesSingleAgentEnv, make_env_fn
from .opponents import OpponentPool
from .table import Table

__all__ = ["OpponentPool", "PeriklesSingleAgentEnv", "RewardConfig", "Table", "make_env_fn"]
