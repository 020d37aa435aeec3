"""The RLlib adapter of the AEC env: RLlib's own env checker, turns, masks, rewards,
illegal actions (documented penalty, never substituted), opponents, determinism."""

import numpy as np
import pytest
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from perikles_env.engine import NUM_ACTIONS
from perikles_env.environment.aec import final_rewards
from perikles_env.errors import IllegalActionError, InvalidConfigError
from perikles_env.training.rllib.env import MASK_KEY, OBS_KEY, PeriklesMultiAgentEnv


def play(env, seed, rng, first_obs=None):
    """Random legal play to the end; returns the transitions and the last step's tuple."""
    obs, _ = env.reset(seed=seed) if first_obs is None else first_obs
    trace = []
    while True:
        assert len(obs) == 1, "only the seat to act observes during the game"
        ((agent, o),) = obs.items()
        legal = np.flatnonzero(o[MASK_KEY])
        action = int(rng.choice(legal))
        trace.append((agent, action))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        if terms["__all__"] or truncs["__all__"]:
            return trace, (obs, rewards, terms, truncs, infos)


@pytest.mark.parametrize("players,opponent_seats", [(3, 0), (4, 0), (5, 0), (4, 3), (5, 2)])
def test_rllib_env_checker_passes_on_the_env_as_shipped(players, opponent_seats):
    env = PeriklesMultiAgentEnv({"num_players": players, "opponent_seats": opponent_seats})
    check_multiagent_environments(env)  # raises on any failed check


def test_observation_is_the_masking_modules_format_and_mask_is_the_engines():
    env = PeriklesMultiAgentEnv({"num_players": 4})
    obs, infos = env.reset(seed=3)
    ((agent, o),) = obs.items()
    game = env._aec.game
    assert agent == f"player_{game.current}"
    assert set(o) == {OBS_KEY, MASK_KEY}
    assert o[MASK_KEY].dtype == np.float32 and o[OBS_KEY].dtype == np.float32
    assert np.flatnonzero(o[MASK_KEY]).tolist() == sorted(game.legal_actions())
    assert env.observation_spaces[agent].contains(o)
    assert np.array_equal(o[OBS_KEY], env._aec.observe(agent)["observation"])


@pytest.mark.parametrize("players", [3, 4, 5])
def test_self_play_to_the_end_gives_every_seat_the_aec_rewards(players):
    env = PeriklesMultiAgentEnv({"num_players": players, "reward": "rank"})
    rng = np.random.default_rng(players)
    trace, (obs, rewards, terms, truncs, infos) = play(env, 11, rng)
    game = env._aec.game
    assert game.is_terminal
    assert set(obs) == set(rewards) == set(env.possible_agents)
    expected = final_rewards(game, "rank")
    assert [rewards[f"player_{s}"] for s in range(players)] == pytest.approx(expected)
    assert all(terms[a] for a in env.agents) and not truncs["__all__"]
    assert all(not o[MASK_KEY].any() for o in obs.values())  # nothing left to do
    assert infos["player_0"]["winners"] == game.winners()


def test_same_seed_and_actions_give_the_same_episode():
    a = PeriklesMultiAgentEnv({"num_players": 4, "opponent_seats": 2})
    b = PeriklesMultiAgentEnv({"num_players": 4, "opponent_seats": 2})
    trace_a, end_a = play(a, 5, np.random.default_rng(0))
    trace_b, end_b = play(b, 5, np.random.default_rng(0))
    assert trace_a == trace_b and end_a[1] == end_b[1]
    assert a._aec.game.to_dict() == b._aec.game.to_dict()


