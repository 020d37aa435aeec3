"""agents/table_loop.py, the one loop that plays seats against each other: which seat is
asked with which generator and on which game, where it pauses and stops, what the hooks
see, and what each legality check does with an illegal choice."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import Agent, AgentError, Decision, TableLoop, decide, make_agent
from perikles_env.agents.table_loop import ENGINE, FORFEIT, RAISE, TRUST
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.errors import IllegalActionError, InvalidConfigError


def fresh(n: int = 3, seed: int = 1) -> Game:
    return new_game(GameConfig(num_players=n, record_events=False), seed=seed)


FIRST = 2  # the seat that moves first in ``fresh()``


def first_seat(bad: Agent | None, other: Agent | None) -> list[Agent | None]:
    """Seats with ``bad`` at the seat that moves first and ``other`` elsewhere."""
    assert fresh().current == FIRST
    return [bad if p == FIRST else other for p in range(3)]


class Spy(Agent):
    """A random player that remembers the games and generators it was given."""

    name = "spy"
    uses_state = True

    def __init__(self, read_only: bool = True) -> None:
        self.read_only = read_only
        self.games: list[Game] = []
        self.rngs: list[np.random.Generator] = []
        self.players: list[int] = []
        self.resets = 0

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        self.games.append(game)
        self.rngs.append(rng)
        self.players.append(player)
        return int(rng.choice(game.legal_actions()))

    def reset(self) -> None:
        self.resets += 1


class Returns(Agent):
    name = "returns"
    uses_state = True
    read_only = True

    def __init__(self, value: object) -> None:
        self.value = value

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> object:
        return self.value


def test_a_game_is_the_hand_written_loop_s_game() -> None:
    """Same agents, same generator: the moves a hand-driven loop makes, to the end."""
    agents = [make_agent("heuristic"), make_agent("random"), make_agent("heuristic")]
    by_hand, rng = fresh(), np.random.default_rng(5)
    expected = []
    while not by_hand.is_terminal and not by_hand.is_truncated:
        p = by_hand.current
        action = int(agents[p].act_state(by_hand.clone(), p, rng))
        by_hand.apply_action(action)
        expected.append(action)
    game = fresh()
    loop = TableLoop(game, agents, np.random.default_rng(5), keep_actions=True)
    assert loop.run() == len(expected) == loop.decisions
    assert loop.actions == expected
    assert loop.over and game.is_terminal and game.scores() == by_hand.scores()


def test_each_seat_draws_from_its_own_generator_or_the_shared_one() -> None:
    spies = [Spy(), Spy(), Spy()]
    rngs = [np.random.default_rng(i) for i in range(3)]
    TableLoop(fresh(), spies, rngs).run()
    for spy, rng in zip(spies, rngs, strict=True):
        assert spy.rngs and all(r is rng for r in spy.rngs)
    shared = np.random.default_rng(0)
    spies = [Spy(), Spy(), Spy()]
    TableLoop(fresh(), spies, shared).run()
    assert all(r is shared for spy in spies for r in spy.rngs)


def test_a_reading_agent_gets_the_live_game_any_other_a_copy() -> None:
    game = fresh()
    reader, writer = Spy(read_only=True), Spy(read_only=False)
    TableLoop(game, [reader, writer, writer], np.random.default_rng(0), max_decisions=12).run()
    assert all(g is game for g in reader.games)
    assert writer.games and all(g is not game for g in writer.games)
    assert decide(reader, game, game.current, np.random.default_rng(0)) in game.legal_actions()
    assert reader.games[-1] is game
    copy = game.clone()
    decide(writer, copy, copy.current, np.random.default_rng(0), private=True)
    assert writer.games[-1] is copy


def test_making_a_loop_resets_each_agent_once() -> None:
    spy = Spy()
    TableLoop(fresh(), [spy, spy, None], np.random.default_rng(0))
    assert spy.resets == 1


def test_a_seat_played_outside_pauses_the_loop_until_its_move() -> None:
    game = fresh()
    spy = Spy()
    loop = TableLoop(game, [None, spy, spy], np.random.default_rng(0))
    rng = np.random.default_rng(9)
    while True:
        loop.run()
        if loop.over:
            break
        assert game.current == 0  # paused exactly at the outside seat's turn
        game.apply_action(int(rng.choice(game.legal_actions())))
        loop.decisions += 1
    assert game.is_terminal
    assert set(spy.players) == {1, 2}


def test_a_chooser_that_returns_none_stops_the_game_there() -> None:
    game = fresh()
    asked: list[int] = []

    def quits(g: Game, p: int, rng: np.random.Generator) -> int | None:
        asked.append(p)
        return None

    loop = TableLoop(game, [Spy(), Spy(), quits], np.random.default_rng(0))
    loop.run()
    assert asked == [FIRST] and game.current == FIRST and not loop.over


def test_skip_forced_applies_single_choices_without_asking() -> None:
    asked: list[int] = []

    def chooser(g: Game, p: int, rng: np.random.Generator) -> int:
        legal = g.legal_actions()
        asked.append(len(legal))
        return legal[0]

    game = fresh()
    loop = TableLoop(game, [chooser] * 3, np.random.default_rng(0), skip_forced=True)
    loop.run()
    assert game.is_terminal and asked and min(asked) >= 2
    assert loop.decisions > len(asked)  # forced moves were made too


def test_hooks_see_each_decision_before_it_is_applied_and_timings_when_timed() -> None:
    game = fresh()
    seen: list[tuple[str, int, int]] = []
    decisions: list[Decision] = []

    def before(g: Game, p: int) -> None:
        seen.append(("before", p, g.decisions))

    def on_decision(d: Decision) -> None:
        decisions.append(d)
        assert game.is_legal(d.action)  # not applied yet

    loop = TableLoop(game, [Spy()] * 3, np.random.default_rng(0), max_decisions=30,
                     before=before, on_decision=on_decision, timed=True)
    assert loop.run() == 30 and loop.over and not game.is_terminal
    assert [s[2] for s in seen] == [game.decisions - 30 + i for i in range(30)]
    assert [d.player for d in decisions] == [s[1] for s in seen]
    assert all(d.seconds > 0 and d.cpu_seconds >= 0 for d in decisions)
    untimed: list[Decision] = []
    TableLoop(fresh(), [Spy()] * 3, np.random.default_rng(0), max_decisions=5,
              on_decision=untimed.append).run()
    assert [d.seconds for d in untimed] == [0.0] * 5


def test_forfeit_stops_at_the_offender_and_changes_nothing() -> None:
    for bad in (-5, 10**6, 1.5, None, "x"):
        game = fresh()
        before = game.decisions
        loop = TableLoop(game, first_seat(Returns(bad), Spy()), np.random.default_rng(0),
                         check=FORFEIT)
        assert loop.run() == 0 and loop.forfeit == FIRST and loop.over
        assert game.decisions == before


def test_raise_names_the_seat_for_an_illegal_choice_or_an_illegal_action_inside() -> None:
    game = fresh()
    loop = TableLoop(game, first_seat(Returns(-5), Spy()), np.random.default_rng(0),
                     check=RAISE, names=["cheat"] * 3)
    with pytest.raises(AgentError, match=r"'cheat' at seat 2 chose illegal action -5"):
        loop.run()

    class Raiser(Agent):
        name = "raiser"
        read_only = True

        def act_state(self, g: Game, player: int, rng: np.random.Generator) -> int:
            g.apply_action_checked(-5)
            return 0

    loop = TableLoop(fresh(), first_seat(Raiser(), Spy()), np.random.default_rng(0), check=RAISE)
    with pytest.raises(AgentError, match=r"'raiser' at seat 2 failed: illegal action -5"):
        loop.run()


def test_engine_check_raises_the_engine_error_and_changes_nothing() -> None:
    game = fresh()
    before = game.decisions
    loop = TableLoop(game, first_seat(Returns(-5), Spy()), np.random.default_rng(0), check=ENGINE)
    with pytest.raises(IllegalActionError):
        loop.run()
    assert game.decisions == before and loop.decisions == 0


def test_without_the_truncation_stop_the_loop_plays_on_to_the_end() -> None:
    game = fresh()
    loop = TableLoop(game, [Spy()] * 3, np.random.default_rng(0), check=TRUST,
                     stop_at_truncation=False, max_decisions=5)
    loop.run()
    assert game.is_terminal and loop.decisions > 5


@pytest.mark.parametrize(
    ("seats", "rngs", "check", "match"),
    [
        ([None, None], np.random.default_rng(0), TRUST, "3-player game needs 3 seats"),
        ([None] * 3, [np.random.default_rng(0)] * 2, TRUST, "one per seat"),
        ([None] * 3, 7, TRUST, "one per seat"),
        ([None] * 3, np.random.default_rng(0), "lenient", "check must be one of"),
    ],
)
def test_bad_settings_are_refused(seats, rngs, check, match) -> None:
    game = fresh()
    with pytest.raises(InvalidConfigError, match=match):
        TableLoop(game, seats, rngs, check=check)
    assert game.decisions == 0
