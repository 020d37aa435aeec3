"""Differential random play: the C++ core and the Python reference engine give the same game.

Every decision: identical legal lists and current player; after every action: identical
state (every field and the RNG) and identical new events; at the end: identical
``to_dict()``, scores and winners. Default run: 60 uniform-random games per player count
plus biased policies that steer into rare paths (permission requests, every special tile,
Slave Revolt from the pool and from a location, empty rounds and empty commit steps, tied
casualties), each with a coverage check that the path was really reached. ``-m slow``:
100,000 games per player count (legal lists every decision, state every 64 decisions, full
``to_dict`` at the end).
"""

from __future__ import annotations

import pytest

from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine import queries as Q
from perikles_env.engine.rng import Rng
from tests.native.helpers import Coverage, play_twins, require_native

native = require_native()

PLAYER_COUNTS = (3, 4, 5)
GAMES_PER_COUNT = 60  # the default run; the slow one plays 100,000 per count
CHUNK = 30
SLOW_GAMES_PER_COUNT = 100_000
SLOW_CHUNK = 5_000


@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("start", range(0, GAMES_PER_COUNT, CHUNK))
def test_uniform_random_games_are_identical(n: int, start: int) -> None:
    coverage = Coverage()
    for seed in range(start, start + CHUNK):
        play_twins(native, n, seed, coverage=coverage)
    assert coverage.games == CHUNK
    assert {"COMMIT", "PROPOSE", "INFLUENCE_PICK", "SETUP_PLACE"} <= coverage.phases


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("start", range(0, SLOW_GAMES_PER_COUNT, SLOW_CHUNK))
def test_uniform_random_games_are_identical_slow(n: int, start: int) -> None:
    for seed in range(10**6 + start, 10**6 + start + SLOW_CHUNK):
        play_twins(native, n, seed, state_every=64, record_events=seed % 2 == 0)


# ---- biased policies: each prefers one kind of action, else plays uniformly ------------------


def _prefer(kinds: tuple[str, ...], chance: int = 1) -> object:
    """A policy that takes an action of these ranges when one is legal (with probability
    1/chance), else a uniform one."""

    def policy(g: Game, legal: list[int], rng: Rng) -> int:
        wanted = [a for a in legal if A.decode(a)[0] in kinds]
        if wanted and rng.randrange(chance) == 0:
            return wanted[rng.randrange(len(wanted))]
        return legal[rng.randrange(len(legal))]

    return policy


def _asks_permission(g: Game, legal: list[int], rng: Rng) -> int:
    """Places where the owner's leader must grant permission (B.7.8); grants or denies."""
    asking = []
    for a in legal:
        kind, klass, slot, side = A.decode(a)
        if kind == "PLACE" and Q.class_placement_status(g, g.step_player, klass, slot, side) == 2:
            asking.append(a)
    pool = asking or legal
    return pool[rng.randrange(len(pool))]


def _passive(g: Game, legal: list[int], rng: Rng) -> int:
    """Ends commit steps at once and passes: empty commits, empty and automatic rounds."""
    for a in (A.END_STEP, A.BATTLE_PASS):
        if a in legal and rng.randrange(4):
            return a
    return legal[rng.randrange(len(legal))]


POLICIES = {
    "specials": (
        _prefer(("PLAY_PERIKLES", "PLAY_PLAGUE", "ALKIBIADES_CUBE", "BATTLE_DOUBLE",
                 "BATTLE_TOKEN", "SLAVE_REVOLT")),
        {("special", name) for name in D.SPECIAL_NAMES},
    ),
    "slave_revolt": (
        _prefer(("SLAVE_REVOLT",)),
        {("slave_revolt", "pool")} | {("special", "slaverevolt")},
    ),
    "permission": (_asks_permission, {("permission", True), ("permission", False)}),
    "passive": (
        _passive,
        {("round", "empty"), ("unclaimed", "no forces"), ("round", "automatic")},
    ),
    "aggressive": (
        _prefer(("PLACE", "SPEND_CUBE", "CASUALTY"), chance=1),
        {("round", "dice")},
    ),
}
BIASED_GAMES = 40


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_biased_policies_reach_rare_paths_identically(name: str) -> None:
    policy, must_see = POLICIES[name]
    coverage = Coverage()
    for n in PLAYER_COUNTS:
        for seed in range(BIASED_GAMES):
            play_twins(native, n, 50_000 + seed, policy=policy, coverage=coverage)  # type: ignore[arg-type]
    missing = must_see - coverage.details
    assert not missing, f"{name}: never reached {missing}"
    if name == "permission":
        assert "PERMISSION" in coverage.phases
    if name == "aggressive":
        assert {"CASUALTY", "DEAD_POOL"} <= coverage.phases, coverage.phases
    if name == "specials":
        assert {"BATTLE_SPECIAL", "ALKIBIADES_DEST", "POST_PICK_SPECIAL"} <= coverage.phases
    if name == "passive":
        assert "commit_nothing" in coverage.events


def test_slave_revolt_from_a_location_is_identical() -> None:
    """Slave Revolt taking a hoplite from a location (D.4) needs a Spartan hoplite placed
    first: prefer placing, then the revolt."""
    policy = _prefer(("SLAVE_REVOLT",), chance=3)
    coverage = Coverage()
    for n in PLAYER_COUNTS:
        for seed in range(30):
            play_twins(native, n, 70_000 + seed, policy=policy, coverage=coverage)  # type: ignore[arg-type]
    slots = {d for d in coverage.details if d[0] == "slave_revolt" and d[1] != "pool"}
    assert slots, coverage.details


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_observations_and_determinizations_of_every_player_are_identical(n: int) -> None:
    """Consumers that read engine state (the observation encoder, oracle variant included;
    ``determinize``) see the same game through a NativeGame's fields: sampled decisions of
    seeded games, every player. And the native legal mask (``legal_mask``, written into one
    caller-owned array) equals the legal list at every decision."""
    import numpy as np

    from perikles_env.analysis.observation import encode_observation
    from perikles_env.engine.determinize import determinize

    compared = 0
    mask = np.ones(NUM_ACTIONS, dtype=bool)
    for seed in range(6):
        py = new_game(GameConfig(num_players=n), seed=seed, backend="python")
        cpp = new_game(GameConfig(num_players=n), seed=seed, backend="native")
        policy = Rng(seed)
        step = 0
        while not py.is_terminal:
            if step % 23 == 0:
                for p in range(n):
                    for oracle in (False, True):
                        a = encode_observation(py, p, oracle=oracle)
                        b = encode_observation(cpp, p, oracle=oracle)
                        assert a.dtype == b.dtype and np.array_equal(a, b), (seed, step, p)
                    sample_py, sample_cpp = determinize(py, p, step), determinize(cpp, p, step)
                    assert type(sample_cpp) is native.NativeGame
                    assert sample_cpp.to_dict() == sample_py.to_dict(), (seed, step, p)
                compared += 1
            legal = py.legal_actions()
            cpp.legal_mask(mask)  # the native mask, into the same buffer every decision
            assert np.flatnonzero(mask).tolist() == legal
            action = legal[policy.randrange(len(legal))]
            py.apply_action(action)
            cpp.apply_action(action)
            step += 1
        cpp.legal_mask(mask)
        assert not mask.any()  # terminal: nothing legal
    assert compared > 40
