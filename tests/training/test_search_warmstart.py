"""Warm start of the search network from a PPO model (training/search_warmstart.py)."""

from __future__ import annotations

from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from perikles_env.agents import make_agent
from perikles_env.agents.ppo_file import ModelFileError, save_model
from perikles_env.agents.ppo_policy import ActionScoringPolicy
from perikles_env.agents.search.net_file import load_net, save_net
from perikles_env.agents.search.network import NetSettings, SearchNet, relative_shares
from perikles_env.analysis.encoding import default_encoder
from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool
from perikles_env.training import search_warmstart as W
from perikles_env.vector.encoder import encode_with_features, legal_mask

FEATURES = ["battle", "actions"]


def ppo_policy(cls=ActionScoringPolicy, net_arch=None, seed: int = 0, trunk=()):
    """A small policy with every weight random (the scoring heads too), so the copy is
    checked on weights that all matter."""
    torch.manual_seed(seed)
    policy = cls(
        default_encoder(FEATURES).space,
        gym.spaces.Discrete(NUM_ACTIONS),
        lambda _: 1e-3,
        net_arch=net_arch or [32, 16],
        activation_fn=torch.nn.Tanh,
        **({"trunk": trunk} if trunk else {}),
    )
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return policy.eval()


@pytest.fixture(scope="module")
def positions() -> tuple[np.ndarray, np.ndarray]:
    heuristic = make_agent("heuristic")
    game = new_game(GameConfig(num_players=4, record_events=False), seed=3)
    rng = np.random.default_rng(0)
    obs, masks = [], []
    step = 0
    while not game.is_terminal:
        if step % 9 == 0:
            obs.append(encode_with_features(game, game.current, FEATURES))
            masks.append(legal_mask(game) > 0)
        game.apply_action(int(heuristic.act_state(game, game.current, rng)))
        step += 1
    return np.stack(obs), np.stack(masks)


def ppo_log_probs(policy, obs, masks) -> np.ndarray:
    with torch.no_grad():
        dist = policy.get_distribution(torch.from_numpy(obs), action_masks=masks)
        return dist.distribution.logits.numpy()


def test_warm_started_net_plays_exactly_as_the_ppo_model(tmp_path, positions) -> None:
    obs, masks = positions
    for arch, trunk in (([32, 16], ()), ({"pi": [24], "vf": [8, 8]}, ()), ([12], [20])):
        policy = ppo_policy(net_arch=arch, trunk=trunk)
        path = save_model(tmp_path / "m.zip", policy, FEATURES, num_timesteps=7)
        net = W.net_from_ppo(path)
        logits, values = net.evaluate(obs, masks)
        mine = torch.log_softmax(torch.from_numpy(logits), dim=1).numpy()
        np.testing.assert_allclose(mine[masks], ppo_log_probs(policy, obs, masks)[masks], atol=1e-5)
        np.testing.assert_allclose(values, 0.25, atol=1e-7)  # equal shares before fitting
        assert net.extra == {"ppo": str(path), "ppo_timesteps": 7}
        critic = policy.mlp_extractor.value_net[0].weight
        torch.testing.assert_close(net.value_trunk[2 * len(trunk)].weight, critic)
        if trunk:  # the shared layer starts both of the network's trunks
            shared = policy.mlp_extractor.shared_net[0].weight
            torch.testing.assert_close(net.value_trunk[0].weight, shared)
            torch.testing.assert_close(net.policy_trunk[0].weight, shared)


def test_only_a_scoring_policy_can_be_warm_started(tmp_path) -> None:
    policy = ppo_policy(MaskableActorCriticPolicy)
    path = save_model(tmp_path / "flat.zip", policy, FEATURES, num_timesteps=0)
    with pytest.raises(ModelFileError, match="ActionScoringPolicy"):
        W.net_from_ppo(path)
    with pytest.raises(ModelFileError, match="not found"):
        W.net_from_ppo(tmp_path / "absent.zip")


