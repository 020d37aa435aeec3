"""The search's network in C++ (native/players/net_forward.hpp) on random layers, without
torch (so the sanitizer build runs it: tests/native/test_sanitizer.py): a numpy oracle of
the same layers agrees to float32 rounding, a row's answer does not depend on its batch, the
C++ loop makes exactly the Python loop's searches fed the same numbers, and bad layers are
refused. Against the torch reference itself: tests/agents/test_search_native_net.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.native.helpers import require_native

native = require_native()

from perikles_env.agents.search import Search, SearchParams, UniformEvaluator  # noqa: E402
from perikles_env.agents.search.evaluator import players_of  # noqa: E402
from perikles_env.analysis.action_features import PER_ACTION, SCORED, SIZE  # noqa: E402
from perikles_env.engine import NUM_ACTIONS  # noqa: E402
from tests.agents.search_games import game_at  # noqa: E402

HIDDEN = 8


def obs_size() -> int:
    """The width of a leaf's row with both feature blocks."""
    return Search(UniformEvaluator(5), SearchParams(sims=1))._core.obs_size


class RandomLayers:
    """An evaluator that is only layers (``native_layers``): a small random SearchNet shape
    for 3 to 5 players, run by the C++ search; ``oracle`` is the same arithmetic in numpy."""

    features = ("battle", "actions")
    num_players = 5
    players = (3, 4, 5)

    def __init__(self, obs_size: int, seed: int = 0, tanh: bool = False) -> None:
        rng = np.random.default_rng(seed)
        state = obs_size - SIZE

        def layer(n_in: int, n_out: int, bias: bool = True) -> tuple[np.ndarray, Any]:
            w = rng.normal(0.0, 1.0 / np.sqrt(n_in), (n_out, n_in)).astype(np.float32)
            return w, rng.normal(0.0, 0.5, n_out).astype(np.float32) if bias else None

        self.layers = {
            "policy_trunk": [layer(state, 24), layer(24, 16)],
            "value_trunk": [layer(state, 12)],
            "action_net": layer(16, NUM_ACTIONS),
            "action_context": layer(16, HIDDEN),
            "action_embed": layer(PER_ACTION, HIDDEN, bias=False),
            "score_hidden": layer(HIDDEN, HIDDEN),
            "score_out": layer(HIDDEN, 1),
            "action_linear": rng.normal(0.0, 2.0, PER_ACTION).astype(np.float32),
            "value_head": layer(12, 5),
            "tanh": tanh,
            "players": [3, 4, 5],
        }

    def native_layers(self) -> dict[str, Any]:
        return self.layers

    def weights_version(self) -> int:
        return 0

    def check_counts(self, counts: Any) -> None:
        assert set(counts) <= set(self.players)

    def oracle(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits [B, 957] and win shares [B, 5] in numpy float64 (the reference order of
        action_scoring.scored_parts), for comparison to float32 rounding."""
        act = np.tanh if self.layers["tanh"] else (lambda x: np.maximum(x, 0.0))
        L = self.layers

        def dense(x: np.ndarray, wb: tuple[np.ndarray, Any]) -> np.ndarray:
            w, b = wb
            return x @ w.T.astype(np.float64) + (0.0 if b is None else b)

        state = obs[:, :-SIZE].astype(np.float64)
        latent = state
        for wb in L["policy_trunk"]:
            latent = act(dense(latent, wb))

        def score(x: np.ndarray) -> np.ndarray:
            return dense(act(dense(act(x), L["score_hidden"])), L["score_out"])[..., 0]

        ctx = dense(latent, L["action_context"])
        blank = score(ctx)
        logits = dense(latent, L["action_net"]) + blank[:, None]
        per = obs[:, -SIZE:].reshape(len(obs), NUM_ACTIONS, PER_ACTION).astype(np.float64)
        for r, a in zip(*np.nonzero(per[:, :, SCORED] > 0), strict=True):
            f = per[r, a]
            own = score(ctx[r] + dense(f[None], L["action_embed"])[0]) - blank[r]
            logits[r, a] += own + f @ L["action_linear"]
        v = state
        for wb in L["value_trunk"]:
            v = act(dense(v, wb))
        raw = dense(v, L["value_head"])
        values = np.zeros_like(raw)
        for r, n in enumerate(players_of(obs)):
            e = np.exp(raw[r, :n] - raw[r, :n].max())
            values[r, :n] = e / e.sum()
        return logits, values


def leaves(search: Search, games: list[Any]) -> np.ndarray:
    """The observations of the first leaf of each game's search (one row each)."""
    core = search._core
    core.start([g.core for g in games], [g.current for g in games], list(range(len(games))))
    obs = np.zeros((len(games), core.obs_size), dtype=np.float32)
    masks = np.zeros((len(games), NUM_ACTIONS), dtype=np.bool_)
    assert core.collect(obs, masks) == len(games)
    return obs


def native_evaluate(search: Search, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    logits = np.zeros((len(obs), NUM_ACTIONS), dtype=np.float32)
    values = np.zeros((len(obs), 5), dtype=np.float32)
    search._core.net_evaluate(obs, players_of(obs).tolist(), 1.0, logits, values)
    return logits, values


@pytest.mark.parametrize("tanh", [False, True], ids=["relu", "tanh"])
def test_the_forward_pass_agrees_with_a_numpy_oracle(tanh) -> None:
    games = [game_at(s, 30 + 15 * s, n) for s, n in ((1, 3), (2, 4), (3, 5), (4, 5), (5, 3))]
    net = RandomLayers(obs_size(), seed=3, tanh=tanh)
    search = Search(net)
    search._core.set_net(**net.native_layers())
    obs = leaves(search, games)
    logits, values = native_evaluate(search, obs)
    want_logits, want_values = net.oracle(obs)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(values, want_values, atol=1e-6)
    for row in range(len(obs)):  # the same bits alone as in the batch
        one = native_evaluate(search, obs[row : row + 1])
        np.testing.assert_array_equal(one[0][0], logits[row])
        np.testing.assert_array_equal(one[1][0], values[row])


class Fed:
    """The Python loop's evaluator, answering with the C++ forward pass's numbers."""

    def __init__(self, net: RandomLayers) -> None:
        self.features, self.num_players, self.players = net.features, 5, net.players
        self._search = Search(net)
        self._search._core.set_net(**net.native_layers())

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return native_evaluate(self._search, np.ascontiguousarray(obs))


@pytest.mark.parametrize("params", [
    SearchParams(sims=16, gumbel_m=4, batch=3),
    SearchParams(
        sims=16, gumbel_m=0, rollout_mix=0.5, prior_temp=2.0, leaves_per_search=2, batch=4
    ),
], ids=["gumbel", "puct-virtual-loss"])
def test_the_cpp_loop_is_the_python_loop(params) -> None:
    games = [game_at(s, 50, n) for s, n in ((7, 3), (8, 4), (9, 5))]
    net = RandomLayers(obs_size(), seed=4)
    players, seeds = [g.current for g in games], [1, 2, 3]
    a = Search(net, params).run(games, players, seeds)
    b = Search(Fed(net), params).run(games, players, seeds)
    for x, y in zip(a, b, strict=True):
        assert x.action == y.action
        np.testing.assert_array_equal(x.visits, y.visits)
        np.testing.assert_array_equal(x.policy, y.policy)


def test_bad_layers_and_calls_are_refused() -> None:
    net = RandomLayers(obs_size(), seed=5)
    core = Search(net)._core
    with pytest.raises(ValueError, match="set_net first"):
        core.run(1, 0.0, 1.0)
    layers = net.native_layers()
    for kwargs in (
        dict(layers, score_out=(np.zeros((2, HIDDEN), np.float32), None)),
        dict(layers, action_embed=(layers["action_embed"][0], np.zeros(HIDDEN, np.float32))),
        dict(layers, action_linear=np.zeros(3, np.float32)),
        dict(layers, value_trunk=[(np.zeros((12, 5), np.float32), None)]),
    ):
        with pytest.raises(ValueError):
            core.set_net(**kwargs)
        assert not core.has_net
    core.set_net(**layers)
    with pytest.raises(ValueError, match="prior_temp"):
        core.run(1, 0.0, 0.0)
    obs = np.zeros((1, core.obs_size), dtype=np.float32)
    out = np.zeros((1, NUM_ACTIONS), dtype=np.float32)
    with pytest.raises(ValueError, match="one column per seat"):
        core.net_evaluate(obs, [4], 1.0, out, np.zeros((1, 4), np.float32))