def test_opponent_seats_are_played_inside_the_env():
    env = PeriklesMultiAgentEnv(
        {"num_players": 4, "opponent_seats": 3, "opponents": {"random": 1.0, "heuristic": 1.0}}
    )
    seen_specs = set()
    for seed in range(6):
        trace, (obs, rewards, *_rest) = play(env, seed, np.random.default_rng(seed))
        assert len(env.agents) == 1
        learner = env.agents[0]
        seat = env.possible_agents.index(learner)
        assert env.seat_specs[seat] == "learner"
        assert env.seat_specs.count("learner") == 1
        seen_specs.update(s for s in env.seat_specs if s != "learner")
        assert {agent for agent, _ in trace} == {learner}
        assert set(rewards) == {learner}
        game = env._aec.game
        assert rewards[learner] == pytest.approx(final_rewards(game, "win")[seat])
    assert seen_specs == {"random", "heuristic"}


def test_a_frozen_rllib_policy_can_hold_the_opponent_seats(policy_dir):
    spec = f"rllib:{policy_dir}"
    env = PeriklesMultiAgentEnv({"num_players": 3, "opponent_seats": 2, "opponents": spec})
    trace, (obs, rewards, terms, *_rest) = play(env, 0, np.random.default_rng(0))
    assert terms["__all__"] and env._aec.game.is_terminal
    assert sorted(env.seat_specs) == sorted(["learner", spec, spec])
    assert 0 < len(trace) < env.decisions  # the frozen policy made the other decisions


def test_illegal_action_ends_the_game_with_the_documented_penalty_and_applies_nothing():
    env = PeriklesMultiAgentEnv({"num_players": 4, "illegal_penalty": -2.0})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    before = env._aec.game.to_dict()
    obs, rewards, terms, truncs, infos = env.step({agent: illegal})
    assert env._aec.game.to_dict() == before  # not applied, nothing substituted
    assert terms["__all__"] and not truncs["__all__"]
    assert rewards[agent] == -2.0
    assert all(r == 0.0 for a, r in rewards.items() if a != agent)
    assert infos[agent]["illegal_action"]["action"] == illegal
    assert infos[agent]["illegal_action"]["reason"] == "not legal now"


def test_out_of_range_action_is_penalized_too():
    env = PeriklesMultiAgentEnv({"num_players": 3})
    obs, _ = env.reset(seed=2)
    agent = next(iter(obs))
    _, rewards, terms, _, infos = env.step({agent: NUM_ACTIONS + 5})
    assert terms["__all__"] and rewards[agent] == -1.0
    assert "out of range" in infos[agent]["illegal_action"]["reason"]


def test_caller_bugs_raise_and_change_nothing():
    env = PeriklesMultiAgentEnv({"num_players": 4})
    obs, _ = env.reset(seed=4)
    ((agent, o),) = obs.items()
    other = next(a for a in env.possible_agents if a != agent)
    legal = int(np.flatnonzero(o[MASK_KEY])[0])
    before = env._aec.game.to_dict()
    with pytest.raises(IllegalActionError, match="expected an action for"):
        env.step({other: legal})
    with pytest.raises(IllegalActionError, match="expected an action for"):
        env.step({agent: legal, other: legal})
    with pytest.raises(IllegalActionError, match="must be an int"):
        env.step({agent: "3"})
    assert env._aec.game.to_dict() == before
    env.step({agent: legal})  # and the game goes on


def test_max_decisions_truncates_without_reward():
    env = PeriklesMultiAgentEnv({"num_players": 4, "max_decisions": 5})
    trace, (obs, rewards, terms, truncs, _) = play(env, 0, np.random.default_rng(0))
    assert len(trace) == 5
    assert truncs["__all__"] and not terms["__all__"]
    assert set(rewards.values()) == {0.0}


@pytest.mark.parametrize(
    "options,match",
    [
        ({"num_players": 6}, "num_players"),
        ({"opponent_seats": 4}, "opponent_seats"),
        ({"opponents": "nobody"}, "nobody"),
        ({"reward": "gold"}, "reward"),
        ({"colour": "red"}, "unknown env option"),
    ],
)
def test_bad_options_raise(options, match):
    with pytest.raises(InvalidConfigError, match=match):
        PeriklesMultiAgentEnv(options)