def test_recorded_labels_are_the_final_shares_of_each_observer() -> None:
    net = SearchNet(NetSettings(policy_arch=(8,), value_arch=(8,)))
    part = W.play_value_game(net, seed=4, league=OpponentPool.of("heuristic"), keep=10_000)
    assert part is not None
    states, targets, share = part
    assert states.dtype == np.float16 and states.shape[1] == net.state_size
    assert targets.shape == (len(states), 4)
    np.testing.assert_allclose(targets.sum(axis=1), 1.0)
    # every row is one rotation of the same final shares, and the observers take turns
    rotations = {tuple(relative_shares(targets[0], k)) for k in range(4)}
    assert {tuple(t) for t in targets} <= rotations and len({tuple(t) for t in targets}) > 1
    fewer = W.play_value_game(net, seed=4, league=OpponentPool.of("heuristic"), keep=5)
    assert len(fewer[1]) == 5 and fewer[2] == share  # the same game, sampled


def test_value_fitting_lowers_the_loss_and_leaves_the_policy(tmp_path, positions) -> None:
    policy = ppo_policy(net_arch=[32, 16])
    net = W.net_from_ppo(save_model(tmp_path / "m.zip", policy, FEATURES, num_timesteps=0))
    samples = W.record_values(net, games=8, seed=1, league="heuristic", keep=60)
    assert len(samples) == 8 * 60 and samples.games.max() == 7
    train = np.flatnonzero(samples.games < 7)
    before = W.value_loss(net, samples, train)
    assert before == pytest.approx(np.log(4), abs=1e-6)
    logits_before = net.evaluate(*positions)[0]
    report = W.fit_values(net, samples, 4, batch_size=32, learning_rate=3e-3)
    assert report["train_rows"] == len(train) and report["held_out_rows"] == 60
    assert report["equal_shares"] == pytest.approx(1.3863)
    assert report["epochs"][-1] < report["epochs"][0] < before
    assert W.value_loss(net, samples, train) < before - 0.05
    assert report["held_out_after"] == min([report["held_out_before"], *report["held_out"]])
    np.testing.assert_array_equal(net.evaluate(*positions)[0], logits_before)


def test_cli_writes_a_network_that_loads(tmp_path, capsys, positions) -> None:
    policy = ppo_policy()
    ppo = save_model(tmp_path / "m.zip", policy, FEATURES, num_timesteps=0)
    out = tmp_path / "net.pkn"
    args = ["--ppo", str(ppo), "--out", str(out), "--games", "3", "--epochs", "1"]
    assert W.main([*args, "--keep", "20"]) == 0
    printed = capsys.readouterr().out
    assert "3/3 games" in printed and "value loss held out" in printed
    net = load_net(out)
    summary = net.extra["warm_start"]
    assert summary["games"] == 3 and summary["positions"] == 60
    assert set(summary["league"]) >= {"heuristic", "random"}
    obs, masks = positions
    mine = torch.log_softmax(torch.from_numpy(net.evaluate(obs, masks)[0]), dim=1).numpy()
    np.testing.assert_allclose(mine[masks], ppo_log_probs(policy, obs, masks)[masks], atol=1e-5)
    assert W.main(["--ppo", str(tmp_path / "absent.zip"), "--out", str(out)]) == 2
    assert "not found" in capsys.readouterr().err


def random_net(activation: str = "tanh", arch=(32, 16)) -> SearchNet:
    torch.manual_seed(5)
    net = SearchNet(NetSettings(policy_arch=arch, value_arch=arch, activation=activation))
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return net.eval()


def test_ppo_started_from_a_net_plays_exactly_as_the_net(tmp_path, positions) -> None:
    """``ppo.init_net``: the PPO policy takes the network's policy unchanged and its value
    trunk as the critic's; back with ``--value-from``, it is the same network again."""
    obs, masks = positions
    net = random_net()
    path = save_net(tmp_path / "net.pkn", net)
    policy = ppo_policy(seed=1)
    critic_out = policy.value_net.weight.clone()
    assert W.ppo_from_net(SimpleNamespace(policy=policy), path, FEATURES) == {"net": str(path)}
    mine = torch.log_softmax(torch.from_numpy(net.evaluate(obs, masks)[0]), dim=1).numpy()
    np.testing.assert_allclose(ppo_log_probs(policy, obs, masks)[masks], mine[masks], atol=1e-5)
    torch.testing.assert_close(policy.mlp_extractor.value_net[2].weight, net.value_trunk[2].weight)
    torch.testing.assert_close(policy.value_net.weight, critic_out)  # the scalar output: fresh

    ppo = save_model(tmp_path / "m.zip", policy, FEATURES, num_timesteps=0)
    out = tmp_path / "back.pkn"
    assert W.main(["--ppo", str(ppo), "--out", str(out), "--value-from", str(path)]) == 0
    back = load_net(out)
    for name, tensor in net.state_dict().items():
        torch.testing.assert_close(back.state_dict()[name], tensor, atol=1e-6, rtol=0)
    assert back.extra["value_from"]["net"] == str(path)


