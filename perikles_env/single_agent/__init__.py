"""Single-agent views of Perikles for single-agent RL libraries (docs/training.md).

``PeriklesSingleAgentEnv``: one learner seat against opponents drawn from an
``OpponentPool``; rewards from the learner's point of view (``RewardConfig``).
``LearnerTable``: a game whose learner seats wait for actions from outside while the other
seats' agents move, shared with the RLlib env.
"""

from ..environment.rewards import RewardConfig
from .env import PeriklesSingleAgentEnv, make_env_fn
from .learner_table import LearnerTable
from .opponents import OpponentPool

__all__ = ["LearnerTable", "OpponentPool", "PeriklesSingleAgentEnv", "RewardConfig", "make_env_fn"]
