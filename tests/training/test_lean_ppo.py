"""The lean learner (``ppo.learner: lean``) is MaskablePPO's algorithm: the same
log-probabilities, entropies and values as ``ActionScoringPolicy.evaluate_actions`` on the
dense observations (computed at the legal ids only), actions drawn with the policy's
probabilities, GAE equal to SB3's buffer, seeded runs that repeat their losses, and
model files that play as ``ppo:<path>``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from perikles_env.training.ppo.config import load_config
from perikles_env.training.ppo.lean_ppo import (
    LeanMaskablePPO,
    LegalActions,
    SparseRollout,
    legal_logits,
    split_observations,
)
from perikles_env.training.ppo.train import make_model, make_vec_env

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
LEAN = [
    "env.features=[battle,actions]", "ppo.action_head=scoring", "ppo.learner=lean",
    "opponents.weights={random: 1.0, heuristic: 1.0}", "pretrain.decisions=0",
    "env.vector=native", "train.n_envs=4", "ppo.n_steps=32", "ppo.batch_size=32",
    "ppo.n_epochs=2", "train.tensorboard=false",
]


def lean_model(overrides: list[str] = ()) -> tuple[LeanMaskablePPO, object]:
    config = load_config(SMOKE, [*LEAN, *overrides])
    env = make_vec_env(config, {"random": 1.0, "heuristic": 1.0})
    model = make_model(config, env, None)
    assert isinstance(model, LeanMaskablePPO)
    return model, config


@pytest.mark.parametrize("trunk", [[], [24]])
def test_the_lean_heads_equal_the_policys_own_evaluation(trunk):
    """At the legal ids the lean logits are the policy's own (the same sums, bit for bit);
    log-probabilities, entropies and values equal ``evaluate_actions`` on the dense
    observations; with separate networks and with a shared trunk."""
    from perikles_env.agents.action_scoring import scored_logits

    torch.manual_seed(0)
    model, _ = lean_model([f"ppo.trunk={trunk}"])
    assert bool(getattr(model.policy.mlp_extractor, "shared_net", None)) == bool(trunk)
    env = model.env
    obs = env.reset()
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(12):
        masks = np.asarray(env.env_method("action_masks"), dtype=bool)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        states, rows, ids, features = split_observations(obs)
        assert len(rows) > 0  # the block scores some legal actions
        scored = (torch.from_numpy(rows), torch.from_numpy(ids), torch.from_numpy(features))
        with torch.no_grad():
            values, log_prob, entropy = model.policy.evaluate_actions(
                torch.as_tensor(obs), torch.as_tensor(actions), action_masks=masks
            )
            legal = LegalActions(torch.from_numpy(masks), scored[0], scored[1])
            latent_pi, latent_vf = model.policy.mlp_extractor(torch.from_numpy(states))
            logits = legal_logits(model.policy, latent_pi, scored, legal)
            dense = scored_logits(model.policy, latent_pi, *scored)
            log_all = legal.log_softmax(logits)
            lean_values = model.policy.value_net(latent_vf).flatten()
        assert torch.equal(logits, dense[legal.rows, legal.ids])
        assert legal.rows.tolist() == np.nonzero(masks)[0].tolist()
        chosen = legal.position(torch.arange(len(actions)), torch.from_numpy(actions))
        lean_log_prob = log_all[chosen]
        torch.testing.assert_close(lean_values, values.flatten())
        torch.testing.assert_close(lean_log_prob, log_prob, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(legal.entropy(log_all), entropy, atol=1e-5, rtol=1e-5)
        seen += len(actions)
        obs, *_ = env.step(actions)
    assert seen == 48


def test_sampled_actions_follow_the_probabilities_and_stay_legal(monkeypatch):
    """``LegalActions.sample`` draws each legal id as often as its probability says (within
    four standard errors over 100,000 draws per row), never a masked one, and stays inside
    its row when the draw is at either end of the row's span."""
    torch.manual_seed(0)
    draws = 100_000
    masks = torch.zeros(2 * draws, 957, dtype=torch.bool)
    masks[0::2, [3, 40, 41, 500, 956]] = True
    masks[1::2, [0, 7]] = True
    none = torch.zeros(0, dtype=torch.long)
    legal = LegalActions(masks, none, none)
    logits = torch.tensor([0.0, 1.0, -1.0, 2.0, 0.5, 0.0, 3.0]).repeat(draws)
    log_probs = legal.log_softmax(logits)
    actions = legal.ids[legal.sample(log_probs)].view(draws, 2)
    for row, (ids, row_logits) in enumerate(
        [([3, 40, 41, 500, 956], logits[:5]), ([0, 7], logits[5:7])]
    ):
        counts = torch.bincount(actions[:, row], minlength=957).double() / draws
        assert set(torch.nonzero(counts).flatten().tolist()) <= set(ids)
        p = torch.softmax(row_logits.double(), -1)
        drawn = counts[ids]
        assert torch.all((drawn - p).abs() <= 4 * (p * (1 - p) / draws).sqrt())
    small = LegalActions(masks[:2], none, none)
    small_log_probs = small.log_softmax(logits[:7])
    for value, expected in ((1.0, [956, 7]), (0.0, [3, 0])):
        def uniform(*shape, v=value, **kw):
            return torch.full(shape, v, dtype=kw.get("dtype"))

        monkeypatch.setattr(torch, "rand", uniform)
        assert small.ids[small.sample(small_log_probs)].tolist() == expected


