"""The driver of network-guided IS-MCTS: the tree walk, determinization and legality run in
C++ (``perikles_env._native.Search``, native/players/search.hpp); this loop hands the leaves it
collects to an ``Evaluator`` in batches and feeds the answers back (docs/agents.md, "Search
with a network"). A ``SearchNet`` is not called from here: its layers are copied into the C++
search (native/players/net_forward.hpp), which then runs the same loop without Python.

Every search draws its determinization seeds and its root Gumbel noise from one SplitMix64
stream seeded by its own seed, so with ``seconds=0`` a seed fixes the result. With
``leaves_per_search=1`` a search never has two leaves in flight, and its result does not
depend on ``batch`` or on the other searches run beside it; with more, virtual loss lets
one search fill a batch, and the result depends on ``batch`` too (still reproducible).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analysis.encoding import FEATURE_IDS
from ...engine import NUM_ACTIONS
from ...engine.factory import on_native_core
from ...errors import InvalidConfigError
from ..base import AgentError
from .evaluator import EvaluationError, Evaluator
from .params import OPPONENT_MODELS, SearchParams

__all__ = ["OPPONENT_MODELS", "Search", "SearchParams", "SearchResult", "native_game"]

if TYPE_CHECKING:
    from ...engine.interface import GameInterface
    from ...engine.native import NativeGame

MAX_PLAYERS = 5


@dataclass(frozen=True)
class SearchResult:
    """One finished search: the chosen action, the improved policy target (Gumbel:
    softmax(logits + sigma(completed Q)); PUCT root: visit shares) over the legal root
    actions, root visits and prior per action id, and the root's mean value per absolute seat."""

    action: int
    sims: int
    policy: np.ndarray  # float32 [NUM_ACTIONS]
    visits: np.ndarray  # int32 [NUM_ACTIONS]
    prior: np.ndarray  # float32 [NUM_ACTIONS]
    values: np.ndarray  # float32 [n]


def _native() -> Any:
    try:
        from ...engine.native import extension
    except ImportError as e:
        raise AgentError(f"search needs the C++ core (perikles_env._native): {e}") from e
    return extension


def native_game(game: GameInterface) -> NativeGame:
    """``game`` itself on the C++ core, else its validated C++ copy."""
    return on_native_core(game)


class Search:
    """Runs batched searches with one evaluator and one set of params."""

    def __init__(self, evaluator: Evaluator, params: SearchParams | None = None) -> None:
        self.evaluator = evaluator
        self.params = params or SearchParams()
        unknown = [f for f in evaluator.features if f not in FEATURE_IDS]
        if unknown:
            raise InvalidConfigError(
                f"unknown feature block(s) {unknown}; known: {sorted(FEATURE_IDS)}"
            )
        p = self.params
        self._core = _native().Search(
            **p.native(), features=[FEATURE_IDS[f] for f in evaluator.features]
        )
        self._obs = np.zeros((p.batch, self._core.obs_size), dtype=np.float32)
        self._masks = np.zeros((p.batch, NUM_ACTIONS), dtype=np.bool_)
        self._net_version: tuple[Any, ...] | None = None  # of the weights the core holds
        self.evaluations = 0  # leaves evaluated by the last run
        self.calls = 0  # evaluator calls of the last run

    def run(
        self, games: Sequence[GameInterface], players: Sequence[int], seeds: Sequence[int]
    ) -> list[SearchResult]:
        """One search per game (the decision of ``players[i]``, who must be the seat to
        act), seeded by ``seeds[i]``; the games are only read."""
        if not len(games) == len(players) == len(seeds):
            raise AgentError("run needs one player and one seed per game")
        roots = [native_game(g) for g in games]
        for g, player in zip(roots, players, strict=True):
            if g.is_terminal or g.current != player:
                raise AgentError(
                    f"player {player} is not the seat to act (current {g.current_player})"
                )
        core = self._core
        core.start(
            [g.core for g in roots], [int(p) for p in players], [int(s) % 2**64 for s in seeds]
        )
        p = self.params
        if self._attach_network([g.n for g in roots]):  # the whole loop in C++
            try:
                self.evaluations, self.calls = core.run(p.batch, p.seconds, p.prior_temp)
            except ValueError as e:
                raise EvaluationError(f"network output refused: {e}") from e
            return self._results(roots)
        deadline = time.perf_counter() + p.seconds if p.seconds > 0 else None
        self.evaluations = self.calls = 0
        while n := core.collect(self._obs, self._masks):
            logits, values = self._evaluate(n)
            try:
                core.feed(logits, values)
            except ValueError as e:
                raise EvaluationError(f"evaluator output refused: {e}") from e
            self.evaluations += n
            self.calls += 1
            if deadline is not None and time.perf_counter() >= deadline:
                core.stop()  # each search still completes one simulation
        return self._results(roots)

    def _attach_network(self, counts: Sequence[int]) -> bool:
        """Whether the evaluator's network runs inside the C++ search (a ``SearchNet``: it has
        ``native_layers``); its weights are copied again whenever they changed."""
        evaluator: Any = self.evaluator
        if not hasattr(evaluator, "native_layers"):
            return False
        evaluator.check_counts(counts)
        version = evaluator.weights_version()
        if version != self._net_version:
            self._core.set_net(**evaluator.native_layers())
            self._net_version = version
        return True

    def _evaluate(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        logits, values = self.evaluator.evaluate(self._obs[:n], self._masks[:n])
        logits = np.ascontiguousarray(logits, dtype=np.float32)
        values = np.ascontiguousarray(values, dtype=np.float32)
        if logits.shape != (n, NUM_ACTIONS):
            raise EvaluationError(
                f"logits must have shape ({n}, {NUM_ACTIONS}), got {logits.shape}"
            )
        if self.params.prior_temp != 1.0:
            logits = logits / np.float32(self.params.prior_temp)
        if values.ndim != 2 or values.shape[0] != n or not 1 <= values.shape[1] <= 64:
            raise EvaluationError(f"values must have shape ({n}, num_players), got {values.shape}")
        return logits, values

    def _results(self, roots: Sequence[NativeGame]) -> list[SearchResult]:
        s = len(roots)
        actions = np.zeros(s, dtype=np.int32)
        sims = np.zeros(s, dtype=np.int32)
        policy = np.zeros((s, NUM_ACTIONS), dtype=np.float32)
        visits = np.zeros((s, NUM_ACTIONS), dtype=np.int32)
        prior = np.zeros((s, NUM_ACTIONS), dtype=np.float32)
        values = np.zeros((s, MAX_PLAYERS), dtype=np.float32)
        self._core.results(actions, sims, policy, visits, prior, values)
        return [
            SearchResult(
                int(actions[i]), int(sims[i]), policy[i], visits[i], prior[i], values[i, : g.n]
            )
            for i, g in enumerate(roots)
        ]
