"""The search network (perikles_env/agents/search/network.py): the evaluator contract, the
loss, its safe file (net_file.py) and the raw-network agent (net_agent.py)."""

from __future__ import annotations

import io
import json
import math
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from perikles_env.agents import AgentError, make_agent
from perikles_env.agents.search import net_file
from perikles_env.agents.search.net_agent import SHIPPED_NET, NetAgent
from perikles_env.agents.search.net_file import NetFileError, load_net, save_net
from perikles_env.agents.search.network import (
    MASKED,
    NetSettings,
    SearchNet,
    relative_shares,
    soft_cross_entropy,
)
from perikles_env.analysis.observation import OFFSETS
from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game
from perikles_env.errors import InvalidConfigError
from perikles_env.vector.encoder import encode_with_features, legal_mask

FEATURES = ("battle", "actions")
TINY = NetSettings(num_players=4, policy_arch=(16,), value_arch=(16, 8))


def tiny_net(seed: int = 0, settings: NetSettings = TINY) -> SearchNet:
    torch.manual_seed(seed)
    net = SearchNet(settings)
    with torch.no_grad():  # a value head that is not all zero (the untrained default)
        net.value_head.weight.normal_(0.0, 0.5)
    return net.eval()


def recorded(players: int, seed: int, count: int) -> dict[str, object]:
    """``count`` positions of a heuristic game, spread over it: observations, masks, who
    observed, and the finished game."""
    heuristic = make_agent("heuristic")
    game = new_game(GameConfig(num_players=players, record_events=False), seed=seed)
    rng = np.random.default_rng(seed)
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    step = 0
    while not game.is_terminal:
        p = game.current
        if step % 7 == 0:
            rows.append((encode_with_features(game, p, FEATURES), legal_mask(game) > 0, p))
        game.apply_action(int(heuristic.act_state(game, p, rng)))
        step += 1
    picks = np.linspace(0, len(rows) - 1, count).astype(int)
    return {
        "obs": np.stack([rows[i][0] for i in picks]),
        "masks": np.stack([rows[i][1] for i in picks]),
        "players": [rows[i][2] for i in picks],
        "game": game,
    }


@pytest.fixture(scope="module")
def positions() -> dict[str, object]:
    return recorded(4, seed=5, count=24)


# ---- the evaluator contract -----------------------------------------------------------------


def test_evaluate_shapes_dtypes_and_win_shares(positions) -> None:
    net = tiny_net()
    obs, masks = positions["obs"], positions["masks"]
    logits, values = net.evaluate(obs, masks)
    assert logits.shape == (len(obs), NUM_ACTIONS) and logits.dtype == np.float32
    assert values.shape == (len(obs), 4) and values.dtype == np.float32
    np.testing.assert_allclose(values.sum(axis=1), 1.0, atol=1e-6)
    assert (values > 0).all() and len({tuple(v) for v in values.round(6)}) > 1
    assert np.isfinite(logits[masks]).all() and (logits[~masks] == MASKED).all()
    assert net.num_players == 4 and net.features == FEATURES
    assert net.obs_size == obs.shape[1]
    with torch.no_grad():  # evaluate is forward, in numpy
        forward = net(torch.from_numpy(obs), torch.from_numpy(masks))
    np.testing.assert_array_equal(forward[0].numpy(), logits)
    np.testing.assert_array_equal(forward[1].numpy(), values)


def test_untrained_value_head_predicts_equal_shares(positions) -> None:
    net = SearchNet(TINY)
    _, values = net.evaluate(positions["obs"], positions["masks"])
    np.testing.assert_allclose(values, 0.25, atol=1e-7)


def test_evaluate_refuses_bad_input(positions) -> None:
    net = tiny_net()
    obs, masks = positions["obs"], positions["masks"]
    with pytest.raises(ValueError, match="obs must be"):
        net.evaluate(obs[:, :-1], masks)
    with pytest.raises(ValueError, match="masks must be"):
        net.evaluate(obs, masks[:-1])
    empty = masks.copy()
    empty[3] = False
    with pytest.raises(ValueError, match="at least one legal action"):
        net.evaluate(obs, empty)
    three = recorded(3, seed=1, count=2)
    with pytest.raises(ValueError, match="a 3-player game: this network plays 4-player games"):
        net.evaluate(three["obs"], three["masks"])


