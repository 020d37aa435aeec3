"""Taking a move back as Board Game Arena allows it (only the last mover, only while
nobody moved since, only when nothing hidden came out and no dice were rolled), the hints
(the same whatever hidden information is redrawn), and what the page shows of a seat's own
hand, of a decision with one answer and of the final score."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from perikles_env.agents import make_agent
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.determinize import determinize
from perikles_env.engine.information import known_cities
from perikles_env.engine.phases import Phase
from perikles_env.web.hints import hints
from perikles_env.web.moves import legal_moves
from perikles_env.web.payload import hand, only_choice, score_breakdown, seat_payload
from perikles_env.web.tables import TableError, Tables

from .helpers import states


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    """A 4-person game played to the end at random, each move checked for its undo."""
    table = Tables(tmp_path_factory.mktemp("games")).create(["human"] * 4, 5)
    rng = np.random.default_rng(0)
    verdicts = []  # (step, kind, refusal)
    while not table.game.is_terminal:
        action = int(rng.choice(table.game.legal_actions()))
        mover = table.game.current
        table.apply(action, save=False)
        verdicts.append((table.step, A.decode(action)[0], table.undo_refusal(mover)))
        if table.step % 7 == 0:  # another seat may never take it back
            other = (mover + 1) % 4
            assert table.undo_refusal(other) == f"p{mover} has moved since your last move"
    return table, verdicts


def test_undo_is_allowed_only_when_the_move_showed_and_rolled_nothing(people) -> None:
    table, verdicts = people
    allowed = collections.Counter(k for _, k, why in verdicts if not why)
    refused = collections.Counter((k, why) for _, k, why in verdicts if why)
    # a commit, a proposal, a tile whose display stays as it was: taken back
    assert allowed["PLACE"] > 50 and allowed["PROPOSE"] > 5 and allowed["TAKE_TILE"] > 10
    # a special tile played, a tile that draws a new one, dice rolled: they stand
    shown = "the move showed hidden information or rolled dice"
    assert refused[("TAKE_TILE", shown)] > 0 and refused[("BATTLE_PASS", shown)] > 0
    assert refused[("END_PICK", shown)] > 0
    assert any(why == "playing a special tile showed it to everyone" for _, _, why in verdicts)
    games = states(table)
    for step, kind, why in verdicts:
        before, after = games[step - 1], games[step]
        seen = len(before.event_log)
        events = [e[0] for e in after.event_log[seen:]]
        if "roll" in events or "dice_round" in events or "new_turn" in events:
            assert why, (step, kind, events)  # dice or a new turn's draws: never taken back


def test_taking_a_move_back_restores_the_game_its_story_and_its_record(client) -> None:
    c, server = client, client.server
    created = c.post("/api/games", json={"seats": ["human", "human", "human"],
                                         "seed": 2}).json()
    table = server.tables.by_id[created["id"]]
    tokens = {0: created["link"].rsplit("/", 1)[1]}
    for invite in created["invites"]:
        joined = c.post("/api/join", json={"code": invite["code"]}).json()
        tokens[joined["seat"]] = joined["link"].rsplit("/", 1)[1]
    rng = np.random.default_rng(3)
    undone = refused = 0
    while undone < 5 or refused < 5:
        assert table.step < 400
        me = table.game.current
        s = c.get(f"/api/seat/{tokens[me]}").json()
        before = (table.game.to_dict(), [list(f) for f in table.feed], s)
        record = (table.folder / "record.jsonl").read_bytes()
        action = int(rng.choice([m["action"] for m in s["moves"]]))
        c.post(f"/api/seat/{tokens[me]}/act", json={"action": action, "step": s["step"]})
        mine = c.get(f"/api/seat/{tokens[me]}").json()
        other = c.get(f"/api/seat/{tokens[(me + 1) % 3]}").json()
        assert other["undo"] is False
        reply = c.post(f"/api/seat/{tokens[(me + 1) % 3]}/undo", json={"step": mine["step"]})
        assert reply.status_code == 409 and "has moved since" in reply.json()["error"]
        reply = c.post(f"/api/seat/{tokens[me]}/undo", json={"step": mine["step"]})
        if mine["undo"]:
            assert reply.status_code == 200 and reply.json()["step"] == s["step"]
            assert table.game.to_dict() == before[0]
            assert [list(f) for f in table.feed] == before[1]
            assert c.get(f"/api/seat/{tokens[me]}").json() == before[2]
            assert (table.folder / "record.jsonl").read_bytes() == record
            undone += 1
            c.post(f"/api/seat/{tokens[me]}/act", json={"action": action,
                                                        "step": s["step"]})
        else:
            assert reply.status_code == 409
            assert reply.json()["error"].startswith("cannot take the move back: ")
            assert table.step == s["step"] + 1
            refused += 1
    stale = c.post(f"/api/seat/{tokens[0]}/undo", json={"step": 0})
    assert stale.status_code == 409 and "reload" in stale.json()["error"]


def test_undo_is_refused_once_an_agent_has_answered(tmp_path) -> None:
    table = Tables(tmp_path).create(["human", "heuristic", "heuristic"], 8)
    rng = np.random.default_rng(0)
    while table.agent_to_act() is not None:
        table.apply(table.agent_to_act().act_state(table.game.clone(), table.game.current,
                                                   rng))
    table.apply(table.game.legal_actions()[0])
    agent = table.agent_to_act()
    assert agent is not None
    table.apply(agent.act_state(table.game.clone(), table.game.current, rng))
    with pytest.raises(TableError, match="has moved since"):
        table.undo(0)


def _some_states(n: int = 4, seed: int = 1):
    from perikles_env.engine import GameConfig, new_game

    game = new_game(GameConfig(num_players=n), seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while not game.is_terminal:
        if len(game.legal_actions()) > 1 and rng.random() < 0.02:
            out.append(game.clone())
        game.apply_action(int(rng.choice(game.legal_actions())))
    return out


@pytest.mark.parametrize("name", ["heuristic", "net"])
def test_hints_are_the_same_whatever_hidden_information_is_redrawn(name) -> None:
    agent = make_agent(name)
    rng = np.random.default_rng(9)
    compared = 0
    for game in _some_states()[:5]:
        seat = game.current
        top = hints(game, seat, agent)
        assert top and len({h["action"] for h in top}) == len(top)
        assert all(0 <= h["win"] <= 1 and game.is_legal(h["action"]) for h in top)
        assert top[0]["votes"] >= top[-1]["votes"]
        for _ in range(2):
            assert hints(determinize(game, seat, rng), seat, agent) == top
            compared += 1
    assert compared == 10


def test_hints_are_asked_on_ones_own_move_from_an_agent_that_plays_the_count(
    client, four_player_network
) -> None:
    c, server = client, client.server
    created = c.post("/api/games", json={"seats": ["human", "human", "random"],
                                         "seed": 1}).json()
    table = server.tables.by_id[created["id"]]
    token = created["link"].rsplit("/", 1)[1]
    while table.game.current != 0:
        table.apply(table.game.legal_actions()[0])
    reply = c.get(f"/api/seat/{token}/hints", params={"agent": "heuristic"})
    assert reply.status_code == 200 and reply.json()["hints"]
    assert reply.json()["hints"] == hints(table.game, 0, make_agent("heuristic"))
    assert c.get(f"/api/seat/{token}/hints",
                 params={"agent": "net"}).json()["error"] == \
        "net plays only 4-player games"
    assert c.get(f"/api/seat/{token}/hints", params={"agent": "alpha"}).status_code == 400
    table.apply(table.game.legal_actions()[0])
    if table.game.current != 0:
        assert c.get(f"/api/seat/{token}/hints").status_code == 409


def test_the_hand_panel_lists_the_seats_own_counters_large() -> None:
    for game in _some_states(5, 4):
        for seat in range(game.n):
            shown = hand(game, seat)
            known = known_cities(game, seat)  # the cities whose counters it controls
            assert [x["city"] for x in shown] == [
                D.MILITARY_CITY_NAMES[c].capitalize() for c in range(D.NUM_MILITARY_CITIES)
                if known >> c & 1]
            for city in shown:
                c = D.MILITARY_CITY_NAMES.index(city["city"].lower())
                held = {k: game.pool[k] for t in (0, 1) for k in D.CLASSES_OF[c][t]
                        if game.pool[k]}
                assert sum(x["count"] for x in city["counters"]) == sum(held.values())
                assert len(city["counters"]) == len(held)


def test_a_single_answer_is_explained_and_the_board_says_you_once() -> None:
    seen_battle = seen_other = 0
    for seed in (1, 2, 3):
        from perikles_env.engine import GameConfig, new_game

        game = new_game(GameConfig(num_players=4), seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            moves = legal_moves(game)
            text = only_choice(game, moves)
            assert bool(text) == (len(moves) == 1)
            if text and game.phase == Phase.BATTLE_SPECIAL:
                assert text.startswith("Your only choice is to pass: ") and "D.5-D.9" in text
                seen_battle += 1
            elif text:
                seen_other += 1
            game.apply_action(int(rng.choice(game.legal_actions())))
        payload = seat_payload(game, 1, ["heuristic", "human", "random", "random"], [], 0)
        assert "p1 human (you)" in payload["board"] and "you (you)" not in payload["board"]
        for b in score_breakdown(game):
            assert b["total"] == b["cubes"] + b["location_vp"] + b["statue_vp"] == \
                game.scores()[b["seat"]]
            assert b["location_vp"] == sum(x["vp"] for x in b["locations"])
    assert seen_battle > 0
