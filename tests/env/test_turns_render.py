"""Whose turn it is, bad input, penalize mode and the text board (docs/rules.md F for
what the board may show)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from perikles_env import env
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, Phase, new_game
from perikles_env.engine import data as D
from perikles_env.engine.determinize import known_cities, revealed_slot
from perikles_env.environment.render import render_text
from perikles_env.errors import IllegalActionError
from perikles_env.render.narrate import special_title

NC = D.NUM_CLASSES


def legal(e) -> list[int]:
    return np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()


def play_to_end(e, seed: int) -> None:
    rng = np.random.default_rng(seed)
    while not e.unwrapped.game.is_terminal:
        e.step(int(rng.choice(legal(e))))


# ---- turns ----------------------------------------------------------------------------------


def test_act_checks_whose_turn_it_is_and_changes_nothing_when_wrong() -> None:
    e = env(num_players=4)
    e.reset(seed=3)
    turn = e.agent_selection
    other = next(a for a in e.agents if a != turn)
    before = e.unwrapped.game.to_dict()
    with pytest.raises(IllegalActionError, match=f"not {other}'s turn") as info:
        e.unwrapped.act(other, legal(e)[0])
    assert info.value.agent == other and info.value.phase == "SETUP_PLACE"
    with pytest.raises(IllegalActionError, match="unknown agent"):
        e.unwrapped.act("player_9", legal(e)[0])
    assert e.unwrapped.game.to_dict() == before and e.agent_selection == turn
    e.unwrapped.act(turn, legal(e)[0])  # the right agent acts normally
    assert e.unwrapped.game.to_dict() != before


def test_after_the_game_only_none_removes_agents_then_stepping_is_an_error(caplog) -> None:
    e = env(num_players=3)
    e.reset(seed=4)
    play_to_end(e, 4)
    assert all(e.terminations.values())
    with pytest.raises(IllegalActionError, match="only valid action is None"):
        e.step(0)
    while e.agents:
        e.step(None)
    raw = e.unwrapped
    with pytest.raises(IllegalActionError, match="game is over"):
        raw.step(0)
    final = raw.game.to_dict()
    with pytest.raises(IllegalActionError, match="every agent is done"):
        e.step(0)  # rejected, not only warned about as PettingZoo does
    assert raw.game.to_dict() == final
    e.step(None)  # None is still the removal action: PettingZoo's warning, nothing changes
    assert "after all agents are terminated" in caplog.text
    assert raw.game.to_dict() == final


@pytest.mark.parametrize(
    "make", [np.int64, np.int32, np.int16, np.uint16, lambda a: np.array(a, dtype=np.int64)]
)
def test_numpy_integers_are_accepted(make) -> None:
    a, b = env(num_players=3), env(num_players=3)
    a.reset(seed=5)
    b.reset(seed=5)
    for _ in range(40):
        action = legal(a)[-1]
        a.step(action)
        b.step(make(action))
    assert a.unwrapped.game == b.unwrapped.game


@pytest.mark.parametrize("bad", [1.0, "0", True, None, [0], np.float32(0), np.array([0])])
def test_non_integer_actions_raise_even_in_penalize_mode(bad) -> None:
    for mode in ("raise", "penalize"):
        e = env(num_players=3, illegal_action=mode)
        e.reset(seed=6)
        before = e.unwrapped.game.to_dict()
        with pytest.raises(IllegalActionError, match="must be an int"):
            e.step(bad)
        assert e.unwrapped.game.to_dict() == before
        assert not any(e.terminations.values())


def test_penalize_mode_out_of_range_and_illegal_ids_end_the_game() -> None:
    for bad in (NUM_ACTIONS, -1, "illegal"):
        e = env(num_players=4, illegal_action="penalize", illegal_penalty=-3.0)
        e.reset(seed=7)
        for _ in range(25):
            e.step(legal(e)[0])
        game = e.unwrapped.game.to_dict()
        offender = e.agent_selection
        action = (
            next(a for a in range(NUM_ACTIONS) if a not in legal(e)) if bad == "illegal" else bad
        )
        e.step(action)
        assert e.unwrapped.game.to_dict() == game  # never applied, never substituted
        assert all(e.terminations.values())
        assert e.rewards[offender] == -3.0
        assert sum(e.rewards.values()) == -3.0
        assert e.infos[offender]["illegal_action"]["action"] == action
        for agent in e.agents:  # nobody may act any more
            assert not e.observe(agent)["action_mask"].any()
            assert "action_mask" not in e.infos[agent]
        while e.agents:
            e.step(None)


def test_info_mask_is_a_copy_the_env_does_not_depend_on() -> None:
    e = env(num_players=3)
    e.reset(seed=8)
    info_mask = e.infos[e.agent_selection]["action_mask"]
    obs_mask = e.observe(e.agent_selection)["action_mask"]
    assert np.array_equal(info_mask, obs_mask)
    first = int(np.flatnonzero(obs_mask)[0])
    info_mask[:] = 0
    obs_mask[:] = 0
    e.step(first)  # still legal for the env


# ---- the text board -------------------------------------------------------------------------


def commit_state(n: int, seed: int) -> Game:
    g = new_game(GameConfig(num_players=n), seed=seed, backend="python")
    r = random.Random(seed)
    while not (g.phase == Phase.COMMIT and sum(g.at) >= 8 and any(g.pool)):
        g.apply_action(r.choice(g.legal_actions()))
    return g


def hidden_variants(g: Game, viewer: int) -> list[Game]:
    """Copies that differ from ``g`` only in what ``viewer`` may not see (docs/rules.md F)."""
    out = []
    for box in range(D.LOCATION_SLOTS * 4):
        if box // 4 == revealed_slot(g):
            continue
        for k in D.EXISTING_CLASSES:
            if not g.at[box * NC + k] or known_cities(g, viewer) >> D.CLASS_CITY[k] & 1:
                continue
            same = D.CLASSES_OF[D.CLASS_CITY[k]][D.CLASS_TYPE[k]]
            for j in same:
                if j != k and g.pool[j]:  # a face-down counter trades strength with a hand
                    h = g.clone()
                    h.at[box * NC + k] -= 1
                    h.at[box * NC + j] += 1
                    h.pool[j] -= 1
                    h.pool[k] += 1
                    out.append(h)
                    break
    holders = [q for q in range(g.n) if q != viewer and g.special[q] >= 0]
    if holders and g.unseen_specials:
        h = g.clone()
        q = holders[0]
        h.special[q], h.unseen_specials[0] = h.unseen_specials[0], h.special[q]
        out.append(h)
    h = g.clone()
    h.influence_deck.reverse()
    h.loc_deck.reverse()
    h.rng.state ^= 12345
    out.append(h)
    return out


@pytest.mark.parametrize("n,seed", [(3, 1), (4, 2), (5, 3)])
def test_board_text_is_identical_for_states_the_viewer_cannot_tell_apart(n: int, seed: int):
    g = commit_state(n, seed)
    strength_swaps = 0
    for viewer in range(n):
        text = render_text(g, viewer)
        for h in hidden_variants(g, viewer):
            assert h != g
            assert render_text(h, viewer) == text
            strength_swaps += h.at != g.at
    assert strength_swaps > 0


@pytest.mark.parametrize("n,seed", [(3, 4), (4, 5), (5, 6)])
def test_board_text_shows_what_the_viewer_may_see(n: int, seed: int) -> None:
    g = commit_state(n, seed)
    for viewer in range(n):
        text = render_text(g, viewer)
        own = g.special[viewer]
        title = special_title(D.SPECIAL_NAMES[own]) if own >= 0 else "none"
        assert f"your special tile: {title}" in text
        known = known_cities(g, viewer)
        for k in D.EXISTING_CLASSES:  # his own hand, by strength
            if g.pool[k] and known >> D.CLASS_CITY[k] & 1:
                assert f"{counter_label(k)}x{g.pool[k]}" in text.split("all hands")[0]
        h = g.clone()  # a visible change: cubes
        h.cubes[D.MEGARA * 5 + (viewer + 1) % n] += 1
        h.supply[(viewer + 1) % n] -= 1
        assert render_text(h, viewer) != text


def counter_label(k: int) -> str:
    """A counter class as the text board writes it: 'Sparta-H3'."""
    home, rest = D.class_name(k).split("-")
    return f"{home.capitalize()}-{rest}"


def test_board_text_during_a_battle_shows_the_revealed_location_by_strength() -> None:
    g = new_game(GameConfig(num_players=4), seed=9)
    r = random.Random(9)
    while not (g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY) and sum(g.at) > 0):
        g.apply_action(r.choice(g.legal_actions()))
    slot = revealed_slot(g)
    assert slot >= 0
    shown = 0
    for box in range(slot * 4, slot * 4 + 4):
        for k in D.EXISTING_CLASSES:
            if g.at[box * NC + k]:
                for viewer in range(4):
                    assert f"{counter_label(k)}x{g.at[box * NC + k]}" in render_text(g, viewer)
                shown += 1
    assert shown > 0


def test_render_modes_and_board_views() -> None:
    e = env(num_players=4, render_mode="ansi")
    e.reset(seed=10)
    for _ in range(30):
        e.step(legal(e)[0])
    raw = e.unwrapped
    seat = raw.agent_name_mapping[e.agent_selection]
    assert e.render() == render_text(raw.game, seat) == raw.board()
    assert raw.board("player_2") == render_text(raw.game, 2)
    assert env(num_players=4).unwrapped.render() is None


def test_human_render_prints_after_each_step(capsys) -> None:
    e = env(num_players=3, render_mode="human")
    e.reset(seed=11)
    e.step(legal(e)[0])
    out = capsys.readouterr().out
    assert "Perikles  turn 1" in out and "viewer: p" in out
