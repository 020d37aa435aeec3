"""The web server's API in-process (Starlette's test client): games are created from the
page, moves are taken only from the seat whose token is sent and only on its turn, agents
answer, and every bad request is a 4xx with a one-line JSON error that changes nothing."""

from __future__ import annotations

import json
import signal
import time

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from perikles_env.web.server import GameServer, create_app
from perikles_env.web.tables import Tables

HEADERS = {"Content-Type": "application/json"}


def create(client, seats, seed=9):
    reply = client.post("/api/games", json={"seats": seats, "seed": seed})
    assert reply.status_code == 201, reply.text
    return reply.json()


def token_of(link: dict) -> str:
    return link["link"].rsplit("/", 1)[1]


def seat_links(client, game: dict) -> list[dict]:
    """Every human seat's link: the creator's, and the others' claimed with their codes."""
    links = [{"seat": game["seat"], "link": game["link"]}]
    for invite in game["invites"]:
        reply = client.post("/api/join", json={"code": invite["code"]})
        assert reply.status_code == 200, reply.text
        links.append({"seat": reply.json()["seat"], "link": reply.json()["link"]})
    return sorted(links, key=lambda x: x["seat"])


def state(client, token):
    reply = client.get(f"/api/seat/{token}")
    assert reply.status_code == 200, reply.text
    return reply.json()


def wait_turn(client, token, timeout=30.0):
    """The seat's payload once the agents have moved and it is its move (or the end)."""
    end = time.monotonic() + timeout
    while True:
        s = state(client, token)
        if s["finished"] or s["to_act"] == s["seat"]:
            return s
        assert time.monotonic() < end, "the agents did not move"
        time.sleep(0.01)


def test_a_game_created_from_the_page_is_played_through_the_seat_token(client) -> None:
    game = create(client, ["heuristic", "human", "heuristic", "random"])
    assert game["names"] == ["heuristic", "human", "heuristic", "random"]
    [link] = seat_links(client, game)
    assert link["seat"] == 1
    token = token_of(link)
    assert client.get(link["link"]).status_code == 200  # the seat's page
    for _ in range(10):
        s = wait_turn(client, token)
        assert s["seat"] == 1 and s["moves"]
        move = s["moves"][0]
        reply = client.post(f"/api/seat/{token}/act", json={"action": move["action"],
                                                             "step": s["step"]})
        assert reply.status_code == 200, reply.text
        assert reply.json()["step"] == s["step"] + 1
    table = client.server.tables.by_id[game["id"]]
    assert table.seats[1].token == token and table.step >= 10


def bad_requests(token: str, other: str, step: int, action: int, illegal: int):
    """(what, method, path, body, headers, status) for every kind of refused request."""
    act = f"/api/seat/{token}/act"
    good = {"action": action, "step": step}
    return [
        ("not JSON", "POST", act, "{action: 1", HEADERS, 400),
        ("not an object", "POST", act, "[1, 2]", HEADERS, 400),
        ("no content type", "POST", act, json.dumps(good), {}, 415),
        ("missing action", "POST", act, json.dumps({"step": step}), HEADERS, 400),
        ("missing step", "POST", act, json.dumps({"action": action}), HEADERS, 400),
        ("action a string", "POST", act, json.dumps({"action": "1", "step": step}), HEADERS,
         400),
        ("action a bool", "POST", act, json.dumps({"action": True, "step": step}), HEADERS,
         400),
        ("action out of range", "POST", act, json.dumps({"action": 10**9, "step": step}),
         HEADERS, 422),
        ("negative action", "POST", act, json.dumps({"action": -3, "step": step}), HEADERS,
         422),
        ("illegal action", "POST", act, json.dumps({"action": illegal, "step": step}),
         HEADERS, 422),
        ("stale step", "POST", act, json.dumps({"action": action, "step": step + 1}),
         HEADERS, 409),
        ("another seat's turn", "POST", f"/api/seat/{other}/act", json.dumps(good), HEADERS,
         409),
        ("unknown token", "POST", "/api/seat/not-a-token/act", json.dumps(good), HEADERS, 404),
        ("empty token", "GET", "/api/seat/%20", None, {}, 404),
        ("unknown token log", "GET", "/api/seat/guess/log", None, {}, 404),
        ("GET on act", "GET", act, None, {}, 405),
        ("body too big", "POST", act, json.dumps({**good, "pad": "x" * 10_000}), HEADERS,
         413),
        ("no such route", "GET", "/api/seat/" + token + "/view/2", None, {}, 404),
        ("games not a list", "POST", "/api/games", json.dumps({"seats": "human"}), HEADERS,
         400),
        ("ppo from the page", "POST", "/api/games",
         json.dumps({"seats": ["human", "ppo:/etc/passwd", "random"]}), HEADERS, 400),
        ("net file from the page", "POST", "/api/games",
         json.dumps({"seats": ["human", "net:/etc/passwd", "random"]}), HEADERS, 400),
        ("search file from the page", "POST", "/api/games",
         json.dumps({"seats": ["human", "search:model=/etc/passwd", "random"]}), HEADERS, 400),
        ("bad seed", "POST", "/api/games",
         json.dumps({"seats": ["human", "random", "random"], "seed": -1}), HEADERS, 422),
    ]


