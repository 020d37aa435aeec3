"""``ppo:<path>``: a MaskablePPO checkpoint plays legal, reproducible games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perikles_env.agents import AgentError, make_agent
from tests.agents.helpers import play

sb3_contrib = pytest.importorskip("sb3_contrib")
wrappers = pytest.importorskip("perikles_env.single_agent")


def train_tiny(path: Path, features: tuple[str, ...] = ()) -> Path:
    """A MaskablePPO trained for a handful of steps on the single-agent wrapper."""
    env = wrappers.PeriklesSingleAgentEnv(num_players=3, opponents="random", features=features)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )
    model.learn(total_timesteps=32)
    model.save(path)
    return path


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("ppo") / "tiny.zip")


def test_ppo_agent_feeds_the_feature_blocks_it_was_trained_with(tmp_path: Path) -> None:
    """A model trained with ``features=["battle"]`` gets the battle block appended when it
    plays as ``ppo:<path>``: its input size selects the encoder."""
    from perikles_env.analysis.encoding import default_encoder

    path = train_tiny(tmp_path / "battle.zip", features=("battle",))
    agent = make_agent(f"ppo:{path}")
    moves = [(g.clone(), x) for g, p, x in play([f"ppo:{path}", "random", "random"], 5) if p == 0]
    assert len(moves) > 20
    encode = default_encoder(["battle"]).encode
    for g, chosen in moves[:: max(1, len(moves) // 8)]:
        obs = encode(g, 0)
        mask = np.zeros(agent.model.action_space.n, dtype=bool)
        mask[g.legal_actions()] = True
        assert agent.act(obs, mask, np.random.default_rng(0)) == chosen


@pytest.mark.parametrize("deterministic", [True, False])
def test_ppo_agent_plays_legal_reproducible_games(tiny_model: Path, deterministic: bool) -> None:
    spec = f"ppo:{tiny_model}" + ("" if deterministic else ",deterministic=false")
    a = [x for _, p, x in play([spec, "random", "random"], seed=3) if p == 0]
    b = [x for _, p, x in play([spec, "random", "random"], seed=3) if p == 0]
    assert a == b and len(a) > 20


def test_ppo_agent_act_respects_the_mask(tiny_model: Path) -> None:
    agent = make_agent(f"ppo:{tiny_model},deterministic=false")
    env = wrappers.PeriklesSingleAgentEnv(num_players=3, opponents="random")
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    rng = np.random.default_rng(0)
    picks = {agent.act(obs, mask, rng) for _ in range(30)}
    assert all(mask[a] for a in picks)


def test_missing_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="not found"):
        make_agent(f"ppo:{tmp_path / 'nope.zip'}")


def test_evaluator_reloads_a_rewritten_checkpoint(tiny_model: Path, tmp_path: Path) -> None:
    """Periodic evaluation saves each new model at the same path: the evaluator's agent
    cache must not keep playing the old one."""
    import os
    import shutil

    from perikles_env.training.evaluation.runner import agent_for, forget_agent

    path = tmp_path / "model.zip"
    shutil.copy(tiny_model, path)
    spec = f"ppo:{path}"
    first = agent_for(spec)
    assert agent_for(spec) is first
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + 10))
    assert agent_for(spec) is not first
    forget_agent(spec)
