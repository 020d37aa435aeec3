"""The single-agent training env on the C++ vector env: an SB3 ``VecEnv`` whose games and
random opponents run natively (``perikles_env.vector.VectorEnv``, docs/native.md).

It gives MaskablePPO what ``PeriklesSingleAgentEnv`` (single_agent/env.py) in the
Python-side vec envs gives it, for the configurations it supports:

* **seats**: the learner's seat fixed or drawn per game, the player count fixed or drawn
  per game from a list; every other seat is a uniform random player moved in C++ (no other
  opponent: ``native_problem`` says why a configuration cannot run here);
* **observations**: the same layout (``analysis/encoding.py``): the base observation
  encoded in C++, then the configured feature blocks (``battle``, ``actions``), which exist
  only in Python: computed per game from a ``NativeGame`` handle (a copy of that game);
  ``make_native_vec_env`` then splits the envs over worker processes;
* **rewards**: ``environment/rewards.py``'s ``RewardTracker`` (win share, VP margin,
  potential-based shaping) fed the per-seat VP the C++ env writes every step;
* **masks** from ``action_masks()`` (also through ``env_method``, as MaskablePPO asks);
* **truncation** at ``max_decisions`` engine decisions, as the single-agent env, with
  ``TimeLimit.truncated`` and the cut game's ``terminal_observation``;
* **infos**: ``decisions`` every step and, when a game ends, the single-agent env's
  ``outcome()`` keys (``win_share``, ``learner_vp``, ``scores``, ``winners``, ...), which
  ``callbacks.StatsCallback`` and ``VecMonitor`` read.

One difference: an illegal action raises ``IllegalActionError`` and changes no game (the
single-agent env ends the episode with ``illegal_action_penalty`` instead); MaskablePPO
never picks a masked action.

Determinism: ``seed(s)`` then ``reset()`` starts env i with game seed ``s + i``; everything
after that (later games, seats, player counts, opponents' moves) follows from those seeds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from perikles_env.analysis.encoding import FEATURE_BLOCKS, default_encoder
from perikles_env.engine import MAX_GAME_DECISIONS, NUM_ACTIONS, Game
from perikles_env.environment.rewards import RewardConfig, RewardTracker
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool

if TYPE_CHECKING:
    from perikles_env.vector import VecState

MASK_METHOD = "action_masks"
NATIVE_OPPONENT = "random"


def native_vec_available() -> bool:
    """True when the C++ vector env is built (``make native``)."""
    try:
        from perikles_env.vector import env  # noqa: F401
    except ImportError:
        return False
    return True


def unsupported_opponents(weights: Mapping[str, float]) -> list[str]:
    """The opponents with weight that the C++ env cannot move: all but ``random`` (others
    are Python agents, or networks, that would have to act between its steps)."""
    return [spec for spec, w in weights.items() if w > 0 and spec != NATIVE_OPPONENT]


def native_problem(weights: Mapping[str, float], backend: str | None) -> str | None:
    """Why the native vector env cannot run a configuration, or None when it can."""
    if backend == "python" or (backend is None and os.environ.get("PERIKLES_BACKEND") == "python"):
        return "the engine backend is python (env.backend or $PERIKLES_BACKEND)"
    others = unsupported_opponents(weights)
    if others:
        return (
            f"the native vector env moves only {NATIVE_OPPONENT!r} opponents; "
            f"this pool has {others}"
        )
    if not native_vec_available():
        return "the C++ vector env is not built (make native)"
    return None


def choose_vector(
    vector: str, weights: Mapping[str, float], backend: str | None
) -> tuple[str, str]:
    """``("native" | "python", why)`` for ``env.vector``: ``python``; ``native`` (raises
    ``InvalidConfigError`` where it cannot run); ``auto`` = native where it can run (every
    opponent with weight random, the C++ vector env built, the engine backend not
    python), else python. Measurements in docs/results.md."""
    if vector == "python":
        return "python", "env.vector is python"
    problem = native_problem(weights, backend)
    if vector == "native":
        if problem:
            raise InvalidConfigError(f"env.vector: native cannot run this config: {problem}")
        return "native", "env.vector is native"
    if problem:
        return "python", f"auto: {problem}"
    return "native", "auto: every opponent is random"


def check_pool(opponents: OpponentPool | str | Sequence[str] | Mapping[str, float]) -> None:
    """``InvalidConfigError`` for an opponent pool the native env cannot play."""
    pool = OpponentPool.of(opponents)
    others = unsupported_opponents(dict(zip(pool.specs, pool.weights, strict=True)))
    if others:
        raise InvalidConfigError(
            f"the native vector env plays only {NATIVE_OPPONENT!r} opponents, not {others}; "
            "use env.vector: python for this opponent pool"
        )


def make_native_vec_env(num_envs: int, workers: int, seed: int = 0, **kwargs: Any) -> VecEnv:
    """``num_envs`` native envs (``NativeVecEnv`` arguments in ``kwargs``): with feature
    blocks, split over ``workers`` processes (``vec_env.ShardedVecEnv``), since those blocks
    are Python work; without them in this process (the C++ step is cheaper than shipping
    observations between processes). Env ``i`` starts from seed ``seed + i`` either way."""
    from .vec_env import ShardedVecEnv

    shards = min(workers, num_envs) if kwargs.get("features") else 1
    if shards == 1:
        return NativeVecEnv(num_envs, seed=seed, **kwargs)
    bounds = [num_envs * k // shards for k in range(shards + 1)]
    return ShardedVecEnv(
        [
            partial(NativeVecEnv, b - a, seed=seed + a, **kwargs)
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ]
    )


class NativeVecEnv(VecEnv):
    """``num_envs`` single-agent games against random players, stepped in C++."""

    def __init__(
        self,
        num_envs: int,
        num_players: int | Sequence[int] = 4,
        learner_seat: int | None = None,
        reward: RewardConfig | dict[str, Any] | str | None = None,
        max_decisions: int = MAX_GAME_DECISIONS,
        features: Sequence[str] = (),
        seed: int = 0,
        threads: int = 1,
    ) -> None:
        from perikles_env.vector import VectorEnv

        counts = [num_players] if isinstance(num_players, int) else list(num_players)
        self.vector = VectorEnv(
            num_envs,
            counts,
            opponents=NATIVE_OPPONENT,
            learner_seat=learner_seat,
            threads=threads,
            max_decisions=min(max_decisions, MAX_GAME_DECISIONS),  # Game.is_truncated's limit
        )
        encoder = default_encoder(features)
        self.features = encoder.features
        self.blocks = [FEATURE_BLOCKS[name][0] for name in self.features]
        self.reward_config = RewardConfig.from_value(reward)
        self.seed_base = seed
        super().__init__(num_envs, encoder.space, gym.spaces.Discrete(NUM_ACTIONS))
        self.base_size = self.vector.obs_size
        self._obs = np.zeros((num_envs, encoder.space.shape[0]), dtype=np.float32)
        # each env's learner reward, replaced by every new game (_new_episode)
        self._trackers = [RewardTracker(self.reward_config, None, 0)] * num_envs
        self._learner = np.zeros(num_envs, dtype=np.int32)
        self._players = np.zeros(num_envs, dtype=np.int32)
        self._actions: np.ndarray | None = None
        self._state: VecState | None = None  # the vector env's buffers, after reset()

    # ---- stepping -----------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        seeds = [self.seed_base + i if s is None else s for i, s in enumerate(self._seeds)]
        state = self._state = self.vector.reset(seeds)
        self._reset_seeds()
        for i in range(self.num_envs):
            self._new_episode(i, state)
        self.reset_infos = [self._base_info(i, 0) for i in range(self.num_envs)]
        return self._observe(state)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)  # checked by VectorEnv.step (typed errors)

    def step_wait(self) -> VecEnvStepReturn:
        if self._state is None or self._actions is None:
            raise RuntimeError("call reset() before step()")
        actions, self._actions = self._actions, None
        state = self._state = self.vector.step(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        infos: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            learner = self._learner[i]
            terminated, truncated = state.terminated[i], state.truncated[i]
            done = terminated or truncated
            info = self._base_info(i, int(state.decisions[i]))
            if done:
                info.update(self._outcome(i, state, bool(terminated)))
            tracker = self._trackers[i]
            if tracker.pays(bool(terminated)):  # in double precision (C++ writes float32)
                scores = state.final_scores[i] if done else state.scores[i]
                winners = info["winners"] if terminated else ()
                n = int(self._players[i])
                rewards[i] = tracker.step_scores(scores[:n].tolist(), bool(terminated), winners)
            if done:
                info["TimeLimit.truncated"] = bool(truncated)
                info["terminal_observation"] = self._final_observation(i, learner)
                self._new_episode(i, state)
            infos.append(info)
        dones = state.terminated | state.truncated
        self.reset_infos = [self._base_info(i, 0) if dones[i] else {} for i in range(self.num_envs)]
        return self._observe(state), rewards, dones.copy(), infos

    def action_masks(self) -> np.ndarray:
        """Boolean masks of every env's legal actions now, ``[num_envs, NUM_ACTIONS]``."""
        if self._state is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._state.action_mask.astype(bool)

    # ---- per env ------------------------------------------------------------------------

    def _new_episode(self, i: int, state: VecState) -> None:
        """Env i's row shows a new game at its learner's first decision."""
        learner = self._learner[i] = state.current[i]
        n = self._players[i] = state.players[i]
        scores = state.scores[i, :n].tolist()
        self._trackers[i] = RewardTracker.from_scores(self.reward_config, scores, int(learner))

    def _base_info(self, i: int, decisions: int) -> dict[str, Any]:
        return {
            "learner_seat": int(self._learner[i]),
            "num_players": int(self._players[i]),
            "decisions": decisions,
        }

    def _outcome(self, i: int, state: VecState, terminated: bool) -> dict[str, Any]:
        """The keys of ``PeriklesSingleAgentEnv.outcome()`` for the game env i just ended."""
        n, learner = int(self._players[i]), int(self._learner[i])
        scores = state.final_scores[i, :n].tolist()
        winners: list[int] = []
        if terminated:  # winners share +1 (> 0); an all-way tie pays everyone 0
            paid = np.flatnonzero(state.rewards[i, :n] > 0).tolist()
            winners = paid or list(range(n))
        return {
            "terminal": terminated,
            "truncated": not terminated,
            "scores": scores,
            "winners": winners,
            "win_share": 1.0 / len(winners) if learner in winners else 0.0,
            "learner_vp": scores[learner],
            "opponents": [NATIVE_OPPONENT] * (n - 1),
        }

    def _observe(self, state: VecState) -> np.ndarray:
        self._obs[:, : self.base_size] = state.observation
        if self.blocks:
            for i in range(self.num_envs):
                self._write_blocks(self._obs[i], self.vector.game(i), int(state.current[i]))
        return self._obs.copy()

    def _write_blocks(self, row: np.ndarray, game: Game, player: int) -> None:
        start = self.base_size
        for block in self.blocks:
            values = block(game, player)
            row[start : start + len(values)] = values
            start += len(values)

    def _final_observation(self, i: int, learner: int) -> np.ndarray:
        """The learner's observation of the game env i just ended or cut."""
        from perikles_env.vector.encoder import encode_into

        game = self.vector.game(i, finished=True)
        row = np.zeros(self._obs.shape[1], dtype=np.float32)
        encode_into(game, learner, row[: self.base_size])
        self._write_blocks(row, game, learner)
        return row

    # ---- the rest of the VecEnv interface ------------------------------------------------

    def env_method(
        self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        """``action_masks`` (one mask per env) and ``set_opponents`` (self-play callbacks;
        accepted while the pool holds only random players)."""
        envs = self._get_indices(indices)
        if method_name == MASK_METHOD:
            masks = self.action_masks()
            return [masks[i] for i in envs]
        if method_name == "set_opponents":
            check_pool(*args, **kwargs)
            return [None for _ in envs]
        raise AttributeError(f"NativeVecEnv has no per-env method {method_name!r}")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in (MASK_METHOD, "set_opponents", "render_mode")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if not self.has_attr(attr_name):
            raise AttributeError(f"NativeVecEnv has no per-env attribute {attr_name!r}")
        value = None if attr_name == "render_mode" else getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"NativeVecEnv's envs have no settable attribute {attr_name!r}")

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        self._state = None
