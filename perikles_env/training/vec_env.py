"""A vectorised env that runs several envs per worker process and ships the action masks
with every step.

Why: SB3's ``SubprocVecEnv`` runs one env per process and MaskablePPO asks every env for its
mask with a second round trip (``env_method("action_masks")``). On a 2-core machine with 16
envs that is 16 processes and 32 pipe round trips per step; ``DummyVecEnv`` avoids them but
uses one core. Here ``workers`` processes (one per core) each step their share of the envs
in turn and answer with observations, rewards, infos *and* masks in one message; the
``action_masks`` call is then answered from that cache. Results are identical to
``DummyVecEnv`` for the same seeds (each env keeps its own seeded generator).

``ShardedVecEnv`` does the same for whole ``VecEnv`` shards (the native vector env,
``native_vec_env.py``, split over the worker processes): identical to one ``VecEnv`` of
all the envs for the same seeds.
"""

from __future__ import annotations

import multiprocessing as mp
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from perikles_env.errors import IllegalActionError, InvalidConfigError

MASK_METHOD = "action_masks"


def _worker(remote: Any, parent_remote: Any, fns: CloudpickleWrapper) -> None:
    # Ctrl-C reaches every process of the terminal; the main process then stops training
    # and saves a checkpoint, which needs the workers alive (they end on "close").
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent_remote.close()
    envs = [fn() for fn in fns.var]
    try:
        while True:
            cmd, data = remote.recv()
            if cmd == "step":
                out = []
                for env, action in zip(envs, data, strict=True):
                    obs, reward, terminated, truncated, info = env.step(action)
                    done = terminated or truncated
                    info["TimeLimit.truncated"] = truncated and not terminated
                    reset_info: dict[str, Any] = {}
                    if done:
                        info["terminal_observation"] = obs
                        obs, reset_info = env.reset()
                    out.append((obs, reward, done, info, reset_info, env.action_masks()))
                remote.send(out)
            elif cmd == "reset":
                out = []
                for env, (seed, options) in zip(envs, data, strict=True):
                    obs, info = env.reset(seed=seed, **({"options": options} if options else {}))
                    out.append((obs, info, env.action_masks()))
                remote.send(out)
            elif cmd == "env_method":
                local, name, args, kwargs = data
                remote.send([getattr(envs[i], name)(*args, **kwargs) for i in local])
            elif cmd == "has_attr":
                remote.send(all(hasattr(env, data) for env in envs))
            elif cmd == "get_attr":
                local, name = data
                remote.send([getattr(envs[i], name) for i in local])
            elif cmd == "set_attr":
                local, name, value = data
                for i in local:
                    setattr(envs[i], name, value)
                remote.send(None)
            elif cmd == "spaces":
                remote.send((envs[0].observation_space, envs[0].action_space))
            elif cmd == "close":
                for env in envs:
                    env.close()
                remote.close()
                return
    except (EOFError, KeyboardInterrupt):
        return


def _start_workers(target: Any, payloads: list[Any], start_method: str | None) -> tuple[list, list]:
    """One daemon process per payload running ``target(remote, parent_remote, payload)``;
    returns the pipes' parent ends and the processes."""
    if start_method is None:
        methods = mp.get_all_start_methods()
        start_method = "forkserver" if "forkserver" in methods else "spawn"
    ctx = mp.get_context(start_method)
    remotes, processes = [], []
    for payload in payloads:
        remote, work_remote = ctx.Pipe()
        args = (work_remote, remote, CloudpickleWrapper(payload))
        process = ctx.Process(target=target, args=args, daemon=True)
        process.start()
        work_remote.close()
        remotes.append(remote)
        processes.append(process)
    return remotes, processes


class _ProcessVecEnv(VecEnv):
    """What the two process-backed VecEnvs share: ``remotes`` / ``processes`` of their
    workers, ``owner[i] = (worker, local index)`` of env i, and shutting down."""

    remotes: list[Any]
    processes: list[Any]
    owner: list[tuple[int, int]]
    closed: bool

    def _by_owner(self, indices: VecEnvIndices) -> dict[int, list[int]]:
        """``{worker: [local index]}`` of the envs ``indices`` names."""
        groups: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            who, local = self.owner[i]
            groups.setdefault(who, []).append(local)
        return groups

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]  # the envs are never wrapped

    def close(self) -> None:
        if self.closed:
            return
        for remote in self.remotes:
            remote.send(("close", None))
        for process in self.processes:
            process.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True


