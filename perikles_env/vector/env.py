"""A batched vector environment on the C++ engine (docs/native.md, "Vector environment").

``VectorEnv(num_envs, num_players)`` holds N independent games in C++. ``reset(seed)`` and
``step(actions)`` advance all of them in one call with the GIL released (optionally split
across ``threads``) and return a ``VecState`` of preallocated arrays: for each game the seat
to act, its observation (``docs/observation.md``) and legal-action mask, the rewards of
that step and whether it ended a game. A finished game starts the next one at once
(auto-reset): on that step ``terminated[i]`` is True, ``rewards[i]`` holds the final win
rewards (``Game.win_rewards``: the winners share +1 and the others share -1, so each of
three losers gets -1/3) and the other arrays already show the new game. This is the loop
a pgx user writes::

    env = VectorEnv(num_envs=256, num_players=4)
    state = env.reset(seed=0)
    while ...:
        actions = policy(state.observation, state.action_mask, state.current)
        state = env.step(actions)

With ``opponents`` the env plays a league (``league.py``): the learner's seat is controller
0, and each other seat of a game draws an opponent by weight when the game is dealt.
``random`` and ``heuristic[:params]`` players move in C++ inside ``step`` (GIL released,
split over ``threads``); seats named in ``controllers`` come back to Python. Every row
shows a decision of some Python controller (``state.controller``), so each network acts
once per step on all its rows, and ``-1`` leaves a row for another controller::

    env = VectorEnv(64, 4, opponents={"heuristic": 0.8, "past": 0.2}, controllers=["past"],
                    learner_seat=None, features=["battle", "actions"], threads=2)
    state = env.reset(seed=0)
    while ...:
        actions = np.full(env.num_envs, -1, dtype=np.int32)
        for k, policy in enumerate((learner, past)):
            rows = np.flatnonzero(state.controller == k)
            actions[rows] = policy(state.observation[rows], state.action_mask[rows])
        state = env.step(actions)

``learner_seat=None`` draws the learner's seat per game, ``num_players=[3, 4, 5]`` the
player count. ``features`` appends the C++ feature blocks (``battle``, ``actions``;
byte-identical to ``analysis/battle_features.py`` and ``action_features.py``) to every
observation. ``training/native_vec_env.py`` turns this into an SB3 ``VecEnv``.

A game still running after ``max_decisions`` engine decisions (``MAX_GAME_DECISIONS``, as
``Game.is_truncated``) is cut: ``truncated[i]`` is True and the next game starts. On the
step that ends or cuts a game, ``final_scores[i]`` holds that game's VP (for rewards such
as the VP margin); ``scores`` always holds the VP standing of the game in the row.

Determinism: game i of ``reset(seed)`` is ``new_game(seed=seed + i)`` (or the i-th of an
explicit seed list); later games, the per-game player count and seat and the random
opponents draw from SplitMix64 streams of that seed (``native/env/vector_env.hpp`` says in
which order), independent of ``threads``.

Safe to misuse: nothing is readable before ``reset``; ``num_envs`` and ``threads`` are
bounded (``MAX_NUM_ENVS``, ``MAX_THREADS``); a second thread calling into an env while
another steps it gets ``ConcurrentUseError`` at once (it never waits: use one env per
thread); ``game(i)`` hands Python an independent, read-only copy of game i.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import numpy as np

from ..analysis.encoding import FEATURE_IDS, check_features
from ..engine import MAX_GAME_DECISIONS, NUM_ACTIONS
from ..engine import actions as A
from ..errors import (
    ConcurrentUseError,
    CoreFailureError,
    IllegalActionError,
    InvalidConfigError,
)
from .league import League, OpponentsArg
from .native import _native_vec, wrap_engine

if TYPE_CHECKING:
    from ..engine.native import NativeGame

MAX_NUM_ENVS = 1 << 14  # ~0.4 GiB of games and buffers at the largest observation
MAX_THREADS = 64
_T = TypeVar("_T")


class VecState(NamedTuple):
    """Views of the env's buffers: the next ``step`` overwrites them (copy to keep)."""

    current: np.ndarray  # int32[N]: seat to act (a Python controller's: see ``controller``)
    observation: np.ndarray  # float32[N, obs_size]: that seat's observation
    action_mask: np.ndarray  # int8[N, 957]: its legal actions
    rewards: np.ndarray  # float32[N, 5]: per seat, non-zero only where terminated
    terminated: np.ndarray  # bool[N]: this step ended game i (its row shows the next game)
    truncated: np.ndarray  # bool[N]: this step cut game i at max_decisions (ditto)
    scores: np.ndarray  # int32[N, 5]: VP now of the game in the row (0 past its players)
    final_scores: np.ndarray  # int32[N, 5]: VP of the game this step ended or cut, else 0
    players: np.ndarray  # int32[N]: player count of the game in the row
    decisions: np.ndarray  # int32[N]: engine decisions this step made (learner + opponents)
    controller: np.ndarray  # int32[N]: the Python controller of that seat (0: the learner)


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or not (low <= value <= high)
    ):
        raise InvalidConfigError(f"{name} must be an int in {low}..{high}, got {value!r}")
    return int(value)


