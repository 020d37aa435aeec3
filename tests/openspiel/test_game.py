"""The OpenSpiel game ``python_perikles``: game type, the deal's chance nodes,
OpenSpiel's ``random_sim_test`` with serialisation, tensors and strings from the project's
encoder, ``resample_from_infostate``, returns and truncation. Needs the ``openspiel`` extra
(``make test-openspiel``); skipped without it."""

from __future__ import annotations

import pickletools

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from perikles_env.analysis.observation import OBS_SIZE, encode_observation  # noqa: E402
from perikles_env.engine import MAX_GAME_DECISIONS, NUM_ACTIONS, GameConfig, new_game  # noqa: E402
from perikles_env.environment import final_rewards  # noqa: E402
from perikles_env.environment.render import render_text  # noqa: E402
from perikles_env.errors import IllegalActionError, InvalidConfigError  # noqa: E402
from perikles_env.openspiel import SHORT_NAME, PeriklesGame, PeriklesState  # noqa: E402
from perikles_env.openspiel.game import SEED_BYTES  # noqa: E402

SEED = [7, 0, 0, 0, 0, 0, 0, 1]  # little-endian: 7 + 2**56


def dealt(n: int = 4, seed_bytes: list[int] = SEED, **params) -> PeriklesState:
    state = pyspiel.load_game(SHORT_NAME, {"players": n, **params}).new_initial_state()
    for byte in seed_bytes:
        state.apply_action(byte)
    return state


def play(state: PeriklesState, decisions: int, seed: int = 0) -> list[int]:
    rng = np.random.default_rng(seed)
    actions = []
    for _ in range(decisions):
        if state.is_terminal():
            break
        actions.append(int(rng.choice(state.legal_actions())))
        state.apply_action(actions[-1])
    return actions


def test_game_type_and_info() -> None:
    game = pyspiel.load_game(SHORT_NAME)
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (kind.min_num_players, kind.max_num_players) == (3, 5)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == 256
    assert game.max_game_length() == MAX_GAME_DECISIONS
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.utility_sum() is None
    assert game.observation_tensor_size() == OBS_SIZE
    assert game.information_state_tensor_size() == OBS_SIZE + 1


@pytest.mark.parametrize("params", [{"players": 6}, {"players": 2}, {"reward": "vp"}])
def test_bad_parameters_raise_typed_errors(params) -> None:
    with pytest.raises(InvalidConfigError, match=next(iter(params))):
        pyspiel.load_game(SHORT_NAME, params)


def test_unknown_parameters_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'x'"):
        pyspiel.load_game(SHORT_NAME, {"x": 1})  # OpenSpiel checks before we are called
    with pytest.raises(InvalidConfigError, match="unknown"):
        PeriklesGame({"x": 1})  # built directly, past OpenSpiel's check


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_sim_test_with_serialisation(n: int) -> None:
    """OpenSpiel's own checks over whole random games: clones, serialise/deserialise round
    trips, legal-action masks, unique action names, observations of every player at every
    decision, returns within bounds and game length within ``max_game_length``."""
    game = pyspiel.load_game(SHORT_NAME, {"players": n})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_deal_is_eight_uniform_chance_nodes_seeding_the_engine() -> None:
    state = pyspiel.load_game(SHORT_NAME, {"players": 3}).new_initial_state()
    names = set()
    for byte in SEED:
        assert state.is_chance_node() and not state.dealt
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == list(range(256))
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert not state.observation_tensor(0)[:].count(1.0)  # nothing to see yet
        names.add(state.action_to_string(pyspiel.PlayerId.CHANCE, byte))
        state.apply_action(byte)
    assert len(names) == SEED_BYTES
    seed = int.from_bytes(bytes(SEED), "little")
    assert state.engine_game == new_game(GameConfig(num_players=3, record_events=False), seed)
    assert state.current_player() == state.engine_game.current_player
    other = dealt(3, [8] + SEED[1:])
    assert other.engine_game != state.engine_game
    with pytest.raises(InvalidConfigError, match="seed byte"):
        pyspiel.load_game(SHORT_NAME).new_initial_state().apply_action(256)


