"""PettingZoo AEC environment for Perikles (see ``aec.raw_env`` for the full table), and
the rewards every env pays (``rewards.py``).

The package is ``perikles_env.environment``: a subpackage named ``perikles_env.env`` would
shadow the ``perikles_env.env()`` factory function.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from ..analysis.observation import LAYOUT, OBS_SIZE, encode_observation, observation_space
from ..registration import PETTINGZOO_ID as ENV_ID
from .aec import raw_env
from .rewards import REWARD_MODES, RewardConfig, RewardTracker, final_rewards


class PeriklesOrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing wrapper, with ``last()`` answered by ``raw_env`` in one
    call. Why: the inherited ``last()`` reads five attributes through the wrappers'
    ``__getattr__`` chain, which cost ~5 % of a random-play decision. Same checks, same
    results."""

    def last(self, observe: bool = True) -> Any:
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset()")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        """As PettingZoo's, except that an action other than ``None`` once every agent is
        done raises ``IllegalActionError`` (PettingZoo only warns): a loop that keeps
        stepping a finished game has a bug, and no move may be silently dropped."""
        if self._has_reset and not self.env.agents and action is not None:
            self.env.step(action)  # raises: the game is over and every agent is done
        super().step(action)


def env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> Any:
    """The wrapped environment (PettingZoo's order enforcing wrapper over ``raw_env``)."""
    return PeriklesOrderEnforcing(
        raw_env(num_players=num_players, render_mode=render_mode, **options)
    )


__all__ = [
    "ENV_ID",
    "LAYOUT",
    "OBS_SIZE",
    "REWARD_MODES",
    "RewardConfig",
    "RewardTracker",
    "encode_observation",
    "env",
    "final_rewards",
    "observation_space",
    "raw_env",
]