def test_settings_are_checked() -> None:
    with pytest.raises(InvalidConfigError, match="num_players"):
        NetSettings(num_players=6)
    with pytest.raises(InvalidConfigError, match="'actions' feature block last"):
        NetSettings(features=("actions", "battle"))
    with pytest.raises(InvalidConfigError, match="policy_arch"):
        NetSettings(policy_arch=(0,))
    with pytest.raises(InvalidConfigError, match="value_arch"):
        NetSettings(value_arch=(64,) * 9)
    with pytest.raises(InvalidConfigError, match="activation"):
        NetSettings(activation="gelu")
    for players in ((3, 4), (4, 3, 5), (3, 3, 5), (2, 5), (3.0, 5)):
        with pytest.raises(InvalidConfigError, match="players must be"):
            NetSettings(num_players=5, players=players)
    assert NetSettings(num_players=4).players == (4,)
    assert NetSettings(num_players=5, players=[3, 5]).players == (3, 5)


# ---- one network for 3, 4 and 5 players -------------------------------------------------------

ALL = NetSettings(num_players=5, policy_arch=(16,), value_arch=(16, 8), players=(3, 4, 5))


@pytest.fixture(scope="module")
def mixed() -> dict[str, object]:
    """Positions of a 3-, a 4- and a 5-player game, in one batch."""
    parts = [recorded(n, seed=20 + n, count=6) for n in (3, 4, 5)]
    return {
        "obs": np.concatenate([p["obs"] for p in parts]),
        "masks": np.concatenate([p["masks"] for p in parts]),
        "counts": np.repeat([3, 4, 5], 6),
        "parts": parts,
    }


def test_one_network_gives_each_row_the_seats_of_its_table(mixed) -> None:
    net = tiny_net(settings=ALL)
    logits, values = net.evaluate(mixed["obs"], mixed["masks"])
    assert values.shape == (18, 5)
    np.testing.assert_allclose(values.sum(axis=1), 1.0, atol=1e-6)
    for row, n in enumerate(mixed["counts"]):
        assert (values[row, :n] > 0).all() and (values[row, n:] == 0).all()
    # a row's answer does not depend on the other rows of its batch
    for row in (0, 9, 17):
        rows = slice(row, row + 1)
        one_logits, one_values = net.evaluate(mixed["obs"][rows], mixed["masks"][rows])
        np.testing.assert_allclose(one_values[0], values[row], atol=1e-6)
        np.testing.assert_allclose(one_logits[0], logits[row], atol=1e-5)
    # an untrained head: equal shares of each table
    _, equal = SearchNet(ALL).evaluate(mixed["obs"], mixed["masks"])
    np.testing.assert_allclose(equal.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(equal.max(axis=1), 1.0 / mixed["counts"], atol=1e-6)
    assert net.players == (3, 4, 5)


def test_a_network_refuses_the_counts_it_does_not_play(mixed) -> None:
    net = tiny_net(settings=NetSettings(num_players=5, policy_arch=(16,), value_arch=(16, 8),
                                        players=(4, 5)))
    with pytest.raises(ValueError, match="a 3-player game: this network plays 4/5-player games"):
        net.evaluate(mixed["obs"], mixed["masks"])
    net.evaluate(mixed["obs"][6:], mixed["masks"][6:])  # 4 and 5 players: no error


def test_mixed_count_loss_uses_each_tables_seats(mixed) -> None:
    net = tiny_net(settings=ALL)
    obs = torch.from_numpy(mixed["obs"])
    masks = torch.from_numpy(mixed["masks"])
    policy = masks.float() / masks.float().sum(dim=1, keepdim=True)
    value = torch.zeros(18, 5)
    for row, n in enumerate(mixed["counts"]):
        value[row, : int(n)] = 1.0 / int(n)
    loss = net.loss(obs, masks, policy, value)
    assert torch.isfinite(loss.total)
    # by hand: the cross-entropy over the first n outputs of each row
    raw = net.value_head(net.value_trunk(obs[:, : net.state_size]))
    expected = torch.stack([
        -(value[r, :n] * torch.log_softmax(raw[r, :n], dim=0)).sum()
        for r, n in enumerate(mixed["counts"].tolist())
    ]).mean()
    torch.testing.assert_close(loss.value, expected)
    loss.total.backward()  # gradients flow and stay finite
    assert all(torch.isfinite(p.grad).all() for p in net.parameters() if p.grad is not None)
    beyond = value.clone()
    beyond[0] = torch.tensor([0.5, 0.0, 0.0, 0.5, 0.0])  # seat 4 of a 3-player table
    with pytest.raises(ValueError, match="past a row's player count"):
        net.loss(obs, masks, policy, beyond)


def test_relative_shares_pad_to_the_networks_seats() -> None:
    assert relative_shares([0, 0, 1.0], 1, width=5).tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]