def test_a_net_that_does_not_fit_the_ppo_model_is_refused(tmp_path) -> None:
    path = save_net(tmp_path / "net.pkn", random_net(arch=(24,)))
    policy = ppo_policy()
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    with pytest.raises(InvalidConfigError, match=r"does not fit the model.*ppo.net_arch"):
        W.ppo_from_net(SimpleNamespace(policy=policy), path, FEATURES)
    with pytest.raises(InvalidConfigError, match="env.features"):
        W.ppo_from_net(SimpleNamespace(policy=policy), path, ["actions"])
    flat = ppo_policy(MaskableActorCriticPolicy)
    with pytest.raises(InvalidConfigError, match="action_head: scoring"):
        W.ppo_from_net(SimpleNamespace(policy=flat), path, FEATURES)
    for name, tensor in policy.state_dict().items():  # nothing changed
        torch.testing.assert_close(tensor, before[name])
    other = save_net(tmp_path / "other.pkn", random_net(activation="relu"))
    with pytest.raises(InvalidConfigError, match="--value-from"):
        W.with_value_of(random_net(), other)


def test_a_network_for_every_count_records_and_fits_each_tables_seats(tmp_path) -> None:
    """``--players 3,4,5``: games at every count, targets padded past each table's seats,
    and a value fit that starts from a 4-player network's value (``--value-init``)."""
    policy = ppo_policy(net_arch=[32, 16])
    ppo = save_model(tmp_path / "m.zip", policy, FEATURES, num_timesteps=0)
    donor = random_net(arch=(32, 16))
    save_net(tmp_path / "four.pkn", donor)
    out = tmp_path / "all.pkn"
    args = ["--ppo", str(ppo), "--out", str(out), "--games", "9", "--epochs", "2", "--keep", "30"]
    assert W.main([*args, "--players", "3,5,4", "--value-init", str(tmp_path / "four.pkn")]) == 0
    net = load_net(out)
    assert net.players == (3, 4, 5) and net.num_players == 5
    assert net.extra["warm_start"]["value_init"]["net"] == str(tmp_path / "four.pkn")
    samples = W.record_values(net, games=9, seed=0, league="heuristic", keep=30)
    counts = {int(n) for n in W.players_of(samples.states.astype(np.float32))}
    assert counts == {3, 4, 5}
    for state, target in zip(samples.states.astype(np.float32), samples.targets, strict=True):
        n = int(W.players_of(state[None])[0])
        assert target[n:].sum() == 0 and target[:n].sum() == pytest.approx(1.0)
    # the widened start: the donor's trunk, its four seats' outputs, a fifth at their mean
    widened = W.with_value_widened(W.net_from_ppo(ppo, 5, (3, 4, 5)), tmp_path / "four.pkn")
    head = widened.value_head.weight.detach()
    torch.testing.assert_close(head[:4], donor.value_head.weight)
    torch.testing.assert_close(head[4], donor.value_head.weight.mean(dim=0))
    with pytest.raises(InvalidConfigError, match="--value-init"):
        W.with_value_widened(W.net_from_ppo(ppo, 3, (3,)), tmp_path / "four.pkn")


def test_bad_player_counts_are_refused_by_the_cli(tmp_path, capsys) -> None:
    for bad in ("2,4", "x", "6"):
        with pytest.raises(SystemExit):
            W.main(["--ppo", "m.zip", "--out", str(tmp_path / "n.pkn"), "--players", bad])
        assert "player counts" in capsys.readouterr().err
    assert not (tmp_path / "n.pkn").exists()
