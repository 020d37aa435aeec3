"""The SB3 VecEnv over the C++ vector env (``training/native_vec_env.py``) against the
Python reference: every env's games replayed on the Python engine with the same seed
streams give the same observations (feature blocks included), masks, rewards
(``environment/rewards.py``'s ``RewardTracker``), truncations and outcomes; episodes are
counted as ``VecMonitor`` and the trainer's callbacks read them; a seed reproduces a run;
an illegal action raises and changes nothing; MaskablePPO trains on it; ``env.vector``
chooses and validates the path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perikles_env.analysis.encoding import default_encoder
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine.rng import Rng
from perikles_env.environment.rewards import RewardConfig, RewardTracker
from perikles_env.errors import IllegalActionError, InvalidConfigError
from tests.native.vec_helpers import draw_table, require_native_vec

require_native_vec()
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from perikles_env.training.ppo.config import load_config  # noqa: E402
from perikles_env.training.ppo.native_vec_env import (  # noqa: E402
    NativeVecEnv,
    choose_vector,
    make_native_vec_env,
)
from perikles_env.vector.native import _native_vec  # noqa: E402

REWARD = RewardConfig(win=1.0, vp_margin=0.5, shaping=1.0, vp_scale=10.0)


class Twin:
    """One env of the native VecEnv replayed on the Python engine: the seed, seat and
    player-count streams of ``native/env/vector_env.hpp``, the episode rules of
    ``single_agent/env.py`` (truncation, dealing again) and its reward tracker."""

    def __init__(self, seed: int, counts, seat, max_decisions: int, features) -> None:
        self.seeds, self.policy = Rng(seed), Rng(seed ^ _native_vec.POLICY_SALT)
        self.counts, self.seat, self.max_decisions = counts, seat, max_decisions
        self.encoder = default_encoder(features)
        self.deal(seed)

    def deal(self, seed: int) -> None:
        while True:
            n, self.learner = draw_table(self.policy, self.counts, self.seat)
            self.game_seed = seed
            config = GameConfig(num_players=n, record_events=False)
            self.game = new_game(config, seed=seed, backend="python")
            self.play_opponents()
            if not self.game.is_terminal and not self.truncated():
                break
            seed = self.seeds.next64()
        self.tracker = RewardTracker(REWARD, self.game, self.learner)

    def truncated(self) -> bool:
        return not self.game.is_terminal and self.game.decisions >= self.max_decisions

    def play_opponents(self) -> None:
        g = self.game
        while not g.is_terminal and g.current != self.learner and not self.truncated():
            legal = g.legal_actions()
            g.apply_action(legal[self.policy.randrange(len(legal))])

    def observe(self) -> np.ndarray:
        return self.encoder.encode(self.game, self.learner)

    def step(self, action: int) -> tuple[float, bool, bool, int]:
        before = self.game.decisions
        self.game.apply_action(action)
        self.play_opponents()
        reward = self.tracker.step(self.game)
        return reward, self.game.is_terminal, self.truncated(), self.game.decisions - before

    def outcome(self) -> dict:
        """``PeriklesSingleAgentEnv.outcome()`` of this game."""
        g, terminal = self.game, self.game.is_terminal
        return {
            "terminal": terminal,
            "truncated": self.truncated(),
            "scores": g.scores(),
            "winners": g.winners() if terminal else [],
            "win_share": g.win_shares()[self.learner] if terminal else 0.0,
            "learner_vp": g.scores()[self.learner],
            "opponents": ["random"] * (g.n - 1),
        }


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize(
    "counts,seat,max_decisions,features",
    [([3, 4, 5], None, 1000, ("battle",)), ([4], 1, 300, ())],
    ids=["3-5p random seat battle", "4p seat 1 truncated at 300"],
)
def test_every_step_equals_the_python_reference(counts, seat, max_decisions, features) -> None:
    num_envs, seed = 3, 40
    env = NativeVecEnv(num_envs, counts, seat, REWARD, max_decisions, features, seed=seed)
    twins = [Twin(seed + i, counts, seat, max_decisions, features) for i in range(num_envs)]
    obs = env.reset()
    rng = np.random.default_rng(1)
    ended = [0] * num_envs
    kinds: set[str] = set()
    expected = {"terminated"} if max_decisions == 1000 else {"terminated", "truncated"}
    while min(ended) < 2 or (kinds != expected and sum(ended) < 30):
        masks = env.action_masks()
        assert np.array_equal(np.stack(env.env_method("action_masks")), masks)
        for i, t in enumerate(twins):
            assert same_bytes(obs[i], t.observe()), f"env {i} observation"
            assert np.flatnonzero(masks[i]).tolist() == t.game.legal_actions(), f"env {i} mask"
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step_async(actions)
        obs, rewards, dones, infos = env.step_wait()
        for i, t in enumerate(twins):
            reward, terminated, truncated, decisions = t.step(int(actions[i]))
            info = infos[i]
            assert rewards[i] == np.float32(reward), f"env {i} reward"
            assert dones[i] == (terminated or truncated)
            assert (info["learner_seat"], info["num_players"]) == (t.learner, t.game.n)
            assert info["decisions"] == decisions
            if dones[i]:
                assert info["TimeLimit.truncated"] == truncated
                assert {k: info[k] for k in t.outcome()} == t.outcome()
                assert same_bytes(info["terminal_observation"], t.observe())
                kinds.add("truncated" if truncated else "terminated")
                ended[i] += 1
                t.deal(t.seeds.next64())
                assert env.vector.game_seed(i) == t.game_seed
    assert kinds == expected


def test_episodes_are_accounted_as_vec_monitor_and_the_callbacks_read_them() -> None:
    env = VecMonitor(NativeVecEnv(4, 3, None, REWARD, seed=3))
    env.reset()
    returns, lengths = np.zeros(4), np.zeros(4, dtype=int)
    episodes = []
    while len(episodes) < 8:
        masks = env.env_method("action_masks")
        obs, rewards, dones, infos = env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(dones):
            ep = infos[i]["episode"]
            assert ep["l"] == lengths[i] and ep["r"] == pytest.approx(returns[i], abs=1e-5)
            assert infos[i]["win_share"] in (0.0, 1.0, 0.5, 1 / 3)
            assert infos[i]["learner_vp"] == infos[i]["scores"][infos[i]["learner_seat"]]
            episodes.append(i)
            returns[i], lengths[i] = 0.0, 0
    native = env.venv
    assert [native.vector.episodes(i) for i in range(4)] == [episodes.count(i) for i in range(4)]


def run(env: VecEnv, steps: int) -> list[tuple[np.ndarray, ...]]:
    """Observations, rewards, dones, decisions and win shares of ``steps`` random steps."""
    out = [(env.reset(),)]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = env.env_method("action_masks")
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        counts = np.array([(i["decisions"], i.get("win_share", -1)) for i in infos])
        out.append((obs, rewards, dones, counts))
    return out


def test_a_seed_reproduces_the_run_and_another_seed_does_not() -> None:
    def make() -> NativeVecEnv:
        return NativeVecEnv(3, [3, 4, 5], None, REWARD, seed=99)

    first = run(make(), 150)
    again = make()
    again.seed(7)
    again.seed(99)  # VecEnv.seed: env i gets 99 + i, as the constructor's seed
    for a, b in zip(first, run(again, 150), strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
    other = make()
    other.seed(100)
    assert not np.array_equal(run(other, 1)[0][0], first[0][0])


def test_threads_give_the_same_steps_and_make_native_vec_env_uses_them() -> None:
    """The trainer's env (``make_native_vec_env``) steps its games and native opponents on
    ``train.workers`` C++ threads: the same steps as one thread, seeds included."""
    kwargs = {"num_players": [3, 4, 5], "learner_seat": None, "reward": REWARD}
    kwargs["opponents"] = {"random": 0.5, "heuristic": 0.5}
    two = make_native_vec_env(5, 2, seed=3, **kwargs)
    assert isinstance(two, NativeVecEnv) and two.vector.threads == 2
    one = NativeVecEnv(5, seed=3, **kwargs)
    for seed in (None, 11):
        if seed is not None:
            two.seed(seed)
            one.seed(seed)
        for a, b in zip(run(two, 60), run(one, 60), strict=True):
            for x, y in zip(a, b, strict=True):
                assert np.array_equal(x, y)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env, fresh = NativeVecEnv(2, 4, 0, REWARD, seed=5), NativeVecEnv(2, 4, 0, REWARD, seed=5)
    env.reset()
    masks = env.action_masks()
    fresh.reset()
    legal = [int(np.flatnonzero(m)[0]) for m in masks]
    illegal = int(np.flatnonzero(~masks[1])[0])
    for bad in ([legal[0], illegal], [legal[0], 957], [-1, legal[1]], [legal[0] + 0.5, 1.0]):
        env.step_async(np.array(bad))
        error = IllegalActionError if isinstance(bad[1], int) else InvalidConfigError
        with pytest.raises(error):
            env.step_wait()
    assert np.array_equal(env.action_masks(), masks)
    env.step_async(np.array(legal))
    fresh.step_async(np.array(legal))
    for a, b in zip(env.step_wait()[:3], fresh.step_wait()[:3], strict=True):
        assert np.array_equal(a, b)
    with pytest.raises(RuntimeError, match="reset"):
        NativeVecEnv(1).step_wait()


def test_maskable_ppo_trains_on_it() -> None:
    from sb3_contrib import MaskablePPO

    env = VecMonitor(NativeVecEnv(2, 3, None, REWARD, max_decisions=100, seed=0))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [16]},
        device="cpu",
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert model.num_timesteps == 256
    assert len(model.ep_info_buffer) > 0  # episodes ended and were counted
    assert any(
        not np.array_equal(a, b.detach())
        for a, b in zip(before, model.policy.parameters(), strict=True)
    )


def test_env_vector_chooses_the_path_and_validates_it(monkeypatch) -> None:
    weights = {"random": 1.0}
    assert choose_vector("auto", weights, None)[0] == "native"
    assert choose_vector("auto", {"random": 0.9, "ismcts": 0.1}, None)[0] == "python"
    league = {"heuristic:spite=1.5": 0.9, "self_latest": 0.1}
    assert choose_vector("auto", league, None)[0] == "native"
    assert choose_vector("auto", {"random": 1.0, "self_latest": 0.0}, None)[0] == "native"
    assert choose_vector("auto", weights, "python")[0] == "python"
    monkeypatch.setenv("PERIKLES_BACKEND", "python")
    assert choose_vector("auto", weights, None)[0] == "python"
    assert choose_vector("auto", weights, "native")[0] == "native"
    monkeypatch.delenv("PERIKLES_BACKEND")
    assert choose_vector("native", weights, None)[0] == "native"
    assert choose_vector("python", weights, None)[0] == "python"
    with pytest.raises(InvalidConfigError, match="ismcts"):
        choose_vector("native", {"random": 1.0, "ismcts:sims=2": 0.5}, None)
    smoke = "configs/smoke.yaml"
    with pytest.raises(InvalidConfigError, match="env.vector"):
        load_config(smoke, ["env.vector=fast"])
    with pytest.raises(InvalidConfigError, match="env.vector: native cannot run"):
        load_config(smoke, ["env.vector=native", "opponents.weights={'ismcts:sims=2': 1.0}"])
    assert load_config(smoke, ["env.vector=native"]).env.vector == "native"  # league + self
    config = load_config(smoke, ["env.vector=native", "opponents.weights={random: 1.0}"])
    assert config.env.vector == "native"
    env = NativeVecEnv(1, 4, None, REWARD)
    env.env_method("set_opponents", "random")
    with pytest.raises(InvalidConfigError, match="heuristic"):
        env.env_method("set_opponents", {"random": 1.0, "heuristic": 1.0})


def test_the_trainer_runs_on_it_end_to_end(tmp_path, capsys) -> None:
    from perikles_env.launch.ppo import main

    overrides = ["env.vector=auto", "opponents.weights={random: 1.0}", "pretrain.decisions=0"]
    overrides += ["eval.every=0", f"out={tmp_path}"]
    args = ["--config", "configs/smoke.yaml"] + [x for o in overrides for x in ("--override", o)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "training envs: native (auto: every opponent is native or a network)" in out
    summary = json.loads((tmp_path / "smoke" / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["timesteps"] == 1024
    assert summary["episodes"] > 0 and summary["env_decisions"] > summary["timesteps"]
    last = summary["rollouts"][-1]
    assert last["learner_steps_per_s"] > 0 and "rollout_win_rate_vs_random" in last
    assert summary["final_eval"][0]["illegal_actions"] == 0


def test_snapshots_are_python_controllers_answered_in_one_batch(tmp_path, monkeypatch) -> None:
    """Self-play snapshots (``ppo:`` specs) sit at the native env's Python controllers: the
    games waiting for one network are answered by one ``act_batch`` call per round, the
    learner's rows never reach it, a game keeps its players while the pool changes, and
    the episode infos name the snapshot."""
    from sb3_contrib import MaskablePPO

    from perikles_env.agents.ppo import PPOAgent
    from perikles_env.agents.ppo_file import save_model

    env = NativeVecEnv(6, 4, None, REWARD, seed=2, opponents={"heuristic": 1.0})
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=8, batch_size=8, seed=0, policy_kwargs={"net_arch": [8]}
    )
    path = tmp_path / "snap.zip"
    save_model(path, model.policy, (), 0)
    spec = f"ppo:{path},deterministic=false"
    calls: list[int] = []
    real = PPOAgent.act_batch

    def counted(self, observations, masks, rng):  # noqa: ANN001
        calls.append(len(observations))
        return real(self, observations, masks, rng)

    monkeypatch.setattr(PPOAgent, "act_batch", counted)
    env.set_opponents({"heuristic": 0.5, spec: 0.5})
    env.reset()
    seen_snapshot = False
    for _ in range(400):
        masks = env.action_masks()
        env.step_async(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        _, _, dones, infos = env.step_wait()
        assert (env._state.controller == 0).all()  # every row is the learner's again
        for i in np.flatnonzero(dones):
            seen_snapshot |= spec in infos[i]["opponents"]
        if seen_snapshot and calls:
            break
    assert calls and max(calls) > 1 and seen_snapshot  # batched, and it played
    with pytest.raises(InvalidConfigError, match="first pool"):
        env.set_opponents({"random": 1.0})


NET_FEATURES = ("battle", "actions")


def test_the_search_network_plays_its_seats_as_on_the_python_engine() -> None:
    """``net`` sits at a Python controller: every learner observation of a whole game
    equals the Python engine's game in which the other seats are ``NetAgent.act_state``
    (the network read from each seat's own observation, as in the evaluator)."""
    from perikles_env.agents import make_agent

    env = NativeVecEnv(1, 4, 0, REWARD, features=NET_FEATURES, seed=7, opponents="net")
    net = make_agent("net")
    encoder = default_encoder(NET_FEATURES)
    game = new_game(GameConfig(num_players=4, record_events=False), seed=7, backend="python")
    rng = np.random.default_rng(0)
    obs = env.reset()
    learner_decisions, done = 0, False
    while not done:
        while game.current != 0 and not game.is_terminal:
            game.apply_action(net.act_state(game, game.current, rng))
        if done or game.is_terminal:
            break
        assert same_bytes(obs[0], encoder.encode(game, 0))
        action = int(np.flatnonzero(env.action_masks()[0])[0])
        assert action == game.legal_actions()[0]
        game.apply_action(action)
        env.step_async(np.array([action]))
        obs, _, dones, infos = env.step_wait()
        learner_decisions += 1
        done = bool(dones[0])
    while game.current != 0 and not game.is_terminal:  # the seats after the last decision
        game.apply_action(net.act_state(game, game.current, rng))
    assert game.is_terminal and done and learner_decisions > 20
    assert infos[0]["opponents"] == ["net"] * 3
    assert infos[0]["scores"] == game.scores()


@pytest.mark.parametrize(
    ("counts", "features", "message"),
    [([3, 4], NET_FEATURES, "plays only 4-player games"), ([4], ("battle",), "feature blocks")],
)
def test_a_network_that_cannot_read_or_play_the_env_is_refused(
    counts, features, message, four_player_network
):
    with pytest.raises(InvalidConfigError, match=message) as info:
        NativeVecEnv(2, counts, None, REWARD, features=features, opponents={"net": 1.0})
    assert "\n" not in str(info.value)


def rows_run(env: NativeVecEnv, steps: int, halves: list[np.ndarray]) -> list[tuple]:
    """``run``'s record, each step taken as ``step_rows_async`` calls on ``halves``."""
    out: list[tuple] = [(env.reset(),)]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        for rows in halves:
            env.step_rows_async(rows, actions[rows])
        obs, rewards, dones, infos = env.step_wait()
        counts = np.array([(i["decisions"], i.get("win_share", -1)) for i in infos])
        out.append((obs, rewards, dones, counts))
    return out


def test_rows_stepped_apart_equal_the_whole_step() -> None:
    """``step_rows_async`` on any split of the rows, in any order, then ``step_wait()``:
    the same observations, rewards, dones and infos as ``step()`` of every row."""
    kwargs = {"num_players": [3, 4, 5], "learner_seat": None, "reward": REWARD, "seed": 4}
    kwargs["opponents"] = {"random": 0.5, "heuristic": 0.5}
    whole = run(NativeVecEnv(5, **kwargs), 80)
    for halves in ([np.array([3, 1]), np.array([0, 4, 2])], [np.arange(5)]):
        for a, b in zip(whole, rows_run(NativeVecEnv(5, **kwargs), 80, halves), strict=True):
            for x, y in zip(a, b, strict=True):
                assert np.array_equal(x, y)
    assert any(step[2].any() for step in whole[1:])  # games ended on the way


def test_rows_being_stepped_leave_the_others_readable() -> None:
    env = NativeVecEnv(4, 4, None, REWARD, seed=8, opponents={"heuristic": 1.0})
    env.reset()
    before_obs, before_masks = env.observe_rows(np.array([2, 3]))
    masks = env.action_masks()
    env.step_rows_async(np.array([0, 1]), np.array([np.flatnonzero(m)[0] for m in masks[:2]]))
    obs, row_masks = env.observe_rows(np.array([2, 3]))  # while rows 0 and 1 step
    assert np.array_equal(obs, before_obs) and np.array_equal(row_masks, before_masks)
    env.wait_rows()
    assert np.array_equal(env.observe_rows(np.array([2, 3]))[0], before_obs)


def test_rows_given_wrongly_are_refused_and_change_nothing() -> None:
    env = NativeVecEnv(3, 4, 0, REWARD, seed=6, opponents={"heuristic": 1.0})
    with pytest.raises(RuntimeError, match="reset"):
        env.step_rows_async(np.array([0]), np.array([0]))
    first = env.reset()
    legal = np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()])
    for rows, actions, message in (
        ([0, 3], legal[:2], "env indices"),
        ([0, 0], legal[:2], "once per step"),
        ([0], [-1], ">= 0"),
        ([0, 1], legal[:1], "one length"),
        ([0], [0.5], "integer"),
    ):
        with pytest.raises(InvalidConfigError, match=message):
            env.step_rows_async(np.array(rows), np.array(actions))
    assert np.array_equal(env.observe_rows(np.arange(3))[0], first)
    env.step_rows_async(np.array([1]), legal[[1]])
    with pytest.raises(InvalidConfigError, match=r"rows \[1\] were already given"):
        env.step_rows_async(np.array([1, 2]), legal[[1, 2]])
    with pytest.raises(RuntimeError, match=r"not stepped rows \[0, 2\]"):
        env.step_wait()
    illegal = int(np.flatnonzero(~env.action_masks()[0])[0])
    env.step_rows_async(np.array([0]), np.array([illegal]))
    with pytest.raises(IllegalActionError):
        env.wait_rows()
    assert np.array_equal(env.observe_rows(np.array([0]))[0], first[[0]])  # unchanged
    env.step_rows_async(np.array([0, 2]), legal[[0, 2]])  # row 0 may be given again
    assert env.step_wait()[0].shape == first.shape
    env.close()
