"""Perikles, version 0, the PettingZoo way: ``from perikles_env import perikles_v0``.

* ``perikles_v0.env(**options)``: the AEC environment in PettingZoo's order-enforcing
  wrapper (what ``api_test`` and most libraries expect);
* ``perikles_v0.raw_env(**options)``: the same without the wrapper;
* ``perikles_v0.parallel_env(**options)``: a ``ParallelEnv`` view for libraries that only
  speak the parallel API. Perikles is turn-based, so each ``step(actions)`` applies only the
  action of the agent to act (``infos[agent]["active_agent"]``; the others' entries are
  ignored) -- PettingZoo's ``turn_based_aec_to_parallel``.

Options are those of ``raw_env`` (docs/env.md). The version changes whenever a change could
alter results: rules, observations, rewards or action ids.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .environment import env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]


def parallel_env(**options: Any) -> Any:
    """A turn-based ``ParallelEnv`` over ``env(**options)``."""
    return turn_based_aec_to_parallel(env(**options))