def human_turn(client, tokens: dict[int, str]) -> tuple[int, dict]:
    """Wait until one of the human seats is to act: (seat, its payload)."""
    end = time.monotonic() + 30
    while True:
        for seat, token in tokens.items():
            s = state(client, token)
            if s["to_act"] == seat:
                return seat, s
        assert time.monotonic() < end, "no human seat came to act"
        time.sleep(0.01)


def test_every_bad_request_is_a_4xx_with_a_one_line_json_error_and_changes_nothing(
    client,
) -> None:
    game = create(client, ["human", "human", "heuristic", "heuristic"])
    tokens = {link["seat"]: token_of(link) for link in seat_links(client, game)}
    seat, s = human_turn(client, tokens)
    mine, other = tokens[seat], tokens[1 - seat]
    table = client.server.tables.by_id[game["id"]]
    record = (table.folder / "record.jsonl").read_bytes()
    legal = {m["action"] for m in s["moves"]}
    illegal = next(a for a in range(100) if a not in legal)
    for what, method, path, body, headers, status in bad_requests(
        mine, other, s["step"], s["moves"][0]["action"], illegal
    ):
        reply = client.request(method, path, content=body, headers=headers)
        assert reply.status_code == status, (what, reply.status_code, reply.text)
        error = reply.json()["error"]
        assert error and "\n" not in error, (what, error)
        assert (table.folder / "record.jsonl").read_bytes() == record, what
    assert state(client, mine) == s
    assert len(client.server.tables.by_id) == 1  # no game was created either


def test_a_token_shows_only_its_own_seat_and_acts_only_on_its_turn(client) -> None:
    game = create(client, ["human", "heuristic", "human"], seed=4)
    tokens = {link["seat"]: token_of(link) for link in seat_links(client, game)}
    for seat, token in tokens.items():
        s = state(client, token)
        assert s["seat"] == seat and f"view of p{seat}" in s["board"]
        assert s["feed"] == client.server.tables.by_id[game["id"]].feed[seat][-60:]
    # the seat query string or a forged field does not change whose view it is
    s = client.get(f"/api/seat/{tokens[0]}", params={"seat": 2, "viewer": 2}).json()
    assert s["seat"] == 0
    for _ in range(6):
        seat, s = human_turn(client, tokens)
        other = tokens[2 - seat]
        assert state(client, other)["moves"] == []
        assert 'id="hotspots"' not in state(client, other)["board"]
        move = {"action": s["moves"][0]["action"], "step": s["step"]}
        reply = client.post(f"/api/seat/{other}/act", json=move)
        assert reply.status_code == 409 and "not yours" in reply.json()["error"]
        reply = client.post(f"/api/seat/{tokens[seat]}/act", json=move)
        assert reply.status_code == 200


