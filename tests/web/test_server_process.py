"""The web server as a person runs it (``python -m perikles_env.web`` in its own process):
200 concurrent malformed, illegal and wrong-token requests change nothing and the game goes
on; a server killed mid-game (SIGKILL) and started again continues the same game from its
record; a non-loopback address needs an explicit flag."""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2

from perikles_env.records import read_records


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One server process on a free port, over the games folder ``games``."""

    def __init__(self, games: Path, *args: str, play: bool = False) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = (["perikles_env.play", "--web"] if play
                   else ["perikles_env.web", "--games", str(games), "--pace", "0.02"])
        self.proc = subprocess.Popen(
            [sys.executable, "-m", *command, "--port", str(self.port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "XDG_DATA_HOME": str(games)},
        )
        self.lines: list[str] = []
        while True:  # the command prints its links, then the page's address
            line = self.proc.stdout.readline()
            assert line, "server exited: " + "".join(self.lines)
            self.lines.append(line)
            if line.startswith("Perikles web game:"):
                break
        end = time.monotonic() + 20
        while True:
            try:
                httpx2.get(self.url + "/api/options", timeout=1)
                return
            except httpx2.TransportError:
                assert time.monotonic() < end, "server did not answer"
                time.sleep(0.05)

    def token(self) -> str:
        [line] = [x for x in self.lines if x.startswith("seat p")]
        return line.strip().rsplit("/", 1)[1]

    def state(self, token: str) -> dict:
        reply = httpx2.get(f"{self.url}/api/seat/{token}", timeout=10)
        assert reply.status_code == 200, reply.text
        return reply.json()

    def my_turn(self, token: str) -> dict:
        end = time.monotonic() + 60
        while True:
            s = self.state(token)
            if s["finished"] or s["to_act"] == s["seat"]:
                return s
            assert time.monotonic() < end
            time.sleep(0.02)

    def act(self, token: str, s: dict, index: int = 0) -> None:
        reply = httpx2.post(f"{self.url}/api/seat/{token}/act", timeout=10,
                            json={"action": s["moves"][index]["action"], "step": s["step"]})
        assert reply.status_code == 200, reply.text

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no shutdown code runs
        self.proc.wait(timeout=10)


def bad_request(i: int, url: str, token: str, s: dict, rnd: random.Random):
    """The i-th of a mix of refused requests: (method, url, body, headers)."""
    act = f"{url}/api/seat/{token}/act"
    legal = {m["action"] for m in s["moves"]}
    illegal = rnd.choice([a for a in range(2200) if a not in legal])
    json_headers = {"Content-Type": "application/json"}
    kinds = [
        ("POST", act, "{\"action\": ", json_headers),
        ("POST", act, json.dumps({"action": illegal, "step": s["step"]}), json_headers),
        ("POST", act, json.dumps({"action": s["moves"][0]["action"], "step": s["step"] + 7}),
         json_headers),
        ("POST", f"{url}/api/seat/{rnd.randbytes(12).hex()}/act",
         json.dumps({"action": s["moves"][0]["action"], "step": s["step"]}), json_headers),
        ("GET", f"{url}/api/seat/{token[:-1]}{'y' if token.endswith('x') else 'x'}", None, {}),
        ("POST", act, json.dumps({"action": "import os", "step": s["step"]}), json_headers),
        ("POST", act, json.dumps({"action": s["moves"][0]["action"], "step": s["step"]}),
         {"Content-Type": "text/plain"}),
        ("POST", act, "x" * 20_000, json_headers),
        ("POST", f"{url}/api/games", json.dumps({"seats": ["human", "ppo:/tmp/x.zip",
                                                           "random"]}), json_headers),
        ("GET", f"{url}/ws/{token}", None, {}),
    ]
    return kinds[i % len(kinds)]


def test_200_concurrent_bad_requests_change_nothing_and_the_game_goes_on(tmp_path) -> None:
    server = Server(tmp_path, "--seats", "human,heuristic,heuristic,heuristic", "--seed", "21")
    try:
        token = server.token()
        s = server.my_turn(token)
        [folder] = [p for p in tmp_path.iterdir() if p.is_dir()]
        record = (folder / "record.jsonl").read_bytes()
        rnd = random.Random(0)
        requests = [bad_request(i, server.url, token, s, rnd) for i in range(200)]

        async def send_all():
            async with httpx2.AsyncClient(timeout=30) as client:
                return await asyncio.gather(*(
                    client.request(method, url, content=body, headers=headers)
                    for method, url, body, headers in requests
                ))

        replies = asyncio.run(send_all())
        statuses = sorted({r.status_code for r in replies})
        assert all(400 <= code < 500 for code in statuses), statuses
        assert {400, 404, 409, 413, 415, 422} <= set(statuses)
        for r in replies:
            error = r.json()["error"]
            assert error and "\n" not in error
        assert (folder / "record.jsonl").read_bytes() == record
        assert server.state(token) == s
        assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 1
        server.act(token, s)  # the game goes on
        assert server.my_turn(token)["step"] > s["step"]
    finally:
        server.kill()


def test_a_killed_server_continues_the_same_game_from_its_record(tmp_path) -> None:
    server = Server(tmp_path, "--seats", "human,heuristic,random,heuristic", "--seed", "22")
    token = server.token()
    try:
        for _ in range(15):
            server.act(token, server.my_turn(token), index=-1)
        time.sleep(0.03)  # the agents are moving now: kill it in the middle
    finally:
        server.kill()
    [folder] = [p for p in tmp_path.iterdir() if p.is_dir()]
    written = read_records(folder / "record.jsonl")[0].actions
    server = Server(tmp_path)
    try:
        assert "1 continued" in server.lines[-1]
        s = server.state(token)
        assert s["step"] >= len(written) and s["seat"] == 0
        s = server.my_turn(token)
        for _ in range(5):
            server.act(token, s)
            s = server.my_turn(token)
        now = read_records(folder / "record.jsonl")[0].actions
        assert now[: len(written)] == written and len(now) > len(written)
    finally:
        server.kill()


def test_a_non_loopback_address_needs_the_explicit_flag(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "perikles_env.web", "--games", str(tmp_path), "--host",
         "0.0.0.0", "--port", str(free_port())],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "--allow-remote" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    server = Server(tmp_path, "--host", "0.0.0.0", "--allow-remote")
    try:
        assert any("warning" in line and "anyone" in line for line in server.lines)
    finally:
        server.kill()


def test_bad_command_lines_get_one_line_errors(tmp_path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for args, words in (
        (["--pace", "-1"], "--pace"),
        (["--games", str(a_file)], "not a folder"),
        (["--agent", "ppo:" + str(tmp_path / "missing.zip")], "--agent"),
        (["--agent", "alphazero"], "unknown agent"),
        (["--port", "0"], "--port"),
        (["--seats", "human,heuristic", "--games", str(tmp_path / "g")], "3 to 5"),
    ):
        done = subprocess.run([sys.executable, "-m", "perikles_env.web", *args],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_terminal_games_web_flag_sets_the_new_game_page(tmp_path) -> None:
    server = Server(tmp_path, "--players", "3", "--seat", "1", "--opponents",
                    "random,heuristic", "--seed", "5", play=True)
    try:
        options = httpx2.get(server.url + "/api/options").json()
        assert options["defaults"] == {"seats": ["random", "human", "heuristic"], "seed": 5}
        assert "(games in " + str(tmp_path / "perikles" / "games") in server.lines[-1]
    finally:
        server.kill()
    for args, words in ((["--record", str(tmp_path / "r.jsonl")], "--record"),
                        (["--opponents", "alphazero"], "unknown agent"),
                        (["--host", "192.0.2.1"], "--allow-remote")):
        done = subprocess.run([sys.executable, "-m", "perikles_env.play", "--web", *args],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
        assert done.returncode == 2 and words in done.stderr, (args, done.stderr)


def test_without_the_web_extra_the_command_says_what_to_install(tmp_path) -> None:
    code = ("import sys; sys.modules['uvicorn'] = None; from perikles_env.play import main; "
            f"sys.exit(main(['--web', '--port', '{free_port()}']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert done.returncode == 2
    assert "perikles_env[web]" in done.stderr and len(done.stderr.strip().splitlines()) == 1
