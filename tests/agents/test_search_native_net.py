"""The search network's forward pass in C++ (native/players/net_forward.hpp): it agrees with
the torch reference (``SearchNet.evaluate``) to float32 rounding at every player count and
activation, the C++ loop (``Search.run`` with a ``SearchNet``) plays exactly the searches of
the Python loop fed the same numbers, changed weights are read again, and bad layers or
counts are refused without changing anything."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from perikles_env.agents.search import Search, SearchParams
from perikles_env.agents.search.evaluator import EvaluationError, players_of
from perikles_env.agents.search.network import NetSettings, SearchNet
from perikles_env.engine import NUM_ACTIONS
from perikles_env.engine.backend import native_available

from .search_games import game_at
from .test_search_net import recorded, tiny_net

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")

ALL = NetSettings(num_players=5, policy_arch=(32, 16), value_arch=(16, 8), players=(3, 4, 5))
TANH = NetSettings(num_players=4, policy_arch=(24,), value_arch=(12,), activation="tanh")


@pytest.fixture(scope="module")
def mixed() -> dict[str, Any]:
    parts = [recorded(n, seed=30 + n, count=8) for n in (3, 4, 5)]
    return {
        "obs": np.concatenate([p["obs"] for p in parts]),
        "masks": np.concatenate([p["masks"] for p in parts]),
    }


def sharpened(net: SearchNet, scale: float = 4.0) -> SearchNet:
    """Larger weights than an initialisation's, so the heads' outputs span tens of logits (as
    a trained network's do) and a summation-order difference would show."""
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(scale)
    return net


def native_evaluate(search: Search, obs: np.ndarray, temp: float = 1.0) -> tuple[np.ndarray, ...]:
    net = search.evaluator
    logits = np.zeros((len(obs), NUM_ACTIONS), dtype=np.float32)
    values = np.zeros((len(obs), net.num_players), dtype=np.float32)
    search._core.net_evaluate(obs, players_of(obs).tolist(), temp, logits, values)
    return logits, values


@pytest.mark.parametrize("settings", [ALL, TANH], ids=["relu-3-4-5", "tanh-4"])
def test_the_forward_pass_agrees_with_torch(settings, mixed) -> None:
    net = sharpened(tiny_net(seed=2, settings=settings))
    rows = np.isin(players_of(mixed["obs"]), settings.players)
    obs, masks = mixed["obs"][rows], mixed["masks"][rows]
    search = Search(net)
    search._core.set_net(**net.native_layers())
    logits, values = net.evaluate(obs, masks)
    c_logits, c_values = native_evaluate(search, obs)
    assert np.abs(logits[masks]).max() > 10.0  # outputs large enough to test the sums
    np.testing.assert_allclose(c_logits[masks], logits[masks], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(c_values, values, atol=1e-6)
    counts = players_of(obs)
    for row, n in enumerate(counts):
        assert (c_values[row, n:] == 0).all() and abs(c_values[row, :n].sum() - 1) < 1e-6
    # a row's answer is the same bits whatever rows share its batch
    for row in (0, len(obs) // 2, len(obs) - 1):
        one_logits, one_values = native_evaluate(search, obs[row : row + 1])
        np.testing.assert_array_equal(one_logits[0], c_logits[row])
        np.testing.assert_array_equal(one_values[0], c_values[row])
    # the prior's temperature divides every logit, as the Python loop does
    hot, _ = native_evaluate(search, obs, temp=3.0)
    np.testing.assert_allclose(hot, c_logits / np.float32(3.0), rtol=1e-6)


class NativeNumbers:
    """An evaluator that hands the Python loop the C++ forward pass's numbers: with it the
    Python loop and the C++ loop see the same values, so they must search alike."""

    def __init__(self, net: SearchNet) -> None:
        self.num_players, self.players, self.features = net.num_players, net.players, net.features
        self._search = Search(net)
        self._search._core.set_net(**net.native_layers())

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = native_evaluate(self._search, np.ascontiguousarray(obs))
        return np.where(masks, logits, np.float32(-1e9)), values


@pytest.mark.parametrize(
    "params",
    [
        SearchParams(sims=24, gumbel_m=4, batch=4),
        SearchParams(sims=30, gumbel_m=0, rollout_mix=0.5, prior_temp=3.0),
        SearchParams(sims=20, leaves_per_search=4, batch=8, opponents="heuristic"),
    ],
    ids=["gumbel", "puct-playouts-temp", "virtual-loss"],
)
def test_the_cpp_loop_plays_the_python_loops_searches(params) -> None:
    net = sharpened(tiny_net(seed=4, settings=ALL), 2.0)
    games = [game_at(s, 40 + 20 * s, n) for s, n in ((3, 3), (4, 4), (5, 5), (6, 4))]
    players, seeds = [g.current for g in games], [7, 8, 9, 10]
    native = Search(net, params)
    in_cpp = native.run(games, players, seeds)
    assert native._core.has_net and native.evaluations >= len(games)
    python = Search(NativeNumbers(net), params)
    in_python = python.run(games, players, seeds)
    assert (native.evaluations, native.calls) == (python.evaluations, python.calls)
    for a, b in zip(in_cpp, in_python, strict=True):
        assert a.action == b.action and a.sims == b.sims
        for field in ("policy", "visits", "prior", "values"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_changed_weights_are_read_again() -> None:
    net = tiny_net(seed=5)
    g = game_at(3)
    search = Search(net, SearchParams(sims=16))
    before = search.run([g], [g.current], [1])[0]
    with torch.no_grad():  # as an optimiser step does: in place
        net.action_net.bias.copy_(torch.linspace(-5.0, 5.0, NUM_ACTIONS))
    after = search.run([g], [g.current], [1])[0]
    fresh = Search(net, SearchParams(sims=16)).run([g], [g.current], [1])[0]
    np.testing.assert_array_equal(after.prior, fresh.prior)
    assert not np.array_equal(after.prior, before.prior)


def test_counts_the_network_does_not_play_are_refused() -> None:
    net = tiny_net(seed=6)  # 4 players only
    g = game_at(3, 40, 3)
    with pytest.raises(ValueError, match="a 3-player game: this network plays 4-player games"):
        Search(net, SearchParams(sims=4)).run([g], [g.current], [0])
    search = Search(net)
    search._core.set_net(**net.native_layers())
    obs = recorded(3, seed=1, count=1)["obs"]
    logits = np.zeros((1, NUM_ACTIONS), dtype=np.float32)
    values = np.full((1, 4), 7.0, dtype=np.float32)
    with pytest.raises(ValueError, match="player count this network does not play"):
        search._core.net_evaluate(obs, [3], 1.0, logits, values)
    assert (values == 7.0).all() and (logits == 0).all()  # nothing written


def test_layers_that_do_not_fit_are_refused_and_change_nothing() -> None:
    net = tiny_net(seed=7)
    core = Search(net)._core
    layers = net.native_layers()
    w, b = layers["action_net"]
    context = layers["action_context"][0]
    bad = [
        ("action_net", dict(layers, action_net=(w[:, :-1], b))),
        ("players", dict(layers, players=[3, 5])),
        ("value_head", dict(layers, value_head=(np.zeros((6, 8), np.float32), None))),
        ("bias", dict(layers, action_context=(context, np.zeros(3, np.float32)))),
        ("policy trunk", dict(layers, policy_trunk=[])),
    ]
    for match, kwargs in bad:
        with pytest.raises(ValueError, match=match):
            core.set_net(**kwargs)
        assert not core.has_net
    core.set_net(**dict(layers, players=[3, 4]))  # a 4-seat head may play 3 and 4
    assert core.has_net


def test_non_finite_outputs_are_an_evaluation_error() -> None:
    net = tiny_net(seed=8)
    with torch.no_grad():
        net.action_net.bias.fill_(float("nan"))
    g = game_at(3)
    with pytest.raises(EvaluationError, match="not finite"):
        Search(net, SearchParams(sims=4)).run([g], [g.current], [0])


def test_the_time_budget_holds_in_the_cpp_loop() -> None:
    net = tiny_net(seed=9)
    g = game_at()
    r = Search(net, SearchParams(sims=5000, seconds=1e-6)).run([g], [g.current], [0])[0]
    assert 1 <= r.sims < 5000 and r.visits.sum() == r.sims