def test_the_websocket_pushes_the_seat_payload_after_every_change(client) -> None:
    game = create(client, ["human", "heuristic", "heuristic"], seed=8)
    token = token_of(seat_links(client, game)[0])
    with client.websocket_connect(f"ws://127.0.0.1/ws/{token}") as ws:
        first = json.loads(ws.receive_text())
        while first["to_act"] != 0:
            first = json.loads(ws.receive_text())
        assert first == state(client, token)
        client.post(f"/api/seat/{token}/act",
                    json={"action": first["moves"][0]["action"], "step": first["step"]})
        update = json.loads(ws.receive_text())
        assert update["step"] > first["step"] and update["seat"] == 0
    with pytest.raises(WebSocketDisconnect) as closed, \
            client.websocket_connect("ws://127.0.0.1/ws/unknown") as ws:
        ws.receive_text()
    assert closed.value.code == 4404


def test_a_state_that_cannot_be_sent_closes_the_socket_so_the_page_reconnects(
        client, monkeypatch, capsys) -> None:
    """A page must never be left open and waiting for a state that will not come: a push
    that fails closes the socket (1011, the page's cue to reconnect) and is logged; the
    next connection is sent the state."""
    game = create(client, ["human", "random", "random"], seed=5)
    token = token_of(seat_links(client, game)[0])
    real = GameServer.payload
    failures = []

    def fails_once(self, table, seat):
        if not failures:
            failures.append(table.step)
            raise KeyError("a broken payload")
        return real(self, table, seat)

    def left_waiting(signum, frame):
        raise AssertionError("the socket stayed open with nothing to send")

    monkeypatch.setattr(GameServer, "payload", fails_once)
    previous = signal.signal(signal.SIGALRM, left_waiting)
    signal.alarm(30)  # a regression would hang here, not fail
    try:
        with pytest.raises(WebSocketDisconnect) as closed, \
                client.websocket_connect(f"ws://127.0.0.1/ws/{token}") as ws:
            ws.receive_text()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert closed.value.code == 1011 and failures
    assert "a broken payload" in capsys.readouterr().err
    with client.websocket_connect(f"ws://127.0.0.1/ws/{token}") as ws:
        assert json.loads(ws.receive_text())["seat"] == 0
def test_requests_to_another_host_name_are_refused(client) -> None:
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/").status_code == 200


def test_the_new_game_page_offers_no_file_agents_unless_the_server_does(tmp_path) -> None:
    server = GameServer(Tables(tmp_path), pace=0.0, offered=["ppo:model.zip"])
    with TestClient(create_app(server), base_url="http://127.0.0.1") as c:
        agents = c.get("/api/options").json()["agents"]
        assert agents[0] == "human" and "ppo:model.zip" in agents
        assert not any(a in ("ppo", "rllib") for a in agents)
    with TestClient(create_app(GameServer(Tables(tmp_path / "b"))),
                    base_url="http://127.0.0.1") as c:
        assert not any(a.startswith("ppo") for a in c.get("/api/options").json()["agents"])


@pytest.mark.parametrize("network", ["shipped", "four-player"])
def test_the_new_game_page_is_told_which_counts_each_agent_plays(
    tmp_path, request, network
) -> None:
    """``/api/options`` gives each offered agent's ``supported_players``, so the form marks
    an agent that plays one count (``search`` and ``net`` over a 4-player network) before a
    game would be refused; the shipped network plays every count."""
    from perikles_env.agents import make_agent

    if network == "four-player":
        request.getfixturevalue("four_player_network")
    server = GameServer(Tables(tmp_path), pace=0.0, offered=["ppo:model.zip"])
    with TestClient(create_app(server), base_url="http://127.0.0.1") as c:
        options = c.get("/api/options").json()
    players = options["players"]
    assert set(players) == set(options["agents"]) - {"human"}
    for spec in ("random", "heuristic", "ismcts"):
        assert players[spec] == [3, 4, 5]
    counts = [3, 4, 5] if network == "shipped" else [4]
    for spec in ("search", "net"):
        assert players[spec] == sorted(make_agent(spec).supported_players) == counts
    assert players["ppo:model.zip"] == []  # cannot be made here: its creation says why