def test_a_mixed_count_network_file_round_trips_and_old_files_still_load(tmp_path, mixed) -> None:
    net = tiny_net(settings=ALL)
    save_net(tmp_path / "all.pkn", net)
    loaded = load_net(tmp_path / "all.pkn")
    assert loaded.settings == ALL and NetAgent(loaded).supported_players == (3, 4, 5)
    for a, b in zip(net.evaluate(mixed["obs"], mixed["masks"]),
                    loaded.evaluate(mixed["obs"], mixed["masks"]), strict=True):
        np.testing.assert_array_equal(a, b)
    # a file written before networks named their counts: num_players only
    save_net(tmp_path / "old.pkn", tiny_net())
    entries = _entries(tmp_path / "old.pkn")
    header = json.loads(entries[net_file.HEADER])
    del header["settings"]["players"]
    _write(tmp_path / "old.pkn", {**entries, net_file.HEADER: json.dumps(header).encode()})
    assert load_net(tmp_path / "old.pkn").settings == TINY


def test_relative_shares_rotate_with_the_observer() -> None:
    shares = [0.5, 0.0, 0.5, 0.0]
    assert relative_shares(shares, 0).tolist() == shares
    assert relative_shares(shares, 1).tolist() == [0.0, 0.5, 0.0, 0.5]
    assert relative_shares([0, 0, 1.0], 2).tolist() == [1.0, 0.0, 0.0]
    assert relative_shares([0, 0, 1.0], 1).tolist() == [0.0, 1.0, 0.0]


def test_value_labels_follow_the_observations_seat_order(positions) -> None:
    """At the end of a game, label slot k and the observation's relative seat k are the
    same player for every observer: the seat with the most VP in his observation is the
    one whose label holds the win."""
    game = positions["game"]
    shares = game.win_shares()
    start = OFFSETS["scores"][0]
    for p in range(4):
        label = relative_shares(shares, p)
        vp = encode_with_features(game, p, FEATURES)[start : start + 4] * 50
        np.testing.assert_allclose(vp, [game.scores()[(p + k) % 4] for k in range(4)], atol=1e-3)
        winners = np.flatnonzero(label == label.max())
        assert set(winners) == set(np.flatnonzero(vp == vp.max()))
        assert label[0] == shares[p]


# ---- the loss --------------------------------------------------------------------------------


def test_soft_cross_entropy_by_hand() -> None:
    # p = (1/4, 3/4); target (1/2, 1/2): -(ln 1/4 + ln 3/4) / 2
    logits = torch.tensor([[0.0, math.log(3.0)], [0.0, 0.0]])
    targets = torch.tensor([[0.5, 0.5], [1.0, 0.0]])
    row1 = -(math.log(0.25) + math.log(0.75)) / 2
    expected = (row1 + math.log(2.0)) / 2
    assert float(soft_cross_entropy(logits, targets)) == pytest.approx(expected, abs=1e-6)


