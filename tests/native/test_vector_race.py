"""Two threads on one ``VectorEnv``: the refused thread must change nothing.

``step`` used to copy the caller's actions into the env's shared buffer before taking the
lock, and C++ read that buffer twice (legality check, then the step): a second thread,
refused with ``ConcurrentUseError``, had already overwritten the first thread's actions, so
illegal ids were applied and games broke their invariants. Now the actions are copied into
env-owned memory under the lock (and again by C++ under its mutex), and ``random_actions``
returns a new array per call. Runs in a forked child with a deadline (a corrupted game
could loop or crash); also run under AddressSanitizer by tests/native/test_sanitizer.py.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

import numpy as np
import pytest

from perikles_env.engine import check_invariants
from perikles_env.errors import ConcurrentUseError, IllegalActionError
from tests.native.helpers import require_native, run_in_threads

require_native()

NUM_ENVS, STEPS = 64, 4000
ROUNDS = int(os.environ.get("PERIKLES_RACE_ROUNDS", "3"))  # the sanitizer run sets 1


def _one_round(seed: int) -> None:
    from perikles_env.vector import VectorEnv

    env = VectorEnv(NUM_ENVS, 4)
    env.reset(seed)
    taken: list[np.ndarray] = []  # the actions of every step the first thread made
    failures: list[BaseException] = []
    counts = {"refused": 0, "illegal": 0, "stepped": 0}
    done = threading.Event()

    def retry(call):  # type: ignore[no-untyped-def]
        while True:
            try:
                return call()
            except ConcurrentUseError:
                time.sleep(0)

    def stepper() -> None:  # legal random actions, retried when the intruder holds the env
        try:
            for _ in range(STEPS):
                actions = retry(env.random_actions)
                taken.append(actions.copy())
                retry(lambda a=actions: env.step(a))
        except BaseException as error:  # noqa: BLE001 - reported by the parent thread
            failures.append(error)
        finally:
            done.set()

    def intruder() -> None:  # an array of 500s (illegal in nearly every game), and reads
        bad = np.full(NUM_ENVS, 500, dtype=np.int32)
        calls = (lambda: env.step(bad), lambda: env.episodes(1), lambda: env.game_seed(2),
                 lambda: env.game(3))
        k = 0
        while not done.is_set():
            k += 1
            try:
                calls[k % 4]()
                counts["stepped"] += k % 4 == 0
            except ConcurrentUseError:
                counts["refused"] += 1
            except IllegalActionError:
                counts["illegal"] += 1
            except BaseException as error:  # noqa: BLE001
                failures.append(error)
                return

    run_in_threads(stepper, intruder)
    assert not failures, repr(failures[:3])
    assert counts["stepped"] == 0 and counts["refused"] + counts["illegal"] > 0, counts
    assert len(taken) == STEPS
    for i in range(NUM_ENVS):
        check_invariants(env.game(i).to_python())
    # every refused call changed nothing: one thread alone, with the same calls, gives
    # the same games, streams and arrays
    twin = VectorEnv(NUM_ENVS, 4)
    state = twin.reset(seed)
    for actions in taken:
        assert np.array_equal(twin.random_actions(), actions)
        state = twin.step(actions)
    mine = env.step(np.full(NUM_ENVS, -1, dtype=np.int32))  # all rows left as they are
    assert all(env.game(i).to_dict() == twin.game(i).to_dict()
               for i in range(NUM_ENVS))
    assert [env.game_seed(i) for i in range(NUM_ENVS)] == [twin.game_seed(i)
                                                           for i in range(NUM_ENVS)]
    assert [env.episodes(i) for i in range(NUM_ENVS)] == [twin.episodes(i)
                                                          for i in range(NUM_ENVS)]
    for name in ("current", "observation", "action_mask", "scores", "players", "controller"):
        assert np.array_equal(getattr(mine, name), getattr(state, name)), name
    assert np.array_equal(env.random_actions(), twin.random_actions())


def _many_rounds() -> None:
    for seed in range(ROUNDS):
        _one_round(seed * 1000)


def test_a_refused_thread_never_changes_the_actions_of_the_stepping_one() -> None:
    context = multiprocessing.get_context("fork")
    child = context.Process(target=_many_rounds)
    child.start()
    child.join(600)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("the two-thread race run hung (> 600 s)")
    assert child.exitcode == 0, f"the two-thread race run failed (exit code {child.exitcode})"