def test_agents_move_one_at_a_time_at_the_given_pace(tmp_path) -> None:
    pace = 0.1
    server = GameServer(Tables(tmp_path), pace=pace)
    with TestClient(create_app(server), base_url="http://127.0.0.1") as c:
        start = time.monotonic()
        game = c.post("/api/games", json={"seats": ["heuristic", "heuristic", "human",
                                                    "heuristic"], "seed": 2}).json()
        token = token_of(seat_links(c, game)[0])
        steps = []
        with c.websocket_connect(f"ws://127.0.0.1/ws/{token}") as ws:
            while True:
                frame = json.loads(ws.receive_text())
                steps.append(frame["step"])
                if frame["to_act"] == 2:
                    break
        elapsed = time.monotonic() - start
    moves = steps[-1]
    assert moves >= 2
    assert steps == list(range(steps[0], moves + 1))  # each agent move is shown on its own
    assert elapsed >= pace * moves


def test_a_trained_agent_offered_on_the_command_line_plays_in_the_page(tmp_path) -> None:
    """`perikles-play --web --opponents ppo:<path>`: the page may seat exactly that spec."""
    pytest.importorskip("sb3_contrib")
    from tests.agents.test_ppo_agent import train_tiny

    spec = f"ppo:{train_tiny(tmp_path / 'tiny.zip')}"
    server = GameServer(Tables(tmp_path / "games"), pace=0.0, offered=[spec])
    with TestClient(create_app(server), base_url="http://127.0.0.1") as c:
        assert spec in c.get("/api/options").json()["agents"]
        refused = c.post("/api/games", json={"seats": ["human", spec + ",deterministic=false",
                                                       "random"]})
        assert refused.status_code == 400 and "command line" in refused.json()["error"]
        game = create(c, ["human", spec, spec, "random"], seed=5)
        token = token_of(seat_links(c, game)[0])
        for _ in range(8):
            s = wait_turn(c, token)
            c.post(f"/api/seat/{token}/act", json={"action": s["moves"][0]["action"],
                                                   "step": s["step"]})
        table = server.tables.by_id[game["id"]]
        assert table.names[1] == spec and table.error == ""
        feed = " ".join(line["text"] for line in table.feed[0] if line["actor"] in (1, 2))
        assert "p1" in feed and "p2" in feed  # the trained agents moved


def test_each_decision_links_its_rules_section(client) -> None:
    """The payload names the rules section of the decision asked (docs/rules.md), and
    ``/rules`` serves the document with that heading's id, so the link opens there."""
    from perikles_env.engine.phases import Phase
    from perikles_env.web.rules_link import RULES, SECTIONS, headings, rules_section

    game = create(client, ["human", "random", "random", "random"])
    s = state(client, game["link"].split("/")[-1])
    assert s["rules"] == {"title": "6. Setup (spec B.1)",
                          "link": "/rules#6-setup-spec-b1"}
    page = client.get("/rules")
    assert page.status_code == 200 and 'id="6-setup-spec-b1"' in page.text
    text = RULES.read_text(encoding="utf-8")
    assert "(#17-interpretations-and-engine-decisions-spec-e)" in text  # the doc's own slugs
    assert 'id="17-interpretations-and-engine-decisions-spec-e"' in page.text
    assert set(SECTIONS) == set(Phase)
    for phase in Phase:
        found = rules_section(phase)
        assert found is not None, phase
        number = SECTIONS[phase]
        assert found["title"].startswith(number + " ") and found["title"] == headings()[
            number][0]
        assert f'id="{found["link"].removeprefix("/rules#")}"' in page.text
    assert rules_section(Phase.COMMIT)["title"].startswith("11.5 One commit step")
