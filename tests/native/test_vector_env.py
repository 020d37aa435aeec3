"""The batched vector env (``perikles_env.vector.VectorEnv``, ``native/env/vector_env.hpp``)
against the Python engine and encoder: every game of the batch, every step, the acting
seat, observation (bytes), mask and rewards equal a Python game played with the same
actions (seeded from ``game_seed``), across auto-resets; results do not depend on the
thread count; random opponents replay in Python; bad input raises typed errors and changes
nothing."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.analysis.observation import ObservationEncoder
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine.rng import Rng
from perikles_env.environment.aec import final_rewards
from perikles_env.errors import CoreFailureError, IllegalActionError, InvalidConfigError
from tests.native.vec_helpers import require_native_vec

require_native_vec()
from perikles_env.vector import VectorEnv  # noqa: E402
from perikles_env.vector.native import _native_vec  # noqa: E402


def python_twin(seed: int, n: int) -> Game:
    return new_game(GameConfig(num_players=n), seed=seed, backend="python")


def assert_row_matches(state, i: int, game: Game, encoder: ObservationEncoder, where: str) -> None:
    assert state.current[i] == game.current, where
    obs = encoder.encode(game, game.current)
    assert np.array_equal(state.observation[i].view(np.uint32), obs.view(np.uint32)), where
    assert np.flatnonzero(state.action_mask[i]).tolist() == game.legal_actions(), where
    assert state.players[i] == game.n, where
    assert state.scores[i].tolist() == game.scores() + [0] * (5 - game.n), where


@pytest.mark.parametrize("n,num_envs", [(3, 3), (4, 2), (5, 2)])
def test_every_step_equals_python_games_across_auto_resets(n: int, num_envs: int) -> None:
    env = VectorEnv(num_envs, n, oracle=(n == 4))
    encoder = ObservationEncoder(oracle=(n == 4))
    state = env.reset(seed=100 * n)
    games = [python_twin(100 * n + i, n) for i in range(num_envs)]
    assert [env.game_seed(i) for i in range(num_envs)] == [100 * n + i for i in range(num_envs)]
    rng = np.random.default_rng(n)
    finished = [0] * num_envs
    step = 0
    while min(finished) < 2:  # at least two auto-resets of every game
        for i, g in enumerate(games):
            assert_row_matches(state, i, g, encoder, f"{n}p game {i} step {step}")
        actions = [int(rng.choice(np.flatnonzero(state.action_mask[i]))) for i in range(num_envs)]
        state = env.step(actions)
        step += 1
        for i, g in enumerate(games):
            g.apply_action(actions[i])
            assert state.decisions[i] == 1 and not state.truncated[i]
            if g.is_terminal:
                assert state.terminated[i]
                assert state.final_scores[i].tolist() == g.scores() + [0] * (5 - n)
                expected = g.win_rewards() + [0.0] * (5 - n)
                assert state.rewards[i].tolist() == pytest.approx(expected, abs=0, rel=1e-7)
                assert state.rewards[i, :n].tolist() == [
                    np.float32(r) for r in final_rewards(g, "win")
                ]
                assert abs(float(state.rewards[i].sum())) < 1e-6  # zero-sum
                finished[i] += 1
                assert env.episodes(i) == finished[i]
                games[i] = python_twin(env.game_seed(i), n)  # the next game's seed
            else:
                assert not state.terminated[i] and not state.rewards[i].any()
                assert not state.final_scores[i].any()
    assert len({env.game_seed(i) for i in range(num_envs)}) == num_envs


def run(env: VectorEnv, seed, steps: int) -> list[tuple[np.ndarray, ...]]:
    out = [tuple(a.copy() for a in env.reset(seed))]
    for _ in range(steps):
        out.append(tuple(a.copy() for a in env.step(env.random_actions())))
    return out


def test_same_seed_same_batch_whatever_the_thread_count() -> None:
    one = run(VectorEnv(7, 4, threads=1), 5, 900)
    two = run(VectorEnv(7, 4, threads=2), [5, 6, 7, 8, 9, 10, 11], 900)
    assert len(one) == len(two)
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
    assert any(t[4].any() for t in one)  # auto-resets happened
    other = run(VectorEnv(7, 4), 6, 5)
    assert not np.array_equal(other[0][1][0], one[0][1][0])  # another seed, another game


def test_random_opponents_play_natively_and_replay_in_python() -> None:
    n, seat = 4, 2
    env = VectorEnv(2, n, opponents="random", learner_seat=seat)
    encoder = ObservationEncoder()
    state = env.reset([11, 12])
    policies = [Rng(s ^ _native_vec.POLICY_SALT) for s in (11, 12)]
    games = [python_twin(s, n) for s in (11, 12)]

    def opponents(i: int) -> None:
        g = games[i]
        while not g.is_terminal and g.current != seat:
            legal = g.legal_actions()
            g.apply_action(legal[policies[i].randrange(len(legal))])

    for i in range(2):
        opponents(i)
    ended = 0
    rng = np.random.default_rng(0)
    while ended < 3:
        assert (state.current == seat).all()
        for i in range(2):
            assert_row_matches(state, i, games[i], encoder, f"game {i}")
        actions = [int(rng.choice(np.flatnonzero(state.action_mask[i]))) for i in range(2)]
        state = env.step(actions)
        for i in range(2):
            games[i].apply_action(actions[i])
            opponents(i)
            if games[i].is_terminal:
                assert state.terminated[i]
                assert state.rewards[i, :n].tolist() == [
                    np.float32(r) for r in games[i].win_rewards()
                ]
                ended += 1
                # the next game: seeded from the env's stream, opponents keep their stream
                games[i] = python_twin(env.game_seed(i), n)
                opponents(i)


def test_illegal_actions_raise_and_change_no_game() -> None:
    env = VectorEnv(3, 3)
    state = env.reset(7)
    before = [a.copy() for a in state]
    legal = [int(np.flatnonzero(state.action_mask[i])[0]) for i in range(3)]
    illegal = int(np.flatnonzero(state.action_mask[1] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 1: not legal now") as err:
        env.step([legal[0], illegal, legal[2]])
    assert (
        err.value.player == state.current[1]
        and err.value.legal == np.flatnonzero(before[2][1]).tolist()
    )
    with pytest.raises(IllegalActionError, match="game 2: action id out of range"):
        env.step([legal[0], legal[1], 957])
    with pytest.raises(IllegalActionError, match="game 0: action id out of range"):
        env.step([-2, legal[1], legal[2]])
    with pytest.raises(InvalidConfigError, match=r"3 integer action ids \(shape \(3,\)\)"):
        env.step([0.5, 1.0, 2.0])
    with pytest.raises(InvalidConfigError, match="got shape \\(2,\\)"):
        env.step(legal[:2])
    for a, b in zip(state, before, strict=True):
        assert np.array_equal(a, b)  # nothing was written
    # and the games did not move: the same legal step gives what a fresh env gives
    fresh = VectorEnv(3, 3)
    fresh.reset(7)
    for a, b in zip(env.step(legal), fresh.step(legal), strict=True):
        assert np.array_equal(a, b)


def test_bad_configuration_and_call_order() -> None:
    for kwargs in (
        {"num_envs": 0, "num_players": 4},
        {"num_envs": 2, "num_players": 6},
        {"num_envs": 2, "num_players": True},
        {"num_envs": 2, "num_players": 4, "threads": 0},
        {"num_envs": 2, "num_players": 4, "opponents": "heuristc"},
        {"num_envs": 2, "num_players": 4, "opponents": "random", "learner_seat": 4},
        {"num_envs": 2, "num_players": 4, "oracle": 1},
        {"num_envs": 2, "num_players": [], "opponents": "random"},
        {"num_envs": 2, "num_players": [3, 5], "opponents": "random", "learner_seat": 3},
        {"num_envs": 2, "num_players": 4, "max_decisions": 0},
    ):
        with pytest.raises(InvalidConfigError):
            VectorEnv(**kwargs)  # type: ignore[arg-type]
    env = VectorEnv(2, 4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0, 0])
    with pytest.raises(RuntimeError, match="reset"):
        env.random_actions()
    for seed in (-1, [1], [1, -2], [1, 2.0], "x", True, 2**64 - 1):
        with pytest.raises(InvalidConfigError):
            env.reset(seed)  # type: ignore[arg-type]
    env.reset([0, 2**64 - 1])  # every 64-bit seed is allowed in a list
    with pytest.raises(TypeError):  # the C++ side never converts (no silent copies)
        env._c.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError):  # nor attaches converted copies of the output arrays
        env._c.attach(env._state.current.astype(np.int64), *env._state[1:])
    with pytest.raises(ValueError, match="wrong shape"):
        env._c.attach(env._state.current, *env._state[1:-1], np.zeros(3, dtype=np.int32))


def test_decision_limit_player_counts_seats_and_game_handles() -> None:
    """Games cut at ``max_decisions`` (``truncated``, their VP in ``final_scores``, the cut
    game kept for ``game(i, finished=True)``); player counts and learner seats drawn per
    game from the opponent stream; ``game(i)`` hands Python the exact state."""
    env = VectorEnv(4, [3, 5], opponents="random", learner_seat=None, max_decisions=40)
    state = env.reset(21)
    policies = [Rng((21 + i) ^ _native_vec.POLICY_SALT) for i in range(4)]
    for i in range(4):
        n = [3, 5][policies[i].randrange(2)]
        seat = policies[i].randrange(n)
        assert (state.players[i], state.current[i]) == (n, seat)
        handle = env.game(i)
        twin = new_game(GameConfig(num_players=n, record_events=False), 21 + i, backend="python")
        while twin.current != seat:
            legal = twin.legal_actions()
            twin.apply_action(legal[policies[i].randrange(len(legal))])
        assert handle.to_dict() == twin.to_dict()
    cut = 0
    while not cut:
        state = env.step(env.random_actions())
        assert not (state.terminated & state.truncated).any()
        for i in np.flatnonzero(state.truncated):
            game = env.game(i, finished=True)
            assert game.decisions == 40 and not game.is_terminal
            assert state.final_scores[i, : game.n].tolist() == game.scores()
            assert not state.rewards[i].any()
            cut += 1
    assert sorted({int(n) for n in state.players}) <= [3, 5]


def test_the_finished_game_before_any_game_ended_is_a_typed_error() -> None:
    """``game(i, finished=True)`` before game i ended returned an invalid default game
    (0 players); it and ``seat_specs(i, finished=True)`` now raise InvalidConfigError,
    also after a reset that follows ended games."""
    env = VectorEnv(2, 3, max_decisions=5)
    env.reset(4)
    for call in (lambda: env.game(1, finished=True), lambda: env.seat_specs(0, finished=True)):
        with pytest.raises(InvalidConfigError, match="has ended no game since reset"):
            call()
    while env.episodes(0) == 0:
        env.step(env.random_actions())
    assert env.game(0, finished=True).n == 3 and env.seat_specs(0, finished=True)
    env.reset(4)
    with pytest.raises(InvalidConfigError, match="game 0 has ended no game"):
        env.game(0, finished=True)


def test_a_failure_inside_the_core_step_is_typed_and_needs_a_reset() -> None:
    """A capped C++ loop (docs/safety.md, "Loops that must end") raises inside ``step``:
    the caller gets CoreFailureError, and the env, whose games may be half-stepped, takes
    no further call before ``reset``."""
    env = VectorEnv(2, 3)
    env.reset(0)
    real = env._c

    class FailingCore:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def step(self, actions: np.ndarray) -> int:
            raise RuntimeError("perikles native: a dice round never ended")

    env._c = FailingCore()
    with pytest.raises(CoreFailureError, match="never ended; call reset"):
        env.step(env.random_actions())
    env._c = real
    for call in (env.random_actions, lambda: env.game(0), lambda: env.step([-1, -1])):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    env.reset(0)
    env.step(env.random_actions())
