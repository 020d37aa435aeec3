"""The fast observation encoder (incremental, shared between observers, seat permutation)
gives exactly the values of a plain re-encode-everything reference (tests/env/
reference_encoder.py), whatever order states arrive in (docs/observation.md)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from perikles_env import env
from perikles_env.analysis.observation import (
    OBS_SIZE,
    ORACLE_SIZE,
    ObservationEncoder,
    encode_observation,
)
from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine.determinize import determinize
from tests.env.reference_encoder import reference_observation


def game_states(n: int, seed: int) -> list[Game]:
    """Every decision state of one random game (copies), and the final state."""
    g = new_game(GameConfig(num_players=n), seed=seed)
    r = random.Random(seed)
    states = []
    while not g.is_terminal:
        states.append(g.clone())
        g.apply_action(r.choice(g.legal_actions()))
    states.append(g.clone())
    return states


def assert_same(fast: np.ndarray, ref: np.ndarray, where: str) -> None:
    if not np.array_equal(fast, ref):
        diff = np.flatnonzero(fast != ref)
        raise AssertionError(f"{where}: {len(diff)} values differ, first at {diff[:8]}")


@pytest.mark.parametrize("n,seed", [(3, 11), (4, 12), (5, 13)])
def test_fast_encoder_equals_reference_over_a_whole_game_for_every_observer(
    n: int, seed: int
) -> None:
    enc = ObservationEncoder()  # one encoder for every observer, as in the env
    phases = set()
    for i, g in enumerate(game_states(n, seed)):
        phases.add(g.phase)
        for p in range(n):
            assert_same(enc.encode(g, p), reference_observation(g, p), f"state {i} p{p}")
    assert {Phase.COMMIT, Phase.PERMISSION, Phase.BATTLE_SPECIAL, Phase.GAME_OVER} <= phases


def test_fast_encoder_equals_reference_when_states_arrive_in_any_order() -> None:
    """States of different games, player counts, clones and determinized samples, shuffled:
    the caches compare values, so jumping between unrelated states must not matter."""
    pool: list[Game] = []
    for n, seed in ((3, 21), (4, 22), (5, 23)):
        states = game_states(n, seed)
        pool += states[::9]
        pool += [determinize(g, g.n - 1, random.Random(i)) for i, g in enumerate(states[::40])]
    r = random.Random(0)
    r.shuffle(pool)
    enc = ObservationEncoder()
    for i, g in enumerate(pool):
        p = r.randrange(g.n)
        assert_same(enc.encode(g, p), reference_observation(g, p), f"item {i} ({g.n}p) p{p}")


def test_oracle_encoding_equals_reference() -> None:
    enc = ObservationEncoder(oracle=True)
    for i, g in enumerate(game_states(4, 31)[::5]):
        p = i % 4
        obs = enc.encode(g, p)
        assert obs.shape == (ORACLE_SIZE,)
        assert_same(obs, reference_observation(g, p, oracle=True), f"state {i}")


def test_returned_arrays_are_independent_of_later_calls() -> None:
    states = game_states(4, 41)[100:140]
    enc = ObservationEncoder()
    kept = [(g, enc.encode(g, 0)) for g in states]
    first = kept[0][1].copy()
    kept[0][1][:] = 7.0  # scribbling on a returned array changes nothing else
    for g, obs in kept[1:]:
        assert_same(obs, reference_observation(g, 0), "kept array")
    assert_same(enc.encode(states[0], 0), first, "re-encoded")
    assert_same(encode_observation(states[5], 2), reference_observation(states[5], 2), "stateless")
    out = np.full(OBS_SIZE, 3.0, dtype=np.float32)
    assert encode_observation(states[6], 1, out=out) is out
    assert_same(out, reference_observation(states[6], 1), "out=")


def test_env_observations_equal_reference_along_a_game() -> None:
    e = env(num_players=5)
    e.reset(seed=51)
    rng = np.random.default_rng(51)
    for i, agent in enumerate(e.agent_iter()):
        obs, _, term, trunc, _ = e.last()
        game = e.unwrapped.game
        seat = e.unwrapped.agent_name_mapping[agent]
        assert_same(obs["observation"], reference_observation(game, seat), f"decision {i}")
        if i % 7 == 0:  # another agent's view, between two of the acting agent's
            other = (seat + 2) % 5
            view = e.observe(f"player_{other}")["observation"]
            assert_same(view, reference_observation(game, other), f"decision {i} p{other}")
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
