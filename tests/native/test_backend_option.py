"""``backend=`` everywhere: the AEC env, the single-agent env and the evaluator run
their games on the engine they are asked for, and the same seed gives the same game, the
same observations and the same results on both engines."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env import env as make_env
from perikles_env.engine import new_game
from perikles_env.engine.backend import native_available
from perikles_env.errors import InvalidConfigError

needs_native = pytest.mark.skipif(not native_available(), reason="C++ core not built")


def _aec_trace(backend: str, players: int, seed: int) -> list[tuple[str, bytes, bytes, float]]:
    e = make_env(num_players=players, backend=backend, reward="rank")
    e.reset(seed=seed)
    engine = type(e.unwrapped.game).__name__
    assert engine == ("NativeGame" if backend == "native" else "Game")
    rng = np.random.default_rng(seed)
    trace = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


@needs_native
@pytest.mark.parametrize("players", [3, 4, 5])
def test_aec_env_is_identical_on_both_engines(players: int) -> None:
    python = _aec_trace("python", players, seed=players)
    native = _aec_trace("native", players, seed=players)
    assert len(python) > 200
    assert python == native


@needs_native
def test_evaluator_plays_the_same_games_on_both_engines() -> None:
    from perikles_env.evaluation import evaluate

    records = {}
    for backend in ("python", "native"):
        result = evaluate(["heuristic", "random", "random"], games=3, backend=backend)
        games = sorted(result.records, key=lambda g: (g.seed_index, g.rotation))
        records[backend] = [(g.seed, g.seats, g.scores, g.actions) for g in games]
    assert len(records["python"]) == 3
    assert records["python"] == records["native"]


@pytest.mark.parametrize("bad", ["gpu", "", 3, "Native"])
def test_bad_backend_is_a_typed_error_everywhere(bad) -> None:
    from perikles_env.engine import GameConfig
    from perikles_env.evaluation.config import EvalConfig

    with pytest.raises(InvalidConfigError, match="backend"):
        new_game(GameConfig(num_players=3), seed=0, backend=bad)
    with pytest.raises(InvalidConfigError, match="backend"):
        make_env(num_players=3, backend=bad)
    with pytest.raises(InvalidConfigError, match="backend"):
        EvalConfig(lineups=(("random",) * 3,), backend=bad)


@needs_native
def test_single_agent_env_is_identical_on_both_engines() -> None:
    from perikles_env.single_agent import PeriklesSingleAgentEnv

    traces = {}
    for backend in ("python", "native"):
        env = PeriklesSingleAgentEnv(
            num_players=4, opponents="heuristic", features=("battle",), backend=backend
        )
        assert env.backend == backend
        rng = np.random.default_rng(3)
        obs, _ = env.reset(seed=3)
        trace = [obs.tobytes()]
        for _ in range(150):
            obs, reward, term, trunc, info = env.step(
                int(rng.choice(np.flatnonzero(env.action_masks())))
            )
            trace.append((obs.tobytes(), reward, term, trunc))
            if term or trunc:
                obs, _ = env.reset()
        traces[backend] = trace
    assert traces["python"] == traces["native"]


def test_training_config_checks_the_backend() -> None:
    pytest.importorskip("yaml")
    from perikles_env.training.ppo.config import config_from_dict

    assert config_from_dict({}, ["env.backend=python"]).env.backend == "python"
    with pytest.raises(InvalidConfigError, match="env.backend"):
        config_from_dict({}, ["env.backend=gpu"])