def test_gae_and_minibatches_equal_sb3s_buffer():
    steps, envs, state, actions = 6, 3, 5, 957
    rng = np.random.default_rng(2)
    store = SparseRollout(steps, envs, state, actions)
    sb3 = MaskableRolloutBuffer(
        steps, __import__("gymnasium").spaces.Box(-1, 1, (state,)),
        __import__("gymnasium").spaces.Discrete(actions), n_envs=envs, gamma=0.9, gae_lambda=0.8,
    )
    for step in range(steps):
        rewards = rng.normal(size=envs).astype(np.float32)
        starts = (rng.random(envs) < 0.3).astype(np.float32)
        values = rng.normal(size=envs).astype(np.float32)
        store.rewards[step], store.episode_starts[step] = rewards, starts
        store.values[step] = values
        store.states[step] = torch.from_numpy(rng.normal(size=(envs, state)).astype(np.float32))
        k = step % 3  # scored entries: 0, 1 or 2 per env
        env_rows = np.repeat(np.arange(envs), k)
        store.add_entries(
            step, env_rows, np.arange(len(env_rows)) + 10 * step,
            np.full((len(env_rows), 9), step, dtype=np.float32),
        )
        sb3.add(np.zeros((envs, state)), np.zeros((envs, 1)), rewards, starts,
                torch.from_numpy(values), torch.zeros(envs))
    last, dones = rng.normal(size=envs).astype(np.float32), np.array([True, False, False])
    store.finish(last, dones, 0.9, 0.8)
    sb3.compute_returns_and_advantage(torch.from_numpy(last), dones)
    np.testing.assert_allclose(store.advantages, sb3.advantages, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(store.returns, sb3.returns, rtol=1e-6, atol=1e-6)
    # a minibatch carries each sample's own entries, renumbered to its rows
    index = torch.tensor([5, 0, 16, 13])  # (step, env) = (1, 2), (0, 0), (5, 1), (4, 1)
    batch = store.minibatch(index)
    assert batch["rows"].tolist() == [0, 2, 2, 3]  # 1 + 0 + 2 + 1 entries
    assert batch["features"][:, 0].tolist() == [1.0, 5.0, 5.0, 4.0]
    torch.testing.assert_close(batch["states"][2], store.states[5, 1])
    assert batch["returns"][3] == pytest.approx(float(store.returns[4, 1]))


def losses(seed: int) -> list[float]:
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model, _ = lean_model([f"seed={seed}"])
    recorded: list[float] = []
    record = model.logger.record

    def keep(key, value, exclude=None):
        if key == "train/loss":
            recorded.append(float(value))
        record(key, value, exclude)

    model.logger.record = keep
    model.learn(4 * 32 * 3)  # three rollouts and updates
    model.env.close()
    return recorded


def test_a_seeded_run_repeats_its_losses_on_one_thread():
    first = losses(3)
    assert len(first) == 3 and all(np.isfinite(first))
    assert losses(3) == first
    assert losses(4) != first


def test_lean_training_writes_a_model_that_plays_as_ppo(tmp_path):
    from perikles_env.agents import make_agent
    from perikles_env.engine import Game, GameConfig
    from perikles_env.launch.ppo import main

    assert main([
        "--config", str(SMOKE), *sum((["--override", o] for o in LEAN), []),
        "--override", f"out={tmp_path}", "--override", "train.total_timesteps=256",
        "--override", "eval.every=0", "--override", "eval.final_games=0",
    ]) == 0
    agent = make_agent(f"ppo:{tmp_path / 'smoke' / 'model.zip'}")
    game = Game.new(GameConfig(num_players=4), seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        action = agent.act_state(game, game.current, rng)
        assert action in game.legal_actions()
        game.apply_action(action)


def test_lean_needs_the_scoring_head():
    from perikles_env.errors import InvalidConfigError

    with pytest.raises(InvalidConfigError, match="ppo.learner"):
        load_config(SMOKE, ["ppo.learner=lean"])


def test_the_pipelined_rollout_records_what_the_step_by_step_one_does():
    """Half the native envs stepping while the network decides for the other half changes
    nothing the rollout records: the same states, masks, actions (the same uniform draws),
    rewards, episode starts and scored entries as stepping every env at once, and values
    and log-probabilities equal up to the matrix products' rounding."""
    stores = []
    for pipeline in (True, False):
        torch.manual_seed(5)
        model, _ = lean_model(["seed=5", "train.n_envs=6", "ppo.n_steps=24"])
        model.pipeline = pipeline
        model.learn(6 * 24)  # one rollout (and one update)
        stepped_apart = model.env.unwrapped._executor is not None  # step_rows_async ran
        assert stepped_apart == pipeline
        stores.append(model.rollout)
        model.env.close()
    piped, whole = stores
    for name in ("states", "masks", "actions", "entry_ids", "entry_features", "counts"):
        assert torch.equal(getattr(piped, name), getattr(whole, name)), name
    for name in ("rewards", "episode_starts"):
        assert np.array_equal(getattr(piped, name), getattr(whole, name)), name
    torch.testing.assert_close(piped.log_probs, whole.log_probs)
    np.testing.assert_allclose(piped.values, whole.values, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(piped.advantages, whole.advantages, rtol=1e-4, atol=1e-5)
    assert piped.episode_starts.any()  # games ended inside the rollout
