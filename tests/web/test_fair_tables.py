"""Fair tables between people: each person receives only his own seat's token,
no answer of an unfinished game carries its seed, the lobby tells no secret, a spectator
sees the public information only, and agents that cannot play a player count are refused
before a game exists (a game stuck on one can be given up). Also the defects the issue
lists for the server: a deeply nested JSON body, a mistyped seat link, the WebSocket's
Origin."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from perikles_env.engine import GameConfig, new_game
from perikles_env.engine.determinize import determinize
from perikles_env.web.payload import seat_payload
from perikles_env.web.server import GameServer, create_app
from perikles_env.web.tables import Tables

from .browser import SERVER_KEYS
from .helpers import public_last_moves, with_marks

SEED = 3141592653  # ten digits: never in an answer by chance
HEADERS = {"Content-Type": "application/json"}


def token_of(link: str) -> str:
    return link.rsplit("/", 1)[1]


def wait_for(client, token, seats, timeout=30.0):
    """The payload of ``token`` once one of ``seats`` is to act or the game is over."""
    end = time.monotonic() + timeout
    while True:
        s = client.get(f"/api/seat/{token}").json()
        if s["finished"] or s["to_act"] in seats:
            return s
        assert time.monotonic() < end, "the agents did not move"
        time.sleep(0.01)


def test_the_creator_gets_his_own_seat_and_invitations_never_the_seed_or_other_tokens(
    client,
) -> None:
    reply = client.post("/api/games", json={"seats": ["human", "heuristic", "human",
                                                      "human"], "seed": SEED})
    assert reply.status_code == 201
    created = reply.json()
    table = client.server.tables.by_id[created["id"]]
    tokens = {p: s.token for p, s in enumerate(table.seats) if s.human}
    assert created["seat"] == 0 and token_of(created["link"]) == tokens[0]
    assert [i["seat"] for i in created["invites"]] == [2, 3]
    assert str(SEED) not in reply.text and "seed" not in created
    assert tokens[2] not in reply.text and tokens[3] not in reply.text
    # each code opens its own seat, once, and answers with that seat's token only
    code = created["invites"][0]["code"]
    joined = client.post("/api/join", json={"code": code.lower().replace("-", "")})
    assert joined.status_code == 200 and joined.json()["seat"] == 2
    assert token_of(joined.json()["link"]) == tokens[2]
    assert tokens[3] not in joined.text and tokens[0] not in joined.text
    again = client.post("/api/join", json={"code": code})
    assert again.status_code == 404 and "already used" in again.json()["error"]
    # the lobby lets a stranger take the open seat of a game that is not private
    lobby = client.get("/api/lobby")
    [entry] = lobby.json()["games"]
    assert entry["open"] == [3] and entry["seats"] == ["player", "heuristic", "player",
                                                       "open seat"]
    assert entry["chosen_seed"] is True and entry["state"] == "open"
    for secret in (str(SEED), *tokens.values(), created["invites"][1]["code"]):
        assert secret not in lobby.text
    taken = client.post("/api/join", json={"game": created["id"], "seat": 3})
    assert token_of(taken.json()["link"]) == tokens[3]
    twice = client.post("/api/join", json={"game": created["id"], "seat": 3})
    assert twice.status_code == 409 and "not open" in twice.json()["error"]
    assert client.post("/api/join", json={"code": created["invites"][1]["code"]}).status_code \
        == 404  # the seat taken in the lobby spent its code
    assert client.get("/api/lobby").json()["games"][0]["state"] == "running"
    assert json.loads((table.folder / "seats.json").read_text())["seats"][3]["claimed"]


def test_a_private_game_is_joined_only_with_its_code(client) -> None:
    created = client.post("/api/games", json={"seats": ["human", "human", "random"],
                                              "private": True}).json()
    refused = client.post("/api/join", json={"game": created["id"], "seat": 1})
    assert refused.status_code == 403 and "invitation code" in refused.json()["error"]
    assert client.get("/api/lobby").json()["games"][0]["private"] is True
    code = created["invites"][0]["code"]
    assert client.post("/api/join", json={"code": code}).status_code == 200
    for body, status in (({"code": 7}, 400), ({"code": "x" * 50}, 400), ({}, 400),
                         ({"game": "nope", "seat": 1}, 404),
                         ({"game": created["id"], "seat": 9}, 422),
                         ({"private": "yes", "seats": ["human", "random", "random"]}, 400)):
        path = "/api/games" if "seats" in body else "/api/join"
        reply = client.post(path, json=body)
        assert reply.status_code == status, (body, reply.text)
        assert "\n" not in reply.json()["error"]


def _strip(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in SERVER_KEYS}


def test_every_answer_of_a_game_in_progress_holds_only_what_its_reader_may_know(
    client,
) -> None:
    """Two people and two agents: every HTTP answer and WebSocket frame either person's
    page or a spectator's receives until the game ends holds no seed and no other seat's
    token, and is the same when the hidden information is redrawn."""
    created = client.post("/api/games", json={"seats": ["human", "heuristic", "human",
                                                      "random"], "seed": SEED}).json()
    joined = client.post("/api/join", json={"code": created["invites"][0]["code"]}).json()
    tokens = {0: token_of(created["link"]), 2: token_of(joined["link"])}
    table = client.server.tables.by_id[created["id"]]
    answers: list[tuple[int | None, str]] = []
    rng = np.random.default_rng(1)
    with client.websocket_connect(f"ws://127.0.0.1/ws/{tokens[0]}") as ws0, \
            client.websocket_connect(f"ws://127.0.0.1/ws/watch/{table.id}") as watch:
        for _ in range(40):
            s = wait_for(client, tokens[0], (0, 2))
            if s["finished"]:
                break
            for seat, token in tokens.items():
                answers.append((seat, client.get(f"/api/seat/{token}").text))
                answers.append((seat, client.get(f"/api/seat/{token}/log").text))
            answers.append((None, client.get(f"/api/games/{table.id}").text))
            answers.append((None, client.get(f"/api/games/{table.id}/log").text))
            answers.append((None, client.get("/api/lobby").text))
            me = s["to_act"]
            mine = client.get(f"/api/seat/{tokens[me]}").json()
            action = int(rng.choice([m["action"] for m in mine["moves"]]))
            reply = client.post(f"/api/seat/{tokens[me]}/act",
                                json={"action": action, "step": mine["step"]})
            answers.append((me, reply.text))
        frames = [(0, ws0.receive_text()) for _ in range(3)]
        frames += [(None, watch.receive_text()) for _ in range(3)]
    assert not table.game.is_terminal and table.step > 40
    assert client.get(f"/api/games/{table.id}/record").status_code == 403
    assert client.get(f"/replay/{table.id}").status_code == 403
    checked = 0
    for reader, text in answers + frames:
        assert str(SEED) not in text
        for seat, token in tokens.items():
            assert seat == reader or token not in text
        data = json.loads(text)
        if "board" not in data:
            continue
        assert data["seat"] == reader
        # the same answer for a hidden state redrawn from the reader's point of view
        game = new_game(GameConfig(num_players=4), seed=SEED)
        games = [game.clone()]
        for action in table.actions[:data["step"]]:
            game.apply_action(action)
            games.append(game.clone())
        other = determinize(game, 0 if reader is None else reader, rng) \
            if reader is not None else game
        feed = table.public_feed if reader is None else table.feed[reader]
        feed = [x for x in feed if x["step"] <= data["step"]]
        last = public_last_moves(games, table.actions[:data["step"]])
        assert _strip(data) == with_marks(
            seat_payload(other, reader, table.names, feed, data["step"], table.id), other,
            last, reader)
        checked += 1
    assert checked > 60


def test_a_spectator_sees_the_public_board_and_the_record_only_at_the_end(client) -> None:
    created = client.post("/api/games", json={"seats": ["human", "random", "random"],
                                              "seed": 5}).json()
    token = token_of(created["link"])
    table = client.server.tables.by_id[created["id"]]
    watch = client.get(f"/api/games/{table.id}").json()
    assert watch["seat"] is None and watch["moves"] == [] and watch["hand"] == []
    assert "public view" in watch["board"] and "(you)" not in watch["board"]
    assert client.get(f"/watch/{table.id}").status_code == 200
    assert client.get("/watch/000000000000").status_code == 404
    while not table.game.is_terminal:
        s = wait_for(client, token, (0,))
        if s["finished"]:
            break
        client.post(f"/api/seat/{token}/act", json={"action": s["moves"][0]["action"],
                                                    "step": s["step"]})
    end = client.get(f"/api/games/{table.id}").json()
    assert end["finished"] and end["record"]["link"] == f"/api/games/{table.id}/record"
    assert end["breakdown"][0]["total"] == end["scores"][0]
    record = client.get(end["record"]["link"])
    assert record.status_code == 200 and json.loads(record.text)["seed"] == 5
    replay = client.get(f"/replay/{table.id}")
    assert replay.status_code == 200 and "<script" in replay.text
    assert "unsafe-inline" in replay.headers["content-security-policy"]


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("agent", ["search", "net"])
def test_network_agents_are_refused_at_a_player_count_they_cannot_play(
    client, agent, players, four_player_network
) -> None:
    seats = ["human", agent] + ["random"] * (players - 2)
    reply = client.post("/api/games", json={"seats": seats})
    assert reply.status_code == 422
    assert reply.json()["error"] == f"p1 ({agent}) plays only 4-player games, not {players}"
    assert client.server.tables.by_id == {}
    assert list(client.server.tables.folder.iterdir()) == []


def test_perikles_play_web_refuses_them_before_the_server_starts(
    capsys, four_player_network
) -> None:
    from perikles_env.play import main

    with pytest.raises(SystemExit) as stop:
        main(["--web", "--players", "5", "--opponents", "heuristic,search", "--port", "1"])
    assert stop.value.code == 2
    err = capsys.readouterr()
    assert "'search' plays only 4-player games, not 5" in err.err
    assert "Perikles web game" not in err.out


def test_a_game_stuck_on_an_agent_loads_without_running_it_and_can_be_given_up(
    tmp_path, four_player_network
) -> None:
    """A game created before the refusal: p1 is ``search`` at 3 players."""
    table = Tables(tmp_path).create(["human", "random", "random"], 4)
    seats = json.loads((table.folder / "seats.json").read_text())
    seats["seats"][1]["spec"] = "search"
    (table.folder / "seats.json").write_text(json.dumps(seats))
    server = GameServer(Tables(tmp_path), pace=0.0)
    [stuck] = server.tables.load()
    assert stuck.error == "p1 (search) plays only 4-player games, not 3"
    token = table.seats[0].token
    with TestClient(create_app(server), base_url="http://127.0.0.1") as c:
        s = c.get(f"/api/seat/{token}").json()
        assert s["error"] == stuck.error and s["step"] == 0
        move = stuck.game.legal_actions()[0]
        reply = c.post(f"/api/seat/{token}/abandon", json={})
        assert reply.status_code == 200
        s = c.get(f"/api/seat/{token}").json()
        assert s["abandoned"].startswith("p0 gave the game up") and s["to_act"] is None
        assert s["status"].startswith("Game abandoned") and s["record"]
        refused = c.post(f"/api/seat/{token}/act", json={"action": move, "step": 0})
        assert refused.status_code == 409
        assert c.post(f"/api/seat/{token}/abandon", json={}).status_code == 409
        assert c.get("/api/lobby").json()["games"][0]["state"] == "abandoned"
    again = Tables(tmp_path)
    [back] = again.load()
    assert back.abandoned == s["abandoned"] and back.error == ""


def test_a_deeply_nested_body_is_a_400_with_one_line(client) -> None:
    import sys

    created = client.post("/api/games", json={"seats": ["human", "random", "random"]})
    token = token_of(created.json()["link"])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default (another test may have raised it)
    try:
        for path in (f"/api/seat/{token}/act", "/api/games", "/api/join"):
            reply = client.post(path, content="[" * 4000, headers=HEADERS)
            assert reply.status_code == 400, reply.text
            assert reply.json() == {"error": "the body is nested too deeply"}
    finally:
        sys.setrecursionlimit(limit)


def test_a_mistyped_seat_link_is_a_page_that_says_so(client) -> None:
    reply = client.get("/seat/not-a-token")
    assert reply.status_code == 404
    assert reply.headers["content-type"].startswith("text/html")
    assert "knows no seat or game at this link" in reply.text and "{" not in reply.text
    assert client.get("/join/ABCD-EFGH").status_code == 200  # the page; the claim says why


def test_a_websocket_opened_by_another_site_is_refused(client) -> None:
    created = client.post("/api/games", json={"seats": ["human", "random", "random"]})
    token = token_of(created.json()["link"])
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(
        f"ws://127.0.0.1/ws/{token}", headers={"Origin": "http://evil.example"}
    ) as ws:
        ws.receive_text()
    assert closed.value.code == 4403
    with client.websocket_connect(f"ws://127.0.0.1/ws/{token}",
                                  headers={"Origin": "http://127.0.0.1"}) as ws:
        assert json.loads(ws.receive_text())["seat"] == 0


def test_agents_wait_while_paused_and_take_the_pace_the_page_sets(client) -> None:
    created = client.post("/api/games", json={"seats": ["human", "random", "random"],
                                              "seed": 6}).json()
    token = token_of(created["link"])
    s = wait_for(client, token, (0,))
    reply = client.post(f"/api/seat/{token}/pace", json={"paused": True, "pace": 0.01})
    assert reply.json() == {"pace": 0.01, "paused": True}
    client.post(f"/api/seat/{token}/act", json={"action": s["moves"][0]["action"],
                                                "step": s["step"]})
    time.sleep(0.3)
    after = client.get(f"/api/seat/{token}").json()
    assert after["step"] == s["step"] + 1 and after["paused"] and after["to_act"] != 0
    client.post(f"/api/seat/{token}/pace", json={"paused": False})
    assert wait_for(client, token, (0,))["step"] > after["step"]
    for body in ({"pace": -1}, {"pace": "fast"}, {"pace": 11}, {"paused": 1}):
        bad = client.post(f"/api/seat/{token}/pace", json=body)
        assert 400 <= bad.status_code < 500 and "\n" not in bad.json()["error"]


def test_a_port_in_use_is_said_before_any_address_or_link(tmp_path, capsys) -> None:
    import socket

    from perikles_env.web.cli import serve

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = serve(port=port, games=tmp_path / "games", seats=["human", "random", "random"])
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert f"cannot listen on 127.0.0.1:{port}" in out.err and "\n" == out.err[-1]
    assert not (tmp_path / "games").exists() or not any((tmp_path / "games").iterdir())


def test_the_start_counts_only_unfinished_games_as_continued(tmp_path, capsys,
                                                              monkeypatch) -> None:
    import uvicorn

    from perikles_env.web.cli import serve

    from .helpers import play_out

    tables = Tables(tmp_path)
    done = tables.create(["human", "random", "random"], 1)
    play_out(done, 1)
    tables.create(["human", "random", "human"], 2)  # p2 not taken yet
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    from .test_server_process import free_port

    assert serve(port=free_port(), games=tmp_path, seats=["human", "random", "human"], seed=3) == 0
    out = capsys.readouterr().out
    assert "1 continued, 1 over" in out
    assert "seat p2: open, join code" in out
    assert done.seats[0].token not in out
    created = [line for line in out.splitlines() if line.startswith("seat p")]
    assert len(created) == 2  # the command line's own game: both links, both seats taken
    again = Tables(tmp_path)
    again.load()
    mine = next(t for t in again.by_id.values() if t.seed == 3)
    assert all(s.claimed for s in mine.seats if s.human) and not again.codes.keys() & {
        s.code for s in mine.seats}
