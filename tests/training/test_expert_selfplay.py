"""Self-play of expert iteration (training/expert/self_play_games.py) and its stored positions
(dataset.py): the recorded targets are the search's, the values the final win shares in
the recorder's relative seat order, and a data file reads back exactly or is refused."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from perikles_env.agents.search import SearchParams
from perikles_env.agents.search.network import NetSettings, SearchNet, relative_shares
from perikles_env.engine.backend import native_available
from perikles_env.training.expert import dataset
from perikles_env.training.expert.dataset import DatasetError, ReplayWindow
from perikles_env.training.expert.self_play_games import (
    SELF,
    SelfPlay,
    play_sharded,
    shard_seed,
    shard_sizes,
)
from perikles_env.vector.encoder import encode_with_features, legal_mask

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")

TINY = NetSettings(num_players=4, policy_arch=(16,), value_arch=(8,))


def tiny_net() -> SearchNet:
    torch.manual_seed(0)
    net = SearchNet(TINY)
    with torch.no_grad():
        net.value_head.weight.normal_(0.0, 0.5)
    return net.eval()


@pytest.fixture(scope="module")
def spied_game():
    """One self-play game (the network searching in every seat it holds), with every
    search call's games (copied), players and results."""
    net = tiny_net()
    play = SelfPlay(net, SearchParams(sims=4, gumbel_m=4, batch=8), {SELF: 1.0, "heuristic": 1.0})
    calls = []
    search_batch = play.searcher.search_batch

    def spy(games, players, rng):
        results = search_batch(games, players, rng)
        calls.append(([g.clone() for g in games], list(players), results, list(games)))
        return results

    play.searcher.search_batch = spy
    data, stats = play.play(games=1, parallel=1, seed=11)
    return net, data, stats, calls


def test_recorded_targets_are_the_search_s_and_the_final_shares(spied_game) -> None:
    net, data, stats, calls = spied_game
    assert stats.games == 1 and stats.truncated == 0
    assert len(data) == len(calls) == stats.decisions > 20
    final = calls[-1][3][0]  # the live game, finished by now
    assert final.is_terminal
    shares = final.win_shares()
    obs, masks, policy, values = data.batch(np.arange(len(data)))
    for row, (games, players, results, _) in enumerate(calls):
        game, player, result = games[0], players[0], results[0]
        assert player == game.current
        np.testing.assert_array_equal(masks[row], legal_mask(game) > 0)
        expected_obs = encode_with_features(game, player, net.features)
        np.testing.assert_allclose(obs[row], expected_obs, rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(policy[row], result.policy, atol=2e-3)
        assert policy[row].argmax() == result.policy.argmax()
        np.testing.assert_allclose(values[row], relative_shares(shares, player), atol=1e-3)
    assert sum(shares) == pytest.approx(1.0)


def test_only_searching_seats_record_and_seats_follow_the_league(spied_game) -> None:
    _, _, stats, calls = spied_game
    assert stats.seats[SELF] >= 1 and sum(stats.seats.values()) == 4
    searched = {p for _, players, _, _ in calls for p in players}
    assert len(searched) == stats.seats[SELF]


def test_data_files_read_back_exactly(spied_game, tmp_path) -> None:
    net, data, _, _ = spied_game
    path = dataset.save(tmp_path / "d.npz", data)
    back = dataset.load(path, net.state_size, net.num_players)
    for name in ("states", "offsets", "ids", "legal", "policy", "feats", "values"):
        np.testing.assert_array_equal(getattr(back, name), getattr(data, name))
    assert data.nbytes / len(data) < 6000  # compact: an observation is 41 KB in float32


def _write(path, **arrays) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


@pytest.mark.parametrize(
    "damage,message",
    [
        ("pickle", "cannot read"),
        ("offsets", "offsets"),
        ("ids", "action ids"),
        ("illegal_target", "illegal action"),
        ("nan", "NaN"),
        ("missing", "entries"),
    ],
)
def test_crafted_data_files_are_refused(spied_game, tmp_path, damage, message) -> None:
    net, data, _, _ = spied_game
    arrays = {k: getattr(data, k).copy() for k in dataset._DTYPES}
    if damage == "pickle":
        arrays["states"] = np.array([{"x": 1}], dtype=object)
    elif damage == "offsets":
        arrays["offsets"][1] = arrays["offsets"][2] + 1
    elif damage == "ids":
        arrays["ids"][0] = 2000
    elif damage == "illegal_target":
        arrays["legal"][:] = False
        arrays["legal"][arrays["offsets"][:-1]] = True
        arrays["policy"][:] = 1.0
    elif damage == "nan":
        arrays["values"][0, 0] = np.nan
    else:
        del arrays["feats"]
    path = tmp_path / "bad.npz"
    _write(path, **arrays)
    with pytest.raises(DatasetError, match=message):
        dataset.load(path, net.state_size, net.num_players)


def test_replay_window_keeps_the_last_iterations(spied_game) -> None:
    _, data, _, _ = spied_game
    window = ReplayWindow(2)
    assert window.add(1, data) == [] and window.add(2, data) == []
    assert window.add(3, data) == [1]
    assert window.iterations == [2, 3] and len(window) == 2 * len(data)
    joined = window.data()
    np.testing.assert_array_equal(joined.batch(np.arange(len(data), 2 * len(data)))[2],
                                  data.batch(np.arange(len(data)))[2])


@pytest.mark.parametrize(
    "games,parallel,workers,expected",
    [
        (10, 4, 1, [(10, 4)]),
        (10, 4, 3, [(4, 2), (3, 1), (3, 1)]),
        (2, 8, 4, [(1, 1), (1, 1)]),  # no empty shard
        (7, 7, 2, [(4, 4), (3, 3)]),
    ],
)
def test_shards_split_the_games_and_the_games_at_once(games, parallel, workers, expected) -> None:
    assert shard_sizes(games, parallel, workers) == expected


def _same(a: dataset.Positions, b: dataset.Positions) -> None:
    for name in ("states", "offsets", "ids", "legal", "policy", "feats", "values"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_worker_processes_play_the_shards_one_process_would() -> None:
    """Two workers: each shard is SelfPlay.play of its share with its own seed, so the
    result is the shards played here, concatenated; and a seed fixes it."""
    net, params = tiny_net(), SearchParams(sims=2, gumbel_m=2, batch=4)
    league = {SELF: 1.0, "heuristic": 1.0}
    data, stats = play_sharded(net, params, league, games=3, parallel=2, seed=5, workers=2)
    assert stats.games == 3 and sum(stats.seats.values()) == 12
    parts, total = [], 0
    for k, (games, at_once) in enumerate(shard_sizes(3, 2, 2)):
        part, part_stats = SelfPlay(net, params, league).play(games, at_once, shard_seed(5, k, 2))
        parts.append(part)
        total += part_stats.decisions
    _same(data, dataset.concat(parts))
    assert stats.decisions == total == len(data) > 0
    one, _ = play_sharded(net, params, league, games=3, parallel=2, seed=5, workers=1)
    alone, _ = SelfPlay(net, params, league).play(3, 2, 5)
    _same(one, alone)  # one worker: the seed is used as it is