class VectorEnv:
    def __init__(
        self,
        num_envs: int,
        num_players: int | Sequence[int] = 4,
        *,
        oracle: bool = False,
        opponents: OpponentsArg = None,
        learner_seat: int | None = 0,
        threads: int = 1,
        max_decisions: int = MAX_GAME_DECISIONS,
        features: Sequence[str] = (),
        controllers: Sequence[str] = (),
        same_table: float = 0.0,
    ) -> None:
        self.num_envs = _check_int("num_envs", num_envs, 1, MAX_NUM_ENVS)
        counts = num_players if isinstance(num_players, Sequence) else [num_players]
        if not counts:
            raise InvalidConfigError("num_players must be an int or a non-empty list of ints")
        self.player_counts = tuple(_check_int("num_players", n, 3, 5) for n in counts)
        self.num_players = max(self.player_counts)
        self.threads = _check_int("threads", threads, 1, MAX_THREADS)
        self.max_decisions = _check_int("max_decisions", max_decisions, 1, (1 << 63) - 1)
        if not isinstance(oracle, bool):
            raise InvalidConfigError(f"oracle must be a bool, got {oracle!r}")
        self.league = League.of(opponents, same_table, controllers)
        self.features = check_features(features)
        self.oracle, self.opponents = oracle, opponents
        if learner_seat is None:
            self.learner_seat = None
        else:
            top = min(self.player_counts) - 1
            self.learner_seat = _check_int("learner_seat", learner_seat, 0, top)
        seat = -1 if self.learner_seat is None else self.learner_seat
        self._c = _native_vec.VectorEnv(
            self.num_envs,
            list(self.player_counts),
            oracle,
            [FEATURE_IDS[f] for f in self.features],
            self.league.native(),
            list(self.league.weights),
            self.league.same_table,
            seat,
            threads,
            self.max_decisions,
        )
        n, seats = self.num_envs, _native_vec.MAX_PLAYERS
        self.obs_size = self._c.obs_size
        self._state = VecState(
            np.zeros(n, dtype=np.int32),
            np.zeros((n, self.obs_size), dtype=np.float32),
            np.zeros((n, NUM_ACTIONS), dtype=np.int8),
            np.zeros((n, seats), dtype=np.float32),
            np.zeros(n, dtype=bool),
            np.zeros(n, dtype=bool),
            np.zeros((n, seats), dtype=np.int32),
            np.zeros((n, seats), dtype=np.int32),
            np.zeros(n, dtype=np.int32),
            np.zeros(n, dtype=np.int32),
            np.zeros(n, dtype=np.int32),
        )
        self._c.attach(*self._state)  # handed over once: every call writes these arrays
        self._actions = np.zeros(n, dtype=np.int32)
        self._started = False
        self._busy = threading.Lock()

    def _exclusive(self, call: Callable[[], _T]) -> _T:
        """Run ``call`` as the only user of this env (see the module docstring)."""
        if not self._busy.acquire(blocking=False):
            raise ConcurrentUseError(
                "this VectorEnv is in use by another thread (a step, reset or game copy is "
                "running); use one VectorEnv per thread"
            )
        try:
            return call()
        finally:
            self._busy.release()

    def _need_reset(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"call reset() before {what}")

    def reset(self, seed: int | Sequence[int] | None = 0) -> VecState:
        """Start every game: game i gets ``seed + i`` (an int) or ``seed[i]`` (N ints);
        ``None`` draws a fresh seed from the operating system."""
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little") % ((1 << 64) - self.num_envs)
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            if not 0 <= seed <= (1 << 64) - self.num_envs:
                raise InvalidConfigError(f"seed must be in 0..2**64 - num_envs, got {seed!r}")
            seeds = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(seed)
        else:
            values = list(seed) if isinstance(seed, (Sequence, np.ndarray)) else None
            if (
                values is None
                or len(values) != self.num_envs
                or any(
                    isinstance(s, bool)
                    or not isinstance(s, (int, np.integer))
                    or not 0 <= s < 1 << 64
                    for s in values
                )
            ):
                raise InvalidConfigError(
                    f"seed must be an int or {self.num_envs} ints in 0..2**64-1, got {seed!r}"
                )
            seeds = np.array([int(s) for s in values], dtype=np.uint64)
        self._exclusive(lambda: self._c.reset(seeds))
        self._started = True
        return self._state

    def step(self, actions: Sequence[int] | np.ndarray, allow_skip: bool = True) -> VecState:
        """Apply ``actions[i]`` (an action id legal in game i, or -1: leave game i as it is,
        for another controller; refused without ``allow_skip``) to every game. An illegal
        or malformed action raises (``IllegalActionError`` naming the game) and changes no
        game."""
        self._need_reset("step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise InvalidConfigError(
                f"actions must be {self.num_envs} integer action ids (shape "
                f"({self.num_envs},)), got shape {a.shape} of dtype {a.dtype}"
            )
        floor = -1 if allow_skip else 0

        def checked_step() -> IllegalActionError | None:
            # copied and checked under the lock: another thread's call (refused or not) can
            # never change the actions this step checks and applies (C++ copies them again)
            taken = a.copy()  # in the caller's dtype: checked before any narrowing
            out_of_range = np.flatnonzero((taken < floor) | (taken >= NUM_ACTIONS))
            if len(out_of_range):
                return self._illegal(int(out_of_range[0]), int(taken[out_of_range[0]]))
            self._actions[:] = taken
            try:
                bad = self._c.step(self._actions)
            except RuntimeError as exc:  # a failure inside the C++ core (a capped loop)
                self._started = False  # its games may be half-stepped: reset() first
                raise CoreFailureError(f"{exc}; call reset() before using this env") from None
            return self._illegal(bad, int(taken[bad])) if bad >= 0 else None

        error = self._exclusive(checked_step)
        if error is not None:
            raise error
        return self._state

    def _illegal(self, i: int, action: int) -> IllegalActionError:
        """The error for game i's ``action`` (built while this thread holds the env)."""
        player = int(self._state.current[i])
        legal = np.flatnonzero(self._state.action_mask[i]).tolist()
        valid = 0 <= action < NUM_ACTIONS
        players = int(self._state.players[i])
        text = A.action_to_str(action, player, players) if valid else repr(action)
        reason = "not legal now" if valid else f"action id out of range 0..{NUM_ACTIONS - 1}"
        phase = wrap_engine(self._c.game(i, False)).phase.name
        return IllegalActionError(phase, player, action, text, legal, f"game {i}: {reason}")

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per game, drawn in C++ from game i's opponent
        stream (a baseline policy), in a new array that no other call writes."""
        self._need_reset("random_actions()")
        out = np.empty(self.num_envs, dtype=np.int32)  # the caller's own: no thread shares it
        self._exclusive(lambda: self._c.random_actions(out))
        return out

    def _index(self, i: Any, what: str, finished: bool = False) -> int:
        self._need_reset(what)
        i = _check_int("i", i, 0, self.num_envs - 1)
        if finished and self._exclusive(lambda: self._c.episodes(i)) == 0:
            raise InvalidConfigError(
                f"{what[:-2]}({i}, finished=True): game {i} has ended no game since reset()"
            )
        return i

    def game_seed(self, i: int) -> int:
        """Seed of game i's current game (``new_game(seed=...)`` replays it)."""
        i = self._index(i, "game_seed()")
        return int(self._exclusive(lambda: self._c.game_seed(i)))

    def game(self, i: int, finished: bool = False) -> NativeGame:
        """An independent, read-only copy of game i now (``finished``: of the game its last
        ``terminated`` or ``truncated`` step ended), for Python code that reads a game."""
        i = self._index(i, "game()", finished)
        return wrap_engine(self._exclusive(lambda: self._c.game(i, bool(finished))))

    def set_weights(self, weights: Mapping[str, float], same_table: float | None = None) -> None:
        """New opponent weights (by spec; specs left out weigh 0) and ``same_table``
        share for the games dealt from now on; games in progress keep their players."""
        league = self.league.reweighted(weights, same_table)
        self._exclusive(lambda: self._c.set_weights(list(league.weights), league.same_table))
        self.league = league

    def seat_specs(self, i: int, finished: bool = False) -> list[str]:
        """Who plays each seat of game i (``finished``: of the game it last ended): an
        opponent spec, or ``"learner"`` for controller 0's seat."""
        i = self._index(i, "seat_specs()", finished)
        seats = self._exclusive(lambda: self._c.seat_opponents(i, bool(finished)))
        players = self.game(i, finished).n
        return ["learner" if k < 0 else self.league.specs[k] for k in seats[:players]]

    def episodes(self, i: int) -> int:
        """Games of env i finished since the last reset."""
        i = self._index(i, "episodes()")
        return int(self._exclusive(lambda: self._c.episodes(i)))