def test_loss_of_a_zero_network_is_known(positions) -> None:
    """All weights zero: uniform over the legal actions and equal shares, so the policy loss
    of a one-hot target is ln(legal count) and the value loss ln 4."""
    net = SearchNet(TINY)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
    obs = torch.from_numpy(positions["obs"])
    masks = torch.from_numpy(positions["masks"])
    first_legal = masks.float().argmax(dim=1)
    policy_targets = torch.nn.functional.one_hot(first_legal, NUM_ACTIONS).float()
    value_targets = torch.tensor([[1.0, 0, 0, 0], [0, 0.5, 0.5, 0]]).repeat(len(obs) // 2, 1)
    with torch.no_grad():
        loss = net.loss(obs, masks, policy_targets, value_targets, value_weight=0.5)
    expected_policy = float(torch.log(masks.sum(dim=1).float()).mean())
    assert float(loss.policy) == pytest.approx(expected_policy, abs=1e-5)
    assert float(loss.value) == pytest.approx(math.log(4.0), abs=1e-6)
    assert float(loss.total) == pytest.approx(expected_policy + 0.5 * math.log(4.0), abs=1e-5)


def test_loss_refuses_bad_targets(positions) -> None:
    net = tiny_net()
    obs = torch.from_numpy(positions["obs"][:2])
    masks = torch.from_numpy(positions["masks"][:2])
    legal = masks.float() / masks.float().sum(dim=1, keepdim=True)
    shares = torch.full((2, 4), 0.25)
    illegal = torch.zeros(2, NUM_ACTIONS)
    illegal[:, int(torch.nonzero(~masks[0])[0])] = 1.0
    with pytest.raises(ValueError, match="illegal actions"):
        net.loss(obs, masks, illegal, shares)
    with pytest.raises(ValueError, match="sum to 1"):
        net.loss(obs, masks, legal, shares * 2)
    with pytest.raises(ValueError, match="value_targets must be"):
        net.loss(obs, masks, legal, shares[:, :3])
    with pytest.raises(ValueError, match="non-negative"):
        net.loss(obs, masks, legal, torch.tensor([[1.5, -0.5, 0, 0]] * 2))


def test_loss_trains_towards_its_targets(positions) -> None:
    net = tiny_net()
    obs = torch.from_numpy(positions["obs"])
    masks = torch.from_numpy(positions["masks"])
    policy_targets = masks.float() / masks.float().sum(dim=1, keepdim=True)
    value_targets = torch.tensor([[0.0, 1.0, 0.0, 0.0]]).repeat(len(obs), 1)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    first = None
    for _ in range(30):
        loss = net.loss(obs, masks, policy_targets, value_targets)
        first = float(loss.total.detach()) if first is None else first
        optimizer.zero_grad()
        loss.total.backward()
        optimizer.step()
    assert float(loss.total.detach()) < first - 0.5
    _, values = net.evaluate(positions["obs"], positions["masks"])
    assert (values[:, 1] > 0.5).all()


# ---- the file --------------------------------------------------------------------------------


def test_round_trip_gives_identical_outputs(tmp_path, positions) -> None:
    net = tiny_net(3)
    path = save_net(tmp_path / "n.pkn", net, extra={"made_by": "test"})
    loaded = load_net(path)
    assert loaded.settings == net.settings and loaded.extra == {"made_by": "test"}
    assert not loaded.training
    a = net.evaluate(positions["obs"], positions["masks"])
    b = loaded.evaluate(positions["obs"], positions["masks"])
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not list(tmp_path.glob(".*tmp"))  # the atomic write left nothing behind


def test_default_network_file_fits_in_5_mb(tmp_path, positions) -> None:
    net = SearchNet()
    full = save_net(tmp_path / "f32.pkn", net)
    half = save_net(tmp_path / "f16.pkn", net, dtype="float16")
    assert full.stat().st_size <= 5 * 1024 * 1024
    assert half.stat().st_size < 0.6 * full.stat().st_size
    a = net.evaluate(positions["obs"], positions["masks"])[0]
    b = load_net(half).evaluate(positions["obs"], positions["masks"])[0]
    masks = positions["masks"]
    np.testing.assert_allclose(a[masks], b[masks], atol=0.05)


def _entries(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def _write(path, entries: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)


def _npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def _with_header(entries: dict[str, bytes], **changes: object) -> dict[str, bytes]:
    header = json.loads(entries[net_file.HEADER])
    header.update(changes)
    return {**entries, net_file.HEADER: json.dumps(header).encode()}


WEIGHT = "weights/value_head.weight.npy"


class Explodes:
    def __reduce__(self):  # what a pickle payload would run on load
        return (print, ("pickle payload ran",))


def crafted_cases(entries: dict[str, bytes]) -> dict[str, tuple[object, str]]:
    header = json.loads(entries[net_file.HEADER])
    bad_settings = {**header["settings"], "num_players": 9}
    other_layout = {**header["observation"], "fingerprint": "0" * 64}
    nan = np.full((4, 8), np.nan, dtype=np.float32)
    return {
        "garbage": (b"not a zip at all", "not a readable zip"),
        "ppo file": ({"perikles-model.json": b"{}", "policy.npz": b""}, "PPO model file"),
        "no header": ({k: v for k, v in entries.items() if k != net_file.HEADER}, "no perikles"),
        "format version": (_with_header(entries, format="perikles-net-0"), "unknown format"),
        "unknown key": (_with_header(entries, run="x"), r"header keys unknown \['run'\]"),
        "NaN in header": (
            {
                **entries,
                net_file.HEADER: entries[net_file.HEADER].replace(
                    b'"actions": 957', b'"actions": NaN'
                ),
            },
            "not valid JSON",
        ),
        "settings": (_with_header(entries, settings=bad_settings), "bad settings"),
        "settings keys": (_with_header(entries, settings={"num_players": 4}), "exactly the keys"),
        "layout": (_with_header(entries, observation=other_layout), "another observation layout"),
        "actions": (_with_header(entries, actions=12), "made for 12 action ids"),
        "dtype": (_with_header(entries, dtype="float64"), "weight dtype 'float64'"),
        "unknown weight": (
            {**entries, "weights/extra.npy": _npy(np.zeros(2))},
            r"unknown \['weights/extra.npy'\], missing \[\]",
        ),
        "missing weight": (
            {k: v for k, v in entries.items() if k != WEIGHT},
            r"unknown \[\], missing \['weights/value_head.weight.npy'\]",
        ),
        "shape": ({**entries, WEIGHT: _npy(np.zeros((4, 9), np.float32))}, "has shape"),
        "huge shape": (
            {
                **entries,
                WEIGHT: _npy(np.zeros((4, 8), np.float32)).replace(
                    b"(4, 8)", b"(4, 8000000000000)"
                ),
            },
            "has shape",
        ),
        "wrong dtype": ({**entries, WEIGHT: _npy(np.zeros((4, 8), np.float64))}, "holds float64"),
        "NaN weight": ({**entries, WEIGHT: _npy(nan)}, "NaN or infinite"),
        "pickled array": (
            {
                **entries,
                WEIGHT: _npy(np.array([Explodes()] * 32, dtype=object).reshape(4, 8), True),
            },
            "holds object",
        ),
        "raw pickle": ({**entries, WEIGHT: pickle.dumps(Explodes())}, "not a .npy array"),
        "truncated weight": (
            {**entries, WEIGHT: _npy(np.zeros((4, 8), np.float32))[:-20]},
            "damaged",
        ),
    }


def test_crafted_files_are_refused_naming_the_problem(tmp_path, capsys) -> None:
    good = save_net(tmp_path / "good.pkn", tiny_net())
    entries = _entries(good)
    for name, (content, message) in crafted_cases(entries).items():
        path = tmp_path / f"{name.replace(' ', '_')}.pkn"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            _write(path, content)
        with pytest.raises(NetFileError, match=message):
            load_net(path)
    assert "pickle payload ran" not in capsys.readouterr().out
    with pytest.raises(NetFileError, match="not found"):
        load_net(tmp_path / "absent.pkn")
    with pytest.raises(NetFileError, match="dtype must be"):
        save_net(tmp_path / "x.pkn", tiny_net(), dtype="int8")
    with pytest.raises(NetFileError, match="not plain JSON"):
        save_net(tmp_path / "x.pkn", tiny_net(), extra={"bad": object()})
    assert not (tmp_path / "x.pkn").exists()


def _patched(data: bytes, local: int, central: int, value: int) -> bytes:
    """``data`` (a zip) with the 2-byte field at ``local`` / ``central`` of every local and
    central directory header set to ``value``."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = out.find(signature)
        while at >= 0:
            out[at + offset : at + offset + 2] = value.to_bytes(2, "little")
            at = out.find(signature, at + 4)
    return bytes(out)


def test_unreadable_zips_are_refused(tmp_path) -> None:
    """An encrypted entry, an unknown compression method, a header nested too deep for
    the JSON parser: each a ``NetFileError``, not a crash."""
    with zipfile.ZipFile(tmp_path / "stored.pkn", "w") as z:
        z.writestr(net_file.HEADER, b"{}")
    data = (tmp_path / "stored.pkn").read_bytes()
    for name, (local, central, value) in {
        "encrypted": (6, 8, 1),
        "compression": (8, 10, 99),
    }.items():
        (tmp_path / f"{name}.pkn").write_bytes(_patched(data, local, central, value))
        with pytest.raises(NetFileError, match="not a readable zip"):
            load_net(tmp_path / f"{name}.pkn")
    _write(tmp_path / "deep.pkn", {net_file.HEADER: b"[" * 100_000 + b"]" * 100_000})
    with pytest.raises(NetFileError, match="not valid JSON"):
        load_net(tmp_path / "deep.pkn")


def test_declared_size_and_duplicate_entries_are_refused(tmp_path, monkeypatch) -> None:
    good = save_net(tmp_path / "good.pkn", tiny_net())
    entries = _entries(good)
    twice = tmp_path / "twice.pkn"
    with zipfile.ZipFile(twice, "w") as z, pytest.warns(UserWarning):
        for name, data in [*entries.items(), (WEIGHT, entries[WEIGHT])]:
            z.writestr(name, data)
    with pytest.raises(NetFileError, match="an entry twice"):
        load_net(twice)
    monkeypatch.setattr(net_file, "MAX_BYTES", 1000)
    with pytest.raises(NetFileError, match="declares more than"):
        load_net(good)


# ---- the agent -------------------------------------------------------------------------------


def test_net_agent_plays_legal_deterministic_moves(tmp_path) -> None:
    path = save_net(tmp_path / "n.pkn", tiny_net(7))
    agent = make_agent(f"net:{path}") if "net" in _agent_names() else NetAgent(str(path))
    assert agent.describe() == f"net:{path}" and agent.uses_state and agent.read_only
    other = NetAgent(tiny_net(7))
    heuristic = make_agent("heuristic")
    game = new_game(GameConfig(num_players=4, record_events=False), seed=11)
    rng = np.random.default_rng(0)
    decisions = 0
    while not game.is_terminal:
        p = game.current
        if p == 1:
            before = game.to_dict()
            action = agent.act_state(game, p, np.random.default_rng(decisions))
            assert game.to_dict() == before  # read only
            assert action == agent.act_state(game, p, np.random.default_rng(99))
            assert action == other.act_state(game, p, rng)
            obs = encode_with_features(game, p, FEATURES)
            logits = other.net.evaluate(obs[None], legal_mask(game)[None] > 0)[0][0]
            assert action == int(np.argmax(logits))
            decisions += 1
        else:
            action = heuristic.act_state(game, p, rng)
        game.apply_action_checked(int(action))  # raises on an illegal action
    assert decisions > 20


def test_net_agent_batch_matches_single_moves(positions) -> None:
    agent = NetAgent(tiny_net(2))
    obs, masks = positions["obs"], positions["masks"]
    rng = np.random.default_rng(0)
    batch = agent.act_batch(obs, masks, rng)
    assert batch.dtype == np.int32 and masks[np.arange(len(obs)), batch].all()
    assert batch.tolist() == [agent.act(o, m, rng) for o, m in zip(obs, masks, strict=True)]
    with pytest.raises(AgentError, match="non-empty action mask"):
        agent.act_batch(obs, np.zeros_like(masks), rng)
    with pytest.raises(AgentError, match="observations must be"):
        agent.act_batch(obs[:, :10], masks, rng)


def test_net_agent_without_a_shipped_network_says_so(monkeypatch, tmp_path) -> None:
    from perikles_env.agents.search import net_agent

    monkeypatch.setattr(net_agent, "SHIPPED_NET", tmp_path / "absent.pkn")
    with pytest.raises(AgentError, match="no search network is shipped"):
        NetAgent()
    assert SHIPPED_NET.name == "search_net.pkn"
    with pytest.raises(NetFileError, match="not found"):
        NetAgent(str(tmp_path / "absent.pkn"))


def _agent_names() -> list[str]:
    from perikles_env.agents.registry import agent_names

    return agent_names()


def test_the_expert_iteration_network_is_shipped_by_name() -> None:
    """``net:expert-iteration`` (and ``ppo.init_net: expert-iteration``): the 4-player
    network before any PPO, where ``make train`` starts; a name, not a path to know."""
    from perikles_env.agents import make_agent
    from perikles_env.agents.search.net_agent import EXPERT_ITERATION_NET, net_path
    from perikles_env.training.ppo.config import PPOSection

    agent = make_agent("net:expert-iteration")
    assert agent.describe() == "net:expert-iteration" and agent.supported_players == (4,)
    assert net_path("expert-iteration") == EXPERT_ITERATION_NET
    assert net_path(None) == net_path("") == SHIPPED_NET
    assert net_path("some/file.pkn") == Path("some/file.pkn")
    section = PPOSection(init_net="expert-iteration", action_head="scoring")
    assert section.init_net_path() == str(EXPERT_ITERATION_NET)
    assert PPOSection(init_net="net").init_net_path() == str(SHIPPED_NET)
    # a different network from the shipped one
    shipped = NetAgent()
    assert shipped.supported_players == (3, 4, 5)
