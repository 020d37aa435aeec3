"""single_agent/learner_table.py, the one opponent loop under the single-agent and RLlib envs:
agents move in the engine's turn order until a learner decides, a learner's illegal action
raises and changes nothing, an agent's illegal move names the agent, and the two ends
(terminated, truncated) are told apart."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import Agent, AgentError
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game
from perikles_env.errors import IllegalActionError
from perikles_env.single_agent.learner_table import LEARNER, AgentCache, LearnerTable, action_id_of


class Recorder(Agent):
    """A random player that writes down every decision it is asked for."""

    name = "recorder"
    uses_state = True

    def __init__(self, read_only: bool = True) -> None:
        self.read_only = read_only
        self.asked: list[tuple[int, int, int]] = []  # (seat, the game's current, decisions)
        self.given: list[Game] = []
        self.resets = 0

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        self.asked.append((player, game.current, game.decisions))
        self.given.append(game)
        return int(rng.choice(game.legal_actions()))

    def reset(self) -> None:
        self.resets += 1


class Cheat(Agent):
    name = "cheat"
    uses_state = True
    read_only = True

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        legal = set(game.legal_actions())
        return next(a for a in range(NUM_ACTIONS) if a not in legal)


def _game(n: int = 4, seed: int = 3) -> Game:
    return new_game(GameConfig(num_players=n, record_events=False), seed=seed)


def _table(specs, agents, seed=0, **kwargs) -> LearnerTable:
    rng = np.random.default_rng(seed)
    return LearnerTable(_game(len(specs)), specs, agents.__getitem__, rng, **kwargs)


def test_agents_move_in_the_engines_turn_order_until_a_learner_decides():
    agents = {"a": Recorder(), "b": Recorder()}
    table = _table(["a", LEARNER, "b", "a"], agents)
    assert agents["a"].resets == 1 and agents["b"].resets == 1  # a new table is a new game
    made = table.play_agents()
    assert table.game.current == 1 and not table.over
    asked = agents["a"].asked + agents["b"].asked
    assert made == table.decisions == table.game.decisions == len(asked) > 0
    assert all(seat == current and seat != 1 for seat, current, _ in asked)
    assert sorted(d for _, _, d in asked) == list(range(made))  # one decision each, in order
    assert {seat for seat, _, _ in agents["b"].asked} <= {2}
    for _ in range(20):
        before = table.decisions
        made = table.step(int(table.game.legal_actions()[0]))
        assert table.decisions == before + made and made >= 1
        assert table.over or table.game.current == 1


def test_the_same_generator_plays_the_same_game():
    def play(seed):
        agents = {"r": Recorder()}
        table = _table(["r", "r", LEARNER], agents, seed=seed)
        table.play_agents()
        while not table.over:
            table.step(table.game.legal_actions()[-1])
        return table.game.to_dict()

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_without_learners_the_agents_play_to_the_end():
    table = _table(["r"] * 3, {"r": Recorder()})
    table.play_agents()
    assert table.terminated and not table.truncated and table.game.is_terminal


def test_a_copy_for_agents_that_write_the_game_itself_for_readers():
    writer, reader = Recorder(read_only=False), Recorder(read_only=True)
    table = _table(["w", "r", "w", "r"], {"w": writer, "r": reader})
    table.play_agents()
    assert writer.given and all(g is not table.game for g in writer.given)
    assert reader.given and all(g is table.game for g in reader.given)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (NUM_ACTIONS, "out of range"),
        (-1, "out of range"),
        (3.0, "integer id"),
        ("5", "integer id"),
        (True, "integer id"),
        (np.array([1, 2]), "integer id"),
        (None, "not legal now"),  # replaced by an id that is illegal now
    ],
)
def test_an_illegal_learner_action_raises_and_changes_nothing(bad, reason):
    table = _table([LEARNER, "r", "r"], {"r": Recorder()})
    table.play_agents()
    if bad is None:
        legal = set(table.game.legal_actions())
        bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    before, decisions = table.game.clone(), table.decisions
    with pytest.raises(IllegalActionError, match=reason):
        table.step(bad)
    assert table.game == before and table.decisions == decisions


def test_numpy_learner_actions_are_ids():
    table = _table([LEARNER, "r", "r"], {"r": Recorder()})
    table.play_agents()
    action = table.game.legal_actions()[0]
    assert action_id_of(np.int64(action)) == action_id_of(np.array([action])) == action
    table.step(np.int16(action))
    assert table.decisions >= 1


def test_an_agents_illegal_move_is_an_agent_error_naming_it_and_applies_nothing():
    table = _table(["cheat", LEARNER, "r"], {"cheat": Cheat(), "r": Recorder()})
    before = table.game.clone()
    with pytest.raises(AgentError, match=r"'cheat' at seat 0 chose illegal action .* in phase"):
        table.play_agents()
    assert table.game == before and table.decisions == 0


def test_truncation_at_the_tables_limit_and_an_adapters_end():
    table = _table(["r"] * 4, {"r": Recorder()}, max_decisions=7)
    assert table.play_agents() == 7
    assert table.truncated and not table.terminated and table.over and not table.game.is_terminal
    with pytest.raises(IllegalActionError, match="the table is over"):
        table.step(table.game.legal_actions()[0])  # nothing more is played
    assert table.decisions == 7
    ended = [False]
    table = _table(["r", LEARNER, "r"], {"r": Recorder()}, ended=lambda: ended[0])
    ended[0] = True
    assert table.terminated and not table.truncated and table.play_agents() == 0


def test_an_apply_hook_gets_every_move_and_checks_the_learners():
    applied: list[int] = []
    game = _game(3)

    def apply(action):
        applied.append(action)
        game.apply_action_checked(action)  # an adapter's own check (the AEC env's)

    agents = {"r": Recorder()}
    table = LearnerTable(game, [LEARNER, "r", "r"], agents.__getitem__, np.random.default_rng(0),
                  apply=apply)
    table.play_agents()
    table.step(game.legal_actions()[0])
    assert len(applied) == table.decisions == game.decisions
    with pytest.raises(IllegalActionError):
        table.step(NUM_ACTIONS)  # refused by the hook, as the adapter decides
    assert applied[-1] == NUM_ACTIONS and len(applied) == table.decisions + 1


def test_specs_must_match_the_seats():
    with pytest.raises(ValueError, match="4-player game needs 4 seat specs"):
        LearnerTable(_game(4), [LEARNER, "r"], {}.__getitem__, np.random.default_rng(0))


def test_agent_cache_makes_each_spec_once_and_keeps_the_pools():
    cache = AgentCache()
    first = cache("random")
    assert cache("random") is first and cache("heuristic") is not first
    cache.keep(["heuristic"])
    assert cache("random") is not first


class Raiser(Agent):
    """An agent whose own engine call fails (a bug inside its decision)."""

    name = "raiser"
    uses_state = True
    read_only = True

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        raise game.illegal_action_error(-5, "a search that applied a wrong move")


def test_an_illegal_action_error_inside_an_agent_is_the_agents_not_the_learners():
    table = _table([LEARNER, "raiser", "r"], {"raiser": Raiser(), "r": Recorder()})
    table.play_agents()
    with pytest.raises(AgentError, match="'raiser' at seat 1 failed: illegal action -5"):
        table.step(table.game.legal_actions()[0])
