"""PettingZoo conventions: the versioned module, the registry after
``import perikles_env``, ``state()``/``state_space``, ``max_cycles`` and the parallel view;
and the AEC env's input checks: typed option errors, the engine's decision limit as a
truncation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from perikles_env import perikles_v0
from perikles_env.analysis.observation import OBS_SIZE, ORACLE_SIZE, encode_observation
from perikles_env.engine import MAX_GAME_DECISIONS, NUM_ACTIONS
from perikles_env.engine import data as D
from perikles_env.errors import InvalidConfigError

ROOT = Path(__file__).resolve().parents[2]


def legal(e) -> list[int]:
    return list(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---- the versioned module and the registry --------------------------------------------------


def test_versioned_module_has_env_raw_env_and_parallel_env() -> None:
    raw = perikles_v0.raw_env(num_players=3)
    wrapped = perikles_v0.env(num_players=5, reward="rank")
    assert type(raw).__name__ == "raw_env" and raw.metadata["name"] == "perikles_v0"
    assert wrapped.unwrapped.possible_agents == [f"player_{i}" for i in range(5)]
    assert wrapped.unwrapped.reward_mode == "rank"
    par = perikles_v0.parallel_env(num_players=4)
    observations, infos = par.reset(seed=3)
    assert set(observations) == set(par.possible_agents)


@pytest.mark.parametrize("n", [3, 5])
def test_versioned_module_passes_api_and_seed_tests(n: int) -> None:
    api_test(perikles_v0.env(num_players=n, seed=1), num_cycles=300)
    seed_test(lambda: perikles_v0.env(num_players=n), num_cycles=200)


def test_parallel_view_passes_parallel_api_test_and_applies_only_the_actor() -> None:
    parallel_api_test(perikles_v0.parallel_env(num_players=3), num_cycles=400)
    par = perikles_v0.parallel_env(num_players=3)
    observations, _ = par.reset(seed=7)
    game = par.unwrapped.game
    actor = f"player_{game.current_player}"
    choice = int(np.flatnonzero(observations[actor]["action_mask"])[-1])
    expected = game.clone()
    expected.apply_action(choice)
    # the others send ids that would be illegal for the actor: they are ignored
    actions = {a: (choice if a == actor else NUM_ACTIONS - 1) for a in par.agents}
    _, _, _, _, infos = par.step(actions)
    assert par.unwrapped.game == expected
    next_actor = f"player_{expected.current_player}"
    assert all(info["active_agent"] == next_actor for info in infos.values())


def test_registration_after_import_perikles_env_without_loading_numpy() -> None:
    """``import perikles_env`` registers with Gymnasium and PettingZoo when they are
    imported later (or were imported before), and loads neither itself."""
    out = run_python(
        "import sys, perikles_env\n"
        "print('LOADED', sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') "
        "if m in sys.modules))\n"
        "import pettingzoo\n"
        "e = pettingzoo.make('aec', 'perikles/Perikles-v0', num_players=3)\n"
        "e.reset(seed=0)\n"
        "p = pettingzoo.make('parallel', 'perikles/Perikles-v0', num_players=4)\n"
        "print('AGENTS', e.num_agents, len(p.possible_agents), type(e.unwrapped).__module__)\n"
    )
    assert "LOADED []" in out
    assert "AGENTS 3 4 perikles_env.environment.aec" in out
    out = run_python(
        "import pettingzoo, perikles_env\n"
        "print('IN', 'perikles/Perikles-v0' in pettingzoo.aec_registry)\n"
    )
    assert "IN True" in out


# ---- state() ----------------------------------------------------------------------------------


def test_state_is_the_full_state_in_absolute_seats_whoever_acts() -> None:
    e = perikles_v0.env(num_players=4)
    e.reset(seed=12)
    raw = e.unwrapped
    assert raw.state_space.shape == (ORACLE_SIZE,) and ORACLE_SIZE > OBS_SIZE
    rng = np.random.default_rng(0)
    for _ in range(120):
        e.step(int(rng.choice(legal(e))))
    game = raw.game
    state = e.state()
    assert state.dtype == np.float32 and raw.state_space.contains(state)
    # public part: seat 0's view; the rest is the oracle block, which holds every special
    # tile, hand and face-down counter
    np.testing.assert_array_equal(state[:OBS_SIZE], encode_observation(game, 0))
    specials = state[OBS_SIZE : OBS_SIZE + D.NUM_SPECIALS * D.MAX_PLAYERS].reshape(
        D.NUM_SPECIALS, D.MAX_PLAYERS
    )
    for seat in range(4):
        tile = game.special[seat]
        assert (specials[:, seat].argmax() == tile) if tile >= 0 else not specials[:, seat].any()
    pool = state[OBS_SIZE + D.NUM_SPECIALS * D.MAX_PLAYERS :][: D.NUM_CLASSES]
    np.testing.assert_allclose(pool, np.asarray(game.pool, dtype=np.float32) / 4)
    # seat 0's oracle view, whoever is to act
    np.testing.assert_array_equal(state, encode_observation(game, 0, oracle=True))


def test_state_sees_what_the_observation_hides() -> None:
    """Two games that player 0 cannot tell apart: his observation is identical, the state
    vector (hidden information included) differs."""
    e = perikles_v0.env(num_players=3)
    e.reset(seed=3)
    raw = e.unwrapped
    original = raw.game.clone()
    for seed in range(20):
        raw.game = raw.determinize(0, seed)
        if raw.game.special != original.special:
            break
    assert raw.game.special != original.special
    sample_obs, sample_state = raw.observe("player_0")["observation"], raw.state()
    raw.game = original
    np.testing.assert_array_equal(sample_obs, raw.observe("player_0")["observation"])
    assert not np.array_equal(sample_state, raw.state())


# ---- truncation: max_cycles and the engine's decision limit -----------------------------------


@pytest.mark.parametrize("n", [3, 4, 5])
def test_max_cycles_truncates_after_that_many_decisions_per_player(n: int) -> None:
    max_cycles = 7
    e = perikles_v0.env(num_players=n, max_cycles=max_cycles)
    e.reset(seed=n)
    rng = np.random.default_rng(n)
    decisions, visits = 0, {a: 0 for a in e.possible_agents}
    for agent in e.agent_iter():
        visits[agent] += 1
        _, reward, terminated, truncated, info = e.last()
        if truncated:
            assert not terminated and reward == 0.0 and info["truncated"] == "max_cycles"
            e.step(None)
            continue
        e.step(int(rng.choice(legal(e))))
        decisions += 1
    assert decisions == max_cycles * n == e.unwrapped.game.decisions
    assert not e.unwrapped.game.is_terminal
    assert sum(visits.values()) == decisions + n  # each agent removed with one None step


def test_pettingzoo_max_cycles_test_shape_on_the_round_robin_opening() -> None:
    """``pettingzoo.test.max_cycles_test`` counts one decision per agent per cycle. Perikles
    opens with two round-robin setup rounds, where that holds: with ``max_cycles=2`` every
    agent acts exactly twice and is then stepped once with None -- the test's assertions.
    (The test itself also needs unmasked random actions to be legal and a cycle-synchronous
    parallel env, which a turn-based game with masked actions does not have.)"""
    for n in (3, 4, 5):
        e = perikles_v0.env(num_players=n, max_cycles=2)
        e.reset(seed=0)
        counts = {a: 0 for a in e.possible_agents}
        for agent in e.agent_iter():
            counts[agent] += 1
            e.step(None if e.truncations[agent] else legal(e)[0])
        assert set(counts.values()) == {3}


def test_engine_decision_limit_is_a_truncation_not_an_error() -> None:
    """A game at ``MAX_GAME_DECISIONS`` unfinished (``Game.is_truncated``): every agent is
    truncated with reward 0, ``info["truncated"]`` names the limit, nothing raises."""
    e = perikles_v0.env(num_players=4)
    e.reset(seed=8)
    raw = e.unwrapped
    state = raw.game.to_dict()
    state["decisions"] = MAX_GAME_DECISIONS - 1  # hand-built: one decision before the limit
    raw.game = type(raw.game).from_dict(state)
    e.step(legal(e)[0])
    assert raw.game.is_truncated and not raw.game.is_terminal
    assert all(e.truncations.values()) and not any(e.terminations.values())
    for agent in e.possible_agents:
        assert e.rewards[agent] == 0.0
        assert e.infos[agent]["truncated"] == "max_game_decisions"
        assert e.infos[agent]["winners"] == []
        assert not e.observe(agent)["action_mask"].any()
    while e.agents:
        assert e.last()[3]
        e.step(None)


# ---- option types -------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"oracle": "no"}, "oracle"),
        ({"oracle": 1}, "oracle"),
        ({"seed": "abc"}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": True}, "seed"),
        ({"illegal_penalty": "x"}, "illegal_penalty"),
        ({"illegal_penalty": float("nan")}, "illegal_penalty"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"max_cycles": "3"}, "max_cycles"),
        ({"reward": ["win"]}, "reward"),
        ({"illegal_action": None}, "illegal_action"),
        ({"num_players": "4"}, "num_players"),
        ({"record_events": "yes"}, "record_events"),
        ({"render_mode": "video"}, "render_mode"),
    ],
)
def test_every_option_is_type_checked_with_a_typed_error_naming_it(options, named) -> None:
    with pytest.raises(InvalidConfigError, match=named):
        perikles_v0.env(**options)


def test_oracle_no_does_not_turn_hidden_information_on() -> None:
    with pytest.raises(InvalidConfigError, match="oracle"):
        perikles_v0.env(oracle="no")
    e = perikles_v0.env(oracle=False)
    e.reset(seed=0)
    assert e.observe(e.agent_selection)["observation"].shape == (OBS_SIZE,)


def test_reset_seed_is_type_checked_and_changes_nothing() -> None:
    e = perikles_v0.env(num_players=3)
    e.reset(seed=4)
    before = e.unwrapped.game.to_dict()
    for bad in ("abc", 2.5, -3):
        with pytest.raises(InvalidConfigError, match="seed"):
            e.reset(seed=bad)
    assert e.unwrapped.game.to_dict() == before
    e.reset(seed=np.int64(4))
    assert e.unwrapped.game.to_dict() == before


def test_pettingzoo_example_in_the_docs_runs_as_written() -> None:
    from tests.ecosystem_examples import run_example

    last = run_example("pettingzoo").strip().splitlines()[-1]
    assert last == f"200 ({ORACLE_SIZE},)", last