class BatchedSubprocVecEnv(_ProcessVecEnv):
    """``len(env_fns)`` envs spread over ``workers`` processes (contiguous blocks)."""

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        workers: int = 2,
        start_method: str | None = None,
    ) -> None:
        n = len(env_fns)
        workers = max(1, min(workers, n))
        bounds = np.linspace(0, n, workers + 1).astype(int)
        self.blocks = [range(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        self.owner = [(w, i - block.start) for w, block in enumerate(self.blocks) for i in block]
        payloads = [[env_fns[i] for i in block] for block in self.blocks]
        self.remotes, self.processes = _start_workers(_worker, payloads, start_method)
        self.remotes[0].send(("spaces", None))
        observation_space, action_space = self.remotes[0].recv()
        super().__init__(n, observation_space, action_space)
        self.masks = np.zeros((n, int(action_space.n)), dtype=bool)
        self._actions: np.ndarray | None = None
        self.closed = False

    # ---- stepping ----------------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        for w, block in enumerate(self.blocks):
            self.remotes[w].send(("reset", [(self._seeds[i], self._options[i]) for i in block]))
        obs, infos = [], []
        for w in range(len(self.blocks)):
            for o, info, mask in self.remotes[w].recv():
                self.masks[len(obs)] = mask
                obs.append(o)
                infos.append(info)
        self.reset_infos = infos
        self._reset_seeds()
        self._reset_options()
        return np.stack(obs)

    def step_async(self, actions: np.ndarray) -> None:
        for w, block in enumerate(self.blocks):
            self.remotes[w].send(("step", [actions[i] for i in block]))

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos, reset_infos = [], [], [], [], []
        for w in range(len(self.blocks)):
            for o, r, d, info, reset_info, mask in self.remotes[w].recv():
                self.masks[len(obs)] = mask
                obs.append(o)
                rewards.append(r)
                dones.append(d)
                infos.append(info)
                reset_infos.append(reset_info)
        self.reset_infos = reset_infos
        return np.stack(obs), np.asarray(rewards, dtype=np.float32), np.asarray(dones), infos

    # ---- attributes and methods ----------------------------------------------------------

    def env_method(
        self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        if method_name == MASK_METHOD and not args and not kwargs:
            return [self.masks[i].copy() for i in self._get_indices(indices)]
        groups = self._by_owner(indices)
        for w, local in groups.items():
            self.remotes[w].send(("env_method", (local, method_name, args, kwargs)))
        return [x for w in groups for x in self.remotes[w].recv()]

    def has_attr(self, attr_name: str) -> bool:
        """Answered in the workers. SB3's default fetches the attribute from every env, and
        MaskablePPO asks for ``action_masks`` before every rollout: pickling that bound
        method ships the whole env, loaded self-play networks included (measured: training
        4x slower once snapshots were in the pool)."""
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        return all([remote.recv() for remote in self.remotes])

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        groups = self._by_owner(indices)
        for w, local in groups.items():
            self.remotes[w].send(("get_attr", (local, attr_name)))
        return [x for w in groups for x in self.remotes[w].recv()]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        groups = self._by_owner(indices)
        for w, local in groups.items():
            self.remotes[w].send(("set_attr", (local, attr_name, value)))
        for w in groups:
            self.remotes[w].recv()


class _Failure(NamedTuple):
    """A shard's answer when its command raised: the error, re-raised in the trainer."""

    error: Exception


def _failure(exc: Exception) -> _Failure:
    try:
        pickle.dumps(exc)
    except Exception:  # an error type that does not pickle: its name and message
        return _Failure(RuntimeError(f"{type(exc).__name__}: {exc}"))
    return _Failure(exc)


def _answer(remote: Any) -> Any:
    reply = remote.recv()
    if isinstance(reply, _Failure):
        raise reply.error
    return reply


def _shard_worker(remote: Any, parent_remote: Any, make: CloudpickleWrapper) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as _worker: the trainer stops us
    parent_remote.close()
    vec: VecEnv = make.var()
    try:
        while True:
            cmd, data = remote.recv()
            try:
                reply = _shard_command(vec, cmd, data)
            except Exception as exc:  # answered, so that the pipe stays in step
                reply = _failure(exc)
            remote.send(reply)
            if cmd == "close":
                remote.close()
                return
    except (EOFError, KeyboardInterrupt):
        return


def _shard_command(vec: VecEnv, cmd: str, data: Any) -> Any:
    if cmd == "step":
        vec.step_async(data)
        obs, rewards, dones, infos = vec.step_wait()
        masks = np.stack(vec.env_method(MASK_METHOD))
        return obs, rewards, dones, infos, vec.reset_infos, masks
    if cmd == "reset":
        if data is not None:
            vec.seed(data)
        obs = vec.reset()
        return obs, vec.reset_infos, np.stack(vec.env_method(MASK_METHOD))
    if cmd == "env_method":
        local, name, args, kwargs = data
        return vec.env_method(name, *args, indices=local, **kwargs)
    if cmd == "has_attr":
        return vec.has_attr(data)
    if cmd == "get_attr":
        local, name = data
        return vec.get_attr(name, indices=local)
    if cmd == "set_attr":
        local, name, value = data
        return vec.set_attr(name, value, indices=local)
    if cmd == "spaces":
        return vec.num_envs, vec.observation_space, vec.action_space
    if cmd == "close":
        return vec.close()
    raise ValueError(f"unknown shard command {cmd!r}")


class ShardedVecEnv(_ProcessVecEnv):
    """Several ``VecEnv`` shards, one per worker process, as one ``VecEnv`` (env ``i``
    numbered across the shards in order), masks shipped with every step as in
    ``BatchedSubprocVecEnv``. For the native vector env: its C++ part is cheap, but
    feature blocks computed in Python are not, and shards compute them on every core.
    ``seed(s)`` seeds env ``i`` with ``s + i`` across shards, as one VecEnv would."""

    def __init__(self, shard_fns: Sequence[Callable[[], VecEnv]], start_method: str | None = None):
        self.remotes, self.processes = _start_workers(_shard_worker, list(shard_fns), start_method)
        sizes = []
        for remote in self.remotes:
            remote.send(("spaces", None))
            size, observation_space, action_space = _answer(remote)
            sizes.append(size)
        self.starts = [sum(sizes[:k]) for k in range(len(sizes))]
        self.owner = [(k, j) for k, n in enumerate(sizes) for j in range(n)]
        super().__init__(sum(sizes), observation_space, action_space)
        self.masks = np.zeros((self.num_envs, int(action_space.n)), dtype=bool)
        self.closed = False

    def reset(self) -> VecEnvObs:
        for remote, start in zip(self.remotes, self.starts, strict=True):
            remote.send(("reset", self._seeds[start]))
        obs, infos = [], []
        for k, (o, reset_infos, masks) in enumerate(self._answers(self.remotes)):
            self.masks[self.starts[k] : self.starts[k] + len(o)] = masks
            obs.append(o)
            infos += reset_infos
        self.reset_infos = infos
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Checks every action against the masks first, so that an illegal one raises
        (``IllegalActionError``; a malformed array ``InvalidConfigError``, as
        ``VectorEnv.step``) before any shard steps: no game changes."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise InvalidConfigError(
                f"actions must be {self.num_envs} integer action ids (shape "
                f"({self.num_envs},)), got shape {actions.shape} of dtype {actions.dtype}"
            )
        for i, action in enumerate(actions):
            size = self.masks.shape[1]
            if not (0 <= action < size and self.masks[i, action]):
                legal = np.flatnonzero(self.masks[i]).tolist()
                why = "not legal now" if 0 <= action < size else f"out of range 0..{size - 1}"
                raise IllegalActionError("?", None, int(action), repr(int(action)), legal,
                                         f"env {i}: {why}")
        ends = self.starts[1:] + [self.num_envs]
        for remote, a, b in zip(self.remotes, self.starts, ends, strict=True):
            remote.send(("step", actions[a:b]))

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos, reset_infos = [], [], [], [], []
        for k, (o, r, d, info, reset_info, masks) in enumerate(self._answers(self.remotes)):
            self.masks[self.starts[k] : self.starts[k] + len(o)] = masks
            obs.append(o)
            rewards.append(r)
            dones.append(d)
            infos += info
            reset_infos += reset_info
        self.reset_infos = reset_infos
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), infos

    def _answers(self, remotes: Sequence[Any]) -> list[Any]:
        """Every shard's reply (all read, so the pipes stay in step), then the first
        failure raised."""
        replies = [remote.recv() for remote in remotes]
        for reply in replies:
            if isinstance(reply, _Failure):
                raise reply.error
        return replies

    def env_method(
        self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        if method_name == MASK_METHOD and not args and not kwargs:
            return [self.masks[i].copy() for i in self._get_indices(indices)]
        return self._ask("env_method", indices, method_name, args, kwargs)

    def has_attr(self, attr_name: str) -> bool:
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        return all(self._answers(self.remotes))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return self._ask("get_attr", indices, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._ask("set_attr", indices, attr_name, value)

    def _ask(self, cmd: str, indices: VecEnvIndices, *data: Any) -> list[Any]:
        """``cmd`` for the envs ``indices``, each shard asked for its own; the answers in
        env order (lists), or None for ``set_attr``."""
        groups = self._by_owner(indices)
        for k, local in groups.items():
            self.remotes[k].send((cmd, (local, *data)))
        replies = self._answers([self.remotes[k] for k in groups])
        return [x for reply in replies for x in (reply or [])]
