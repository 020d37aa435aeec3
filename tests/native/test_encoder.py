"""The C++ observation encoder (``native/env/encoder.hpp``, ``perikles_env.vector.encoder``)
gives the Python encoder's vectors byte for byte (float32 bit patterns compared), for every
player at every decision of seeded 3/4/5-player games, plain and oracle variants, on random
and biased play that reaches the rare phases; and writes into caller-owned buffers."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.analysis.observation import OBS_SIZE, ORACLE_SIZE, ObservationEncoder
from perikles_env.engine import NUM_ACTIONS, GameConfig, Phase, new_game
from perikles_env.engine.determinize import determinize
from perikles_env.engine.rng import Rng
from tests.env.reference_encoder import reference_observation
from tests.native.helpers import Policy, require_native, uniform, unvalidated_twin
from tests.native.vec_helpers import require_native_vec

native = require_native()
require_native_vec()
from perikles_env.vector.encoder import BackendEncoder, encode_into, legal_mask  # noqa: E402
from tests.native.test_differential import POLICIES  # noqa: E402

GAMES = {3: range(5), 4: range(5), 5: range(5)}


def assert_bytes_equal(cpp: np.ndarray, py: np.ndarray, where: str) -> None:
    assert cpp.dtype == py.dtype == np.float32 and cpp.shape == py.shape, where
    if not np.array_equal(cpp.view(np.uint32), py.view(np.uint32)):
        diff = np.flatnonzero(cpp.view(np.uint32) != py.view(np.uint32))
        raise AssertionError(f"{where}: {len(diff)} values differ, first at {diff[:8]}")


def compare_game(n: int, seed: int, policy: Policy, phases: set[str]) -> int:
    """Play one game on the C++ core; at every decision (and at the end) encode every
    player both ways, plain and oracle, and compare the mask with the legal list."""
    game = new_game(GameConfig(num_players=n), seed=seed, backend="native")
    assert type(game) is native.NativeGame
    cpp_plain, cpp_oracle = BackendEncoder(), BackendEncoder(oracle=True)
    py_plain, py_oracle = ObservationEncoder(), ObservationEncoder(oracle=True)
    rng = Rng(seed * 7919 + n)
    compared = 0
    while True:
        py = game.to_python()
        phases.add(py.phase.name)
        for p in range(n):
            where = f"{n}p seed {seed} decision {py.decisions} ({py.phase.name}) p{p}"
            assert_bytes_equal(cpp_plain.encode(game, p), py_plain.encode(py, p), where)
            assert_bytes_equal(cpp_oracle.encode(game, p), py_oracle.encode(py, p), where)
            compared += 1
        mask = legal_mask(game)
        if game.is_terminal:
            assert not mask.any()
            return compared
        legal = py.legal_actions()
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        game.apply_action(policy(py, legal, rng))


@pytest.mark.parametrize("n", sorted(GAMES))
def test_every_player_every_decision_uniform_play(n: int) -> None:
    phases: set[str] = set()
    compared = sum(compare_game(n, seed, uniform, phases) for seed in GAMES[n])
    assert compared > 200 * n * len(GAMES[n])  # every player of every decision
    assert {
        "SETUP_PLACE",
        "INFLUENCE_PICK",
        "PROPOSE",
        "COMMIT",
        "BATTLE_SPECIAL",
        "GAME_OVER",
    } <= phases, phases


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(GAMES))
def test_every_player_every_decision_many_games_slow(n: int) -> None:
    phases: set[str] = set()
    for seed in range(1_000, 1_300):
        compare_game(n, seed, uniform, phases)


def test_biased_play_reaches_every_phase_identically() -> None:
    """The differential suite's biased policies steer into permission requests, every
    special tile (Alkibiades, battle specials), the dead pool and casualty choices."""
    phases: set[str] = set()
    for i, name in enumerate(sorted(POLICIES)):
        policy = POLICIES[name][0]
        for n in (3, 4, 5):
            compare_game(n, 90_000 + 10 * i + n, policy, phases)  # type: ignore[arg-type]
    assert phases == {p.name for p in Phase}, {p.name for p in Phase} - phases


def test_equals_the_plain_reference_encoder_on_determinized_and_edited_states() -> None:
    """Against ``tests/env/reference_encoder.py`` too, on states no game reaches by play:
    determinized samples (loaded into C++) and hand-edited fields."""
    for n in (3, 4, 5):
        game = new_game(GameConfig(num_players=n), seed=n, backend="native")
        rng = Rng(n)
        while not game.is_terminal:
            if game.decisions % 37 == 0:
                p = game.decisions % n
                sample = determinize(game, p, rng.randrange(1000))
                assert type(sample) is native.NativeGame
                for q in range(n):
                    for oracle in (False, True):
                        assert_bytes_equal(
                            BackendEncoder(oracle).encode(sample, q),
                            reference_observation(sample.to_python(), q, oracle=oracle),
                            f"{n}p determinized at {game.decisions} p{q}",
                        )
            legal = game.legal_actions()
            game.apply_action(legal[rng.randrange(len(legal))])
        python = game.to_python()
        python.cubes[1] += 2  # hand edits (on the Python engine), loaded into C++ as they are
        python.defeats = [1, 2, 0, 0, 3, 0]
        edited = unvalidated_twin(python)
        for q in range(n):
            assert_bytes_equal(
                BackendEncoder().encode(edited, q),
                reference_observation(python, q),
                f"{n}p edited p{q}",
            )


def test_encode_into_writes_the_callers_buffer() -> None:
    game = new_game(GameConfig(num_players=4), seed=3, backend="native")
    for _ in range(60):
        game.apply_action(game.legal_actions()[0])
    out = np.full(ORACLE_SIZE, 9.0, dtype=np.float32)
    assert encode_into(game, 2, out, oracle=True) is out
    assert_bytes_equal(out, ObservationEncoder(True).encode(game.to_python(), 2), "oracle into")
    plain = np.full(OBS_SIZE, 9.0, dtype=np.float32)
    encode_into(game, 1, plain)
    assert_bytes_equal(plain, ObservationEncoder().encode(game.to_python(), 1), "plain into")


def test_bad_input_is_a_typed_error_and_writes_nothing() -> None:
    game = new_game(GameConfig(num_players=3), seed=1, backend="native")
    out = np.full(OBS_SIZE, 5.0, dtype=np.float32)
    with pytest.raises(ValueError, match="no such seat"):
        encode_into(game, 3, out)
    with pytest.raises(ValueError, match="no such seat"):
        encode_into(game, -1, out)
    with pytest.raises(ValueError, match="wrong length"):
        encode_into(game, 0, out, oracle=True)  # an oracle vector does not fit
    with pytest.raises(TypeError):
        encode_into(game, 0, np.zeros(OBS_SIZE, dtype=np.float64))
    with pytest.raises(TypeError):
        encode_into(game, 0, np.zeros((2, OBS_SIZE), dtype=np.float32)[:, 0])  # not contiguous
    assert (out == 5.0).all()
    with pytest.raises(TypeError, match="NativeGame"):
        encode_into(game.to_python(), 0, out)
    from perikles_env.vector.native import _native_vec

    with pytest.raises(TypeError, match="engine"):
        _native_vec.encode(object(), 0, out, False)  # never reads a foreign object


def test_python_games_fall_back_to_the_python_encoder() -> None:
    game = new_game(GameConfig(num_players=5), seed=2, backend="python")
    assert_bytes_equal(BackendEncoder().encode(game, 4), ObservationEncoder().encode(game, 4), "py")
    mask = legal_mask(game)
    assert np.flatnonzero(mask).tolist() == game.legal_actions() and mask.shape == (NUM_ACTIONS,)