def test_actions_are_the_engine_ids_and_illegal_ones_raise() -> None:
    state = dealt(4)
    game = state.engine_game
    assert state.legal_actions() == game.legal_actions()
    action = state.legal_actions()[0]
    assert state.action_to_string(action) == game.action_to_str(action)
    before = str(state)
    illegal = next(a for a in range(NUM_ACTIONS) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError):
        state.apply_action(illegal)
    assert str(state) == before


def test_tensors_and_strings_come_from_the_project_encoder_and_renderer() -> None:
    state = dealt(5)
    play(state, 150, seed=2)
    game = state.engine_game
    for p in range(5):
        obs = encode_observation(game, p)
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), obs)
        info = np.asarray(state.information_state_tensor(p))
        np.testing.assert_array_equal(info[:OBS_SIZE], obs)
        assert info[OBS_SIZE] == pytest.approx(game.decisions / MAX_GAME_DECISIONS)
        assert state.observation_string(p) == render_text(game, p)
        assert state.information_state_string(p).startswith(
            f"seat {p} decision {game.decisions} observation "
        )
    assert len({state.information_state_string(p) for p in range(5)}) == 5


def test_serialisation_round_trip_keeps_hidden_state_and_rng() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": 3})
    state = dealt(3)
    play(state, 60, seed=4)
    text = pyspiel.serialize_game_and_state(game, state)
    _, copy = pyspiel.deserialize_game_and_state(text)
    assert str(copy) == str(state) and copy.history() == state.history()
    assert copy.engine_game == state.engine_game
    # same actions from here on: same game, dice included (the RNG travelled too)
    actions = play(state, 2000, seed=5)
    for a in actions:
        copy.apply_action(a)
    assert copy.engine_game == state.engine_game and state.is_terminal()
    # what OpenSpiel pickles for our state names one function of ours, and data
    payload = pyspiel.serialize_game_and_state(game, dealt(3)).split("__dict__=")[-1]
    import base64

    ops = [
        (op.name, arg) for op, arg, _ in pickletools.genops(base64.b64decode(payload.strip()))
    ]
    imports = [name for name, _ in ops if name in ("GLOBAL", "STACK_GLOBAL", "INST", "OBJ")]
    strings = [arg for name, arg in ops if "UNICODE" in name]
    assert imports == ["STACK_GLOBAL"]
    assert "perikles_env.openspiel.game" in strings and "_restore_engine" in strings


def test_resample_from_infostate_keeps_what_the_player_knows() -> None:
    state = dealt(4)
    play(state, 12, seed=6)  # past the setup; special tiles still in hand
    player = state.current_player()
    real = state.engine_game
    assert sum(s >= 0 for q, s in enumerate(real.special) if q != player) >= 2
    others_specials = set()
    for _ in range(12):
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        sample = state.resample_from_infostate(player, sampler)
        assert isinstance(sample, PeriklesState) and sample.current_player() == player
        assert sample.information_state_string(player) == state.information_state_string(player)
        np.testing.assert_array_equal(
            np.asarray(sample.observation_tensor(player)),
            np.asarray(state.observation_tensor(player)),
        )
        assert sample.legal_actions() == state.legal_actions()
        assert sample.engine_game.special[player] == real.special[player]
        specials = sample.engine_game.special
        others_specials.add(tuple(s for q, s in enumerate(specials) if q != player))
    assert len(others_specials) > 1  # hidden tiles are redrawn
    assert state.engine_game is real  # the real state is untouched


def test_returns_follow_the_aec_reward_modes() -> None:
    for reward in ("win", "rank"):
        state = dealt(3, reward=reward)
        play(state, 5000, seed=1)
        assert state.is_terminal() and not state.is_truncated()
        expected = final_rewards(state.engine_game, reward)
        assert state.returns() == expected
        assert state.rewards() == expected  # terminal reward model: all at the end
    mid = dealt(3)
    play(mid, 30)
    assert mid.returns() == [0.0, 0.0, 0.0] and not mid.is_terminal()


def test_decision_limit_is_terminal_with_zero_returns() -> None:
    state = dealt(4)
    play(state, 10)
    data = state.engine_game.to_dict()
    data["decisions"] = MAX_GAME_DECISIONS - 1  # hand-built: one decision before the limit
    state._engine.game = type(state.engine_game).from_dict(data)
    assert not state.is_terminal()
    state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.is_truncated()
    assert not state.engine_game.is_terminal
    assert state.returns() == [0.0] * 4
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
