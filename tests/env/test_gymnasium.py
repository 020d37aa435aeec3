"""Gymnasium registration of the single-agent env: ``gymnasium.make`` with
defaults and with keyword options, SB3's ``make_vec_env``, and the MaskablePPO example of
docs/ecosystem.md, run as written."""

from __future__ import annotations

import re
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import perikles_env  # noqa: F401  (registers Perikles-v0)
from perikles_env.analysis.observation import OBS_SIZE
from perikles_env.engine import NUM_ACTIONS
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import PeriklesSingleAgentEnv
from tests.ecosystem_examples import ROOT, doc_example, run_example


def test_make_with_defaults_gives_the_single_agent_env() -> None:
    env = gymnasium.make("Perikles-v0")
    raw = env.unwrapped
    assert isinstance(raw, PeriklesSingleAgentEnv)
    assert env.spec is not None and env.spec.id == "Perikles-v0"
    assert raw.player_counts == (4,) and raw.fixed_seat is None
    assert raw.pool.specs == ("random",)
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == NUM_ACTIONS
    obs, info = env.reset(seed=3)
    assert obs.shape == (OBS_SIZE,) and info["num_players"] == 4
    legal = np.flatnonzero(info["action_mask"])
    assert legal.size and raw.game.current_player == info["learner_seat"]
    obs, reward, terminated, truncated, info = env.step(int(legal[0]))
    assert not (terminated or truncated) and reward == 0.0
    check_env(raw, skip_render_check=True)


def test_make_passes_keyword_options_to_the_constructor() -> None:
    env = gymnasium.make(
        "Perikles-v0",
        num_players=[3, 5],
        learner_seat=1,
        opponents={"heuristic": 1.0, "random": 1.0},
        reward="vp_margin",
        features=["battle"],
    )
    raw = env.unwrapped
    assert raw.player_counts == (3, 5) and raw.fixed_seat == 1
    assert raw.pool.specs == ("heuristic", "random")
    assert raw.reward_config.win == 0.0 and raw.reward_config.vp_margin == 1.0
    assert env.observation_space.shape[0] > OBS_SIZE  # the battle block is appended
    seen = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        assert info["learner_seat"] == 1
        seen.add(info["num_players"])
        assert set(raw.seat_specs) - {"learner"} <= {"heuristic", "random"}
    assert seen == {3, 5}


def test_make_rejects_bad_options_with_typed_errors() -> None:
    with pytest.raises(InvalidConfigError, match="num_players"):
        gymnasium.make("Perikles-v0", num_players=6)
    with pytest.raises(InvalidConfigError, match="learner_seat"):
        gymnasium.make("Perikles-v0", num_players=3, learner_seat=3)
    with pytest.raises(InvalidConfigError, match="opponent"):
        gymnasium.make("Perikles-v0", opponents="nobody")


def test_make_vec_env_with_defaults_and_masks_through_the_wrappers() -> None:
    """SB3's ``make_vec_env`` asks for ``render_mode="rgb_array"`` by default; the env
    accepts it (the picture needs the render extra only when drawn)."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    vec_env = env_util.make_vec_env("Perikles-v0", n_envs=2, seed=0)
    obs = vec_env.reset()
    assert obs.shape == (2, OBS_SIZE)
    masks = np.stack(vec_env.env_method("action_masks"))
    assert masks.shape == (2, NUM_ACTIONS) and masks.any(axis=1).all()
    games = vec_env.get_attr("game")
    for mask, game in zip(masks, games, strict=True):
        assert list(np.flatnonzero(mask)) == game.legal_actions()
    assert vec_env.get_attr("render_mode") == ["rgb_array", "rgb_array"]
    vec_env.close()


def test_maskable_ppo_example_in_the_docs_runs_as_written() -> None:
    pytest.importorskip("sb3_contrib")
    code = doc_example("maskable-ppo")
    assert len([line for line in code.splitlines() if line.strip()]) <= 16
    last = run_example("maskable-ppo").strip().splitlines()[-1]
    assert re.fullmatch(r"learner VP \d+ scores \[\d+, \d+, \d+\]", last), last


@pytest.mark.parametrize(
    "code",
    [
        "import perikles_env, gymnasium\nenv = gymnasium.make('Perikles-v0')",
        "import gymnasium, perikles_env\nenv = gymnasium.make('Perikles-v0')",
        "import gymnasium\nenv = gymnasium.make('perikles_env:Perikles-v0')",
    ],
)
def test_registered_whatever_the_import_order(code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code + "\nprint(type(env.unwrapped).__name__)"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "PeriklesSingleAgentEnv"
