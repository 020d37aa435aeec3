"""The single-agent training env on the C++ vector env: an SB3 ``VecEnv`` whose games and
league opponents run natively (``perikles_env.vector.VectorEnv``, docs/native.md).

It gives MaskablePPO what ``PeriklesSingleAgentEnv`` (single_agent/env.py) in the
Python-side vec envs gives it, for the configurations it supports:

* **seats**: the learner's seat fixed or drawn per game, the player count fixed or drawn
  per game from a list; every other seat draws an opponent of the pool per game (each seat
  on its own, or one for the table in a ``same_table`` share of games, as
  ``OpponentPool.sample``): ``random`` and ``heuristic[:params]`` players move in C++
  inside the step (``native/players/heuristic.hpp``, the same decisions as the Python heuristic),
  ``ppo:<path>`` networks (the self-play snapshots, ``make train`` models) and the search
  network ``net[:<path>]`` are Python controllers: all rows waiting for one network are
  answered by one forward pass (``act_batch``); a network must read the env's feature
  blocks and play its player counts (refused up front otherwise).
  Anything else (IS-MCTS, say) cannot run here: ``native_problem`` says why;
* **observations**: the same layout (``analysis/encoding.py``): the base observation and
  the configured feature blocks (``battle``, ``actions``), all written in C++
  (byte-identical to the Python blocks);
* **rewards**: ``environment/rewards.py``'s ``RewardTracker`` (win share, VP margin,
  potential-based shaping) fed the per-seat VP the C++ env writes every step;
* **masks** from ``action_masks()`` (also through ``env_method``, as MaskablePPO asks);
* **truncation** at ``max_decisions`` engine decisions, as the single-agent env, with
  ``TimeLimit.truncated`` and the cut game's ``terminal_observation``;
* **infos**: ``decisions`` every step and, when a game ends, the single-agent env's
  ``outcome()`` keys (``win_share``, ``learner_vp``, ``scores``, ``winners``,
  ``opponents``, ...), which ``callbacks.StatsCallback`` and ``VecMonitor`` read.

One difference: an illegal action raises ``IllegalActionError`` and changes no game (the
single-agent env ends the episode with ``illegal_action_penalty`` instead); MaskablePPO
never picks a masked action.

Determinism: ``seed(s)`` then ``reset()`` starts env i with game seed ``s + i``; everything
after that (later games, seats, player counts, opponents and their moves, snapshots'
samples) follows from those seeds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from perikles_env.agents import AgentError, check_plays
from perikles_env.analysis.encoding import default_encoder
from perikles_env.engine import MAX_GAME_DECISIONS, NUM_ACTIONS
from perikles_env.environment.rewards import RewardConfig, RewardTracker
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool
from perikles_env.vector.league import NATIVE_SPECS as NATIVE_NAMES  # played in C++

from .self_play_pool import SELF_KEYS

if TYPE_CHECKING:
    from perikles_env.agents.ppo import PPOAgent
    from perikles_env.agents.search.net_agent import NetAgent
    from perikles_env.vector import VecState

    NetworkAgent = PPOAgent | NetAgent

MASK_METHOD = "action_masks"
PYTHON_NAMES = ("ppo", "net")  # networks: Python controllers, one batch per network
SLOTS = 8  # Python controllers: the networks a pool may hold at once (snapshots)


def spec_name(spec: str) -> str:
    return spec.partition(":")[0].strip()


def native_vec_available() -> bool:
    """True when the C++ vector env is built (``make native``)."""
    try:
        from perikles_env.vector import env  # noqa: F401
    except ImportError:
        return False
    return True


def unsupported_opponents(weights: Mapping[str, float]) -> list[str]:
    """The opponents with weight that the native env cannot play: engine-level Python
    agents (IS-MCTS, ...). Native players, networks and the self-play entries can."""
    return [
        spec
        for spec, w in weights.items()
        if w > 0 and spec not in SELF_KEYS and spec_name(spec) not in NATIVE_NAMES + PYTHON_NAMES
    ]


def native_problem(weights: Mapping[str, float], backend: str | None) -> str | None:
    """Why the native vector env cannot run a configuration, or None when it can."""
    if backend == "python" or (backend is None and os.environ.get("PERIKLES_BACKEND") == "python"):
        return "the engine backend is python (env.backend or $PERIKLES_BACKEND)"
    others = unsupported_opponents(weights)
    if others:
        return (
            "the native vector env plays random, heuristic, ppo and net (network) opponents; "
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
    opponent with weight native or a network, the C++ vector env built, the engine backend
    not python), else python. Measurements in docs/results.md."""
    if vector == "python":
        return "python", "env.vector is python"
    problem = native_problem(weights, backend)
    if vector == "native":
        if problem:
            raise InvalidConfigError(f"env.vector: native cannot run this config: {problem}")
        return "native", "env.vector is native"
    if problem:
        return "python", f"auto: {problem}"
    return "native", "auto: every opponent is native or a network"


