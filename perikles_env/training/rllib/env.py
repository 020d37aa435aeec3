"""The PettingZoo AEC env as an RLlib ``MultiAgentEnv`` (RLlib's new API stack).

* **Agents.** ``player_0 .. player_{n-1}`` as in the AEC env. Each episode the learner
  seats (every seat, or ``n - opponent_seats`` of them, drawn from the env's seeded
  generator) get observations and act through RLlib; the other seats are played inside the
  env by agents drawn from an ``OpponentPool`` (``random``, ``heuristic``, a frozen
  ``rllib:<checkpoint>`` or ``ppo:<path>``), through the opponent loop the single-agent env
  uses (``single_agent/learner_table.py``), each move applied through the AEC env.
* **Turns.** Only the learner seat to act gets an observation; rewards come only at the end
  (the AEC env's ``reward`` mode), when every learner seat gets its final observation,
  reward and ``terminated=True``.
* **Observations** are ``{"observations": Box(float32), "action_mask": Box(float32 0/1)}``,
  the keys RLlib's ``ActionMaskingTorchRLModule`` reads; the vector is the AEC env's
  observation (``perikles_env.analysis.observation``), the mask its legal-action mask.
* **Illegal actions.** The AEC env runs with ``illegal_action="penalize"``: an illegal or
  out-of-range action is never applied and never replaced; the game ends at once, the
  offender gets ``illegal_penalty`` and every other learner seat 0, and ``info`` names the
  action. Masked PPO never samples one; RLlib's env checker does (it steps
  ``action_space.sample()`` unmasked), so the checker sees this documented termination.
  A non-integer action, or an action for a seat that is not to act, raises
  ``IllegalActionError`` (a bug in the caller, not a move).
* **Truncation** after ``max_decisions`` engine decisions (``engine.MAX_GAME_DECISIONS``), or
  at the engine's own limit (``Game.is_truncated``) when ``max_decisions`` is above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ...agents.rllib_policy import MASK_KEY, OBS_KEY
from ...engine import MAX_GAME_DECISIONS, NUM_ACTIONS
from ...engine import data as D
from ...environment.aec import raw_env
from ...errors import InvalidConfigError
from ...single_agent.learner_table import LEARNER, AgentCache, LearnerTable
from ...single_agent.opponents import OpponentPool


def _int_option(options: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidConfigError(f"{name} must be an int in {low}..{high}, got {value!r}")
    return value


class PeriklesMultiAgentEnv(MultiAgentEnv):
    """Options (a dict, as RLlib passes ``env_config``): ``num_players`` (4), ``reward``
    (``"win"``), ``opponent_seats`` (0: every seat learns), ``opponents`` (an
    ``OpponentPool`` value, ``"random"``), ``illegal_penalty`` (-1.0), ``max_decisions``."""

    OPTIONS = (
        "num_players",
        "reward",
        "opponent_seats",
        "opponents",
        "illegal_penalty",
        "max_decisions",
    )

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        options = dict(config or {})
        unknown = set(options) - set(self.OPTIONS)
        if unknown:
            raise InvalidConfigError(
                f"unknown env option(s) {sorted(unknown)}; known: {list(self.OPTIONS)}"
            )
        n = _int_option(options, "num_players", 4, D.MIN_PLAYERS, D.MAX_PLAYERS)
        self.opponent_seats = _int_option(options, "opponent_seats", 0, 0, n - 1)
        self.max_decisions = _int_option(
            options, "max_decisions", MAX_GAME_DECISIONS, 1, 10 * MAX_GAME_DECISIONS
        )
        self.pool = OpponentPool.of(options.get("opponents", "random"))
        self._aec = raw_env(
            num_players=n,
            reward=options.get("reward", "win"),
            illegal_action="penalize",
            illegal_penalty=options.get("illegal_penalty", -1.0),
            record_events=False,
        )
        aec_obs = self._aec.observation_space("player_0")
        obs_space = gym.spaces.Dict(
            {
                OBS_KEY: aec_obs["observation"],
                MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=(NUM_ACTIONS,), dtype=np.float32),
            }
        )
        self.possible_agents = list(self._aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        super().__init__()
        self._rng = np.random.default_rng()
        self._opponents = AgentCache()
        self.seat_specs: list[str] = []  # "learner" or the opponent's spec, per seat
        self._table: LearnerTable | None = None

    # ---- RLlib API -----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        aec = self._aec
        n = len(self.possible_agents)
        while True:
            aec.reset(seed=int(self._rng.integers(2**63)))
            opponent_seats = set(
                self._rng.choice(n, size=self.opponent_seats, replace=False).tolist()
            )
            specs = iter(self.pool.sample(self._rng, self.opponent_seats))
            self.seat_specs = [next(specs) if s in opponent_seats else LEARNER for s in range(n)]
            self.agents = [a for s, a in enumerate(self.possible_agents) if s not in opponent_seats]
            table = self._table = LearnerTable(
                aec._require_game(),
                self.seat_specs,
                self._opponents,
                self._rng,
                self.max_decisions,
                apply=aec.step,  # the AEC env keeps its bookkeeping and checks learner moves
                ended=self._game_over,  # a penalized illegal action ends the game
            )
            table.play_agents()
            if not table.terminated:
                break  # else the game ended before any learner decided: deal again
        agent = aec.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec, table = self._aec, self._table
        if table is None:
            raise RuntimeError("call reset() before step()")
        agent = aec.agent_selection
        if set(action_dict) != {agent}:  # the same typed error as the AEC env's act()
            raise aec._error(
                aec._require_game(),
                agent,
                action_dict,
                f"expected an action for {agent} only (the seat to act), got {sorted(action_dict)}",
            )
        table.step(action_dict[agent])  # penalize mode: an illegal action ends the game
        if table.over:
            return self._final(truncated=not table.terminated)
        nxt = aec.agent_selection
        return (
            {nxt: self._observe(nxt)},
            {nxt: 0.0},
            {"__all__": False},
            {"__all__": False},
            {nxt: {}},
        )

    # ---- internals -----------------------------------------------------------------------

    def _game_over(self) -> bool:
        """Every seat terminated: the game ended, or a penalized illegal action ended it."""
        aec = self._aec
        return all(aec.terminations[a] for a in aec.agents)

    @property
    def decisions(self) -> int:
        """Decisions made in this episode, learners' and opponents'."""
        return 0 if self._table is None else self._table.decisions

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self._aec.observe(agent)
        return {OBS_KEY: raw["observation"], MASK_KEY: raw["action_mask"].astype(np.float32)}

    def _final(self, truncated: bool) -> tuple[dict, dict, dict, dict, dict]:
        """Every learner seat's last observation, its reward (0 if truncated) and info."""
        aec = self._aec
        obs = {a: self._observe(a) for a in self.agents}
        rewards = {a: 0.0 if truncated else float(aec.rewards[a]) for a in self.agents}
        infos = {a: dict(aec.infos[a]) for a in self.agents}
        for info in infos.values():
            info.pop(MASK_KEY, None)
        terminateds = {a: not truncated for a in self.agents}
        terminateds["__all__"] = not truncated
        truncateds = {a: truncated for a in self.agents}
        truncateds["__all__"] = truncated
        return obs, rewards, terminateds, truncateds, infos


__all__ = ["MASK_KEY", "OBS_KEY", "PeriklesMultiAgentEnv"]
