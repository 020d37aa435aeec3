"""The browser tests' wait for a human's turn (``waiting_for_human``) never returns inside
a move: the server moves in its own thread, and a read made after the engine changed but
before the table counted the move once sent a test waiting for a page state that had been
shown only in passing. Here the window between the two is held open on purpose."""

from __future__ import annotations

import queue
import threading
import time

import numpy as np

from perikles_env.agents import make_agent
from perikles_env.engine.native import NativeGame
from perikles_env.web.server import agent_move
from perikles_env.web.tables import Tables

from .browser import waiting_for_human


def test_the_wait_for_a_human_turn_sees_only_whole_moves(tmp_path, monkeypatch) -> None:
    made = NativeGame.apply_action_checked

    def slowly(self, action):  # the engine has moved; the table counts the move later
        made(self, action)
        time.sleep(0.01)

    monkeypatch.setattr(NativeGame, "apply_action_checked", slowly)
    table = Tables(tmp_path).create(["human", "random", "random"], seed=5)
    assert isinstance(table.game, NativeGame)
    human_moves: queue.Queue[int] = queue.Queue()
    done = threading.Event()

    def server() -> None:  # the one thread that changes the table, as the server's loop
        rng, agent = np.random.default_rng(0), make_agent("random")
        while not done.is_set() and not table.over:
            if table.agent_to_act() is not None:
                table.apply(agent_move(agent, table.game.clone(), table.game.current, rng))
            else:
                try:
                    table.apply(human_moves.get(timeout=0.01))
                except queue.Empty:
                    pass

    thread = threading.Thread(target=server, daemon=True)
    thread.start()
    rng = np.random.default_rng(1)
    try:
        for _ in range(12):
            waiting_for_human(table, timeout=60)
            if table.over:
                break
            step = table.step
            time.sleep(0.05)  # a human's turn stays one: nothing moves until he does
            assert (table.step, table.game.current) == (step, 0)
            human_moves.put(int(rng.choice(table.game.legal_actions())))
            while table.step == step:
                time.sleep(0.001)
    finally:
        done.set()
        thread.join(timeout=10)
    assert table.step > 12