def make_native_vec_env(num_envs: int, workers: int, seed: int = 0, **kwargs: Any) -> VecEnv:
    """``num_envs`` native envs (``NativeVecEnv`` arguments in ``kwargs``) in this process,
    their games and native opponents stepped on ``workers`` C++ threads."""
    return NativeVecEnv(num_envs, seed=seed, threads=max(1, workers), **kwargs)


class Networks:
    """The pool's networks (``ppo:`` and ``net`` specs) on the env's Python controllers
    1..SLOTS: a spec keeps its slot while it stays in the pool, so its games keep their
    player. Each must read the env's observation (``features``) and play its ``counts``."""

    def __init__(self, features: Sequence[str] = (), counts: Sequence[int] = (4,)) -> None:
        self.specs: list[str | None] = [None] * SLOTS
        self.agents: dict[str, NetworkAgent] = {}
        self.features = tuple(features)
        self.counts = tuple(counts)

    def assign(self, specs: Sequence[str], busy: set[int]) -> list[int]:
        """Slot of each spec: a spec keeps its slot; a new one takes a slot that no game in
        progress seats (``busy``), so no running game changes player."""
        from perikles_env.agents import make_agent

        wanted = list(dict.fromkeys(specs))
        for k, spec in enumerate(self.specs):
            if spec is not None and spec not in wanted and k not in busy:
                self.specs[k] = None
        for spec in wanted:
            if spec not in self.specs:
                if None not in self.specs:
                    raise InvalidConfigError(
                        f"at most {SLOTS} network opponents at once (games in progress "
                        f"included), got {wanted}"
                    )
                self.specs[self.specs.index(None)] = spec
            if spec not in self.agents:
                self.agents[spec] = self._checked(spec, make_agent(spec))
        for spec in list(self.agents):
            if spec not in self.specs:
                del self.agents[spec]
        return [self.specs.index(s) for s in specs]

    def _checked(self, spec: str, agent: Any) -> NetworkAgent:
        """``agent`` if it reads this env's observations and plays its player counts."""
        features = tuple(getattr(agent, "features", ()))
        if features != self.features:
            raise InvalidConfigError(
                f"opponent {spec} reads the feature blocks {list(features)}, this env "
                f"writes {list(self.features)}: set env.features to {list(features)}")
        try:
            for n in self.counts:
                check_plays(agent, n)
        except AgentError as exc:
            raise InvalidConfigError(f"opponent {spec}: {exc}") from None
        return agent  # type: ignore[no-any-return]

    def act(
        self, slot: int, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        spec = self.specs[slot]
        if spec is None:
            raise RuntimeError(f"a game waits for network slot {slot}, which holds none")
        return self.agents[spec].act_batch(obs, masks, rng)


class NativeVecEnv(VecEnv):
    """``num_envs`` single-agent games against a league, stepped in C++."""

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
        opponents: OpponentPool | str | Sequence[str] | Mapping[str, float] = "random",
    ) -> None:
        from perikles_env.vector import VectorEnv

        pool = self._checked(opponents)
        encoder = default_encoder(features)
        counts = [num_players] if isinstance(num_players, int) else list(num_players)
        # The native players are fixed here (their weights may change); networks come and
        # go on the SLOTS Python controllers.
        self.native_specs = tuple(s for s in pool.specs if spec_name(s) in NATIVE_NAMES)
        self.slot_names = tuple(f"network_{k}" for k in range(SLOTS))
        league = {s: 1.0 for s in self.native_specs + self.slot_names}
        self.vector = VectorEnv(
            num_envs,
            counts,
            opponents=league,
            controllers=self.slot_names,
            learner_seat=learner_seat,
            threads=threads,
            max_decisions=min(max_decisions, MAX_GAME_DECISIONS),  # Game.is_truncated's limit
            features=features,
        )
        self.networks = Networks(encoder.features, counts)
        self.set_opponents(pool)
        self.features = encoder.features
        self.reward_config = RewardConfig.from_value(reward)
        self.seed_base = seed
        self._rng = np.random.default_rng(seed)  # the networks' samples
        super().__init__(num_envs, encoder.space, gym.spaces.Discrete(NUM_ACTIONS))
        # each env's learner reward, replaced by every new game (_new_episode)
        self._trackers = [RewardTracker(self.reward_config, None, 0)] * num_envs
        self._learner = np.zeros(num_envs, dtype=np.int32)
        self._players = np.zeros(num_envs, dtype=np.int32)
        self._actions: np.ndarray | None = None
        self._state: VecState | None = None  # the vector env's buffers, after reset()
        # the last step's results per row (rows are stepped together or by step_rows_async)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._dones = np.zeros(num_envs, dtype=bool)
        self._infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._stepped = np.zeros(num_envs, dtype=bool)  # rows stepped since step_wait()
        self._row_step: tuple[Future[None], np.ndarray] | None = None  # and its rows
        self._executor: ThreadPoolExecutor | None = None

    # ---- the league ---------------------------------------------------------------------

    @staticmethod
    def _checked(opponents: Any) -> OpponentPool:
        pool = OpponentPool.of(opponents)
        others = unsupported_opponents(dict(zip(pool.specs, pool.weights, strict=True)))
        if others:
            raise InvalidConfigError(
                f"the native vector env plays random, heuristic, ppo and net opponents, not "
                f"{others}; use env.vector: python for this opponent pool"
            )
        return pool

    def set_opponents(self, opponents: Any) -> None:
        """A new pool for the games dealt from now on (self-play snapshots): its native
        players must be among those this env was made with; its networks take free
        Python controllers (one whose network still plays a game in progress stays)."""
        pool = self._checked(opponents)
        extra = [
            s for s in pool.specs if spec_name(s) in NATIVE_NAMES and s not in self.native_specs
        ]
        if extra:
            raise InvalidConfigError(
                f"native opponents {extra} were not in this env's first pool "
                f"{list(self.native_specs)}; make a new env for them"
            )
        networks = [s for s in pool.specs if spec_name(s) not in NATIVE_NAMES]
        slots = self.networks.assign(networks, self._busy_slots())
        weights = dict.fromkeys(self.native_specs + self.slot_names, 0.0)
        for spec, w in zip(pool.specs, pool.weights, strict=True):
            native = spec in self.native_specs
            weights[spec if native else self.slot_names[slots[networks.index(spec)]]] += w
        self.vector.set_weights(weights, pool.same_table)

    def _busy_slots(self) -> set[int]:
        """Network slots a game in progress still seats."""
        if self._state_or_none() is None:
            return set()
        busy = set()
        for i in range(self.num_envs):
            for spec in self.vector.seat_specs(i):
                if spec in self.slot_names:
                    busy.add(self.slot_names.index(spec))
        return busy

    def _state_or_none(self) -> VecState | None:
        return getattr(self, "_state", None)

    def _spec_of(self, seat_spec: str) -> str:
        """A seat's spec as the pool names it (a network slot as its ``ppo:`` spec)."""
        if seat_spec in self.slot_names:
            return self.networks.specs[self.slot_names.index(seat_spec)] or seat_spec
        return seat_spec

    def _play_networks(self, state: VecState, on_step: Any = None) -> VecState:
        """Step the rows waiting for networks (one forward pass per network per round)
        until every row waits for the learner; ``on_step(state)`` after each step."""
        while True:
            waiting = state.controller != 0
            if not waiting.any():
                return state
            actions = np.full(self.num_envs, -1, dtype=np.int32)
            for controller in np.unique(state.controller[waiting]):
                rows = np.flatnonzero(state.controller == controller)
                actions[rows] = self.networks.act(
                    int(controller) - 1,
                    state.observation[rows],
                    state.action_mask[rows].astype(bool),
                    self._rng,
                )
            state = self.vector.step(actions)
            if on_step is not None:
                on_step(state)

    # ---- stepping -----------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        self.wait_rows()
        self._stepped[:] = False
        seeds = [self.seed_base + i if s is None else s for i, s in enumerate(self._seeds)]
        state = self._state = self._play_networks(self.vector.reset(seeds))
        self._reset_seeds()
        for i in range(self.num_envs):
            self._new_episode(i, state)
        self.reset_infos = [self._base_info(i, 0) for i in range(self.num_envs)]
        return state.observation.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)  # checked by VectorEnv.step (typed errors)

    def step_wait(self) -> VecEnvStepReturn:
        """The step of every env: the one ``step_async`` asked for, or, after
        ``step_rows_async`` has stepped every row once, the rows' steps together."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if self._row_step is not None or self._stepped.any():
            self.wait_rows()
            if not self._stepped.all():
                missing = np.flatnonzero(~self._stepped).tolist()
                raise RuntimeError(f"step_rows_async has not stepped rows {missing} yet")
            self._stepped[:] = False
        else:
            if self._actions is None:
                raise RuntimeError("call step_async() before step_wait()")
            actions, self._actions = self._actions, None
            self._advance(actions, np.arange(self.num_envs), allow_skip=False)
        return (
            self._state.observation.copy(),
            self._rewards.copy(),
            self._dones.copy(),
            list(self._infos),
        )

    def step_rows_async(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """Start stepping the envs ``rows`` (``actions[k]`` for env ``rows[k]``) on a
        background thread, after the previous rows' step has finished; the other rows'
        games, observations and masks stay as they are, so a learner may read them
        (``observe_rows``) and choose their actions meanwhile. Once every row has been
        stepped, ``step_wait()`` returns the whole step, as if ``step_async`` had asked
        for all of it (each row's reward, done and info are its own step's)."""
        if self._state is None:
            raise RuntimeError("call reset() before step_rows_async()")
        self.wait_rows()
        rows = np.asarray(rows, dtype=np.int64)
        actions = np.asarray(actions)
        if rows.ndim != 1 or actions.shape != rows.shape or actions.dtype.kind not in "iu":
            raise InvalidConfigError(
                f"rows and actions must be two 1-d integer arrays of one length, got shapes "
                f"{rows.shape} and {actions.shape} ({actions.dtype})"
            )
        if len(rows) and (rows.min() < 0 or rows.max() >= self.num_envs):
            raise InvalidConfigError(f"rows must be env indices in 0..{self.num_envs - 1}")
        if (actions < 0).any():
            raise InvalidConfigError("an action id must be >= 0 (every row given acts)")
        again = rows[self._stepped[rows]]
        if len(again) or len(np.unique(rows)) != len(rows):
            raise InvalidConfigError(
                f"rows {sorted(set(again.tolist()))} were already given since the last "
                "step_wait(); give each row once per step"
            )
        full = np.full(self.num_envs, -1, dtype=np.int64)
        full[rows] = actions
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="native-rows")
        self._stepped[rows] = True
        self._row_step = (self._executor.submit(self._advance, full, rows, True), rows)

    def wait_rows(self) -> None:
        """Wait for the rows ``step_rows_async`` is stepping. Its error, if any, is raised
        here, and those rows count as not given (an illegal action changes no game)."""
        if self._row_step is not None:
            (running, rows), self._row_step = self._row_step, None
            try:
                running.result()
            except BaseException:
                self._stepped[rows] = False
                raise

    def observe_rows(self, rows: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """The envs ``rows``' observations and boolean masks now, safe to read while
        ``step_rows_async`` steps other rows: copies for an index array, views for a slice
        (numpy's indexing), which show the rows as they are until those rows step."""
        if self._state is None:
            raise RuntimeError("call reset() before observe_rows()")
        return self._state.observation[rows], self._state.action_mask[rows].view(bool)

    def _advance(self, actions: np.ndarray, rows: np.ndarray, allow_skip: bool) -> None:
        """Step the envs ``rows`` (every other row's action is -1) until each waits for its
        learner again, and write their rewards, dones and infos."""
        state = self.vector.step(actions, allow_skip=allow_skip)
        ended: dict[int, dict[str, Any]] = {}  # row -> the learner's game that ended
        decisions = np.zeros(self.num_envs, dtype=np.int64)

        def collect(state: VecState) -> None:
            decisions[:] += state.decisions  # 0 in the rows not stepped
            for i in np.flatnonzero(state.terminated | state.truncated):
                if int(i) not in ended:  # a later game of the row had no learner decision
                    ended[int(i)] = self._ended(int(i), state)

        collect(state)
        state = self._state = self._play_networks(state, collect)  # other rows wait: 0
        for i in rows.tolist():
            info = self._base_info(i, int(decisions[i]))
            end = ended.get(i)
            tracker = self._trackers[i]
            terminated = bool(end and end["terminal"])
            self._rewards[i] = 0.0
            if tracker.pays(terminated):  # in double precision (C++ writes float32)
                scores = end["scores"] if end else state.scores[i, : self._players[i]].tolist()
                winners = end["winners"] if terminated else ()
                self._rewards[i] = tracker.step_scores(scores, terminated, winners)
            self._dones[i] = bool(end)
            if end:
                info.update(end)
                info["TimeLimit.truncated"] = not terminated
                self._new_episode(i, state)
            self._infos[i] = info
            self.reset_infos[i] = self._base_info(i, 0) if end else {}

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

    def _ended(self, i: int, state: VecState) -> dict[str, Any]:
        """The keys of ``PeriklesSingleAgentEnv.outcome()`` for the game env i just ended,
        and its ``terminal_observation`` (read now: a later step may replace it)."""
        n, learner = int(self._players[i]), int(self._learner[i])
        terminated = bool(state.terminated[i])
        scores = state.final_scores[i, :n].tolist()
        winners: list[int] = []
        if terminated:  # winners share +1 (> 0); an all-way tie pays everyone 0
            paid = np.flatnonzero(state.rewards[i, :n] > 0).tolist()
            winners = paid or list(range(n))
        seats = self.vector.seat_specs(i, finished=True)
        return {
            "terminal": terminated,
            "truncated": not terminated,
            "scores": scores,
            "winners": winners,
            "win_share": 1.0 / len(winners) if learner in winners else 0.0,
            "learner_vp": scores[learner],
            "opponents": [self._spec_of(s) for q, s in enumerate(seats) if q != learner],
            "terminal_observation": self._final_observation(i, learner),
        }

    def _final_observation(self, i: int, learner: int) -> np.ndarray:
        """The learner's observation of the game env i just ended or cut."""
        from perikles_env.vector.encoder import encode_with_features

        game = self.vector.game(i, finished=True)
        return encode_with_features(game, learner, self.features)

    # ---- the rest of the VecEnv interface ------------------------------------------------

    def env_method(
        self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        """``action_masks`` (one mask per env) and ``set_opponents`` (self-play callbacks:
        one new pool for all envs)."""
        envs = self._get_indices(indices)
        if method_name == MASK_METHOD:
            masks = self.action_masks()
            return [masks[i] for i in envs]
        if method_name == "set_opponents":
            self.set_opponents(*args, **kwargs)
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
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._row_step = None
        self._state = None
