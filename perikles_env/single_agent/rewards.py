"""The learner's rewards, from the one module that defines every env's rewards
(``perikles_env.environment.rewards``), under the name the single-agent API gives them."""

from ..environment.rewards import (
    RewardConfig,
    RewardTracker,
    margin_of_scores,
    potential,
    potential_of_scores,
    vp_margin,
    win_reward,
)

__all__ = [
    "RewardConfig",
    "RewardTracker",
    "margin_of_scores",
    "potential",
    "potential_of_scores",
    "vp_margin",
    "win_reward",
]
