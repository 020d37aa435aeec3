"""A vectorised env that runs several envs per worker process and ships the action masks
with every step.

Why: SB3's ``SubprocVecEnv`` runs one env per process and MaskablePPO asks every env for its
mask with a second round trip (``env_method("action_masks")``). On a 2-core machine with 16
envs that is 16 processes and 32 pipe round trips per step; ``DummyVecEnv`` avoids them but
uses one core. Here ``workers`` processes (one per core) each step their share of the envs
in turn and answer with observations, rewards, infos *and* masks in one message; the
``action_masks`` call is then answered from that cache. Results are identical to
``DummyVecEnv`` for the same seeds (each env keeps its own seeded generator).
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from perikles_env.workers import bounded_workers

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
        workers = bounded_workers(workers, "train.workers", n)
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
