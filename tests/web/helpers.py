"""Shared helpers for the web game tests: tables played without a server, and the payload
a seat should have received at any step of a recorded game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.web.payload import seat_payload
from perikles_env.web.tables import Table, Tables


def make_table(folder: Path, specs: list[str], seed: int) -> Table:
    return Tables(folder).create(specs, seed)


def agents_move(table: Table, rng: np.random.Generator) -> None:
    """Let the agents play until a human is to act (as the server's driver does)."""
    while (agent := table.agent_to_act()) is not None:
        table.apply(agent.act_state(table.game.clone(), table.game.current, rng))


def play_out(table: Table, seed: int, human: Any = None) -> None:
    """Finish the game: agents as they are, humans by ``human(game, rng)`` (default: the
    first legal action)."""
    rng = np.random.default_rng(seed)
    while not table.game.is_terminal:
        agents_move(table, rng)
        if not table.game.is_terminal:
            g = table.game
            table.apply(human(g, rng) if human else g.legal_actions()[0])


def states(table: Table) -> list[Game]:
    """The game before each decision and at the end (index = step)."""
    game = new_game(GameConfig(num_players=len(table.seats)), seed=table.seed)
    out = [game.clone()]
    for action in table.actions:
        game.apply_action(action)
        out.append(game.clone())
    return out


def expected_payload(table: Table, game: Game, seat: int, step: int) -> dict[str, Any]:
    """The payload the server sends ``seat`` at ``step`` (``game``: the state then)."""
    feed = [line for line in table.feed[seat] if line["step"] <= step]
    return seat_payload(game, seat, table.names, feed, step, table.id, table.error)


STRENGTH = re.compile(r"\b(hoplite|trireme) [1-4]\b")


def public_last_moves(games: list[Game], actions: list[int],
                      ) -> dict[int, tuple[str, list[str], int]]:
    """Each player's last move among ``actions`` (``games[i]``: the state before action
    ``i``) as the server marks it on the board (``Table.last_moves``): public words only."""
    from perikles_env.render.narrate import describe_action, who
    from perikles_env.web.moves import move_targets

    out = {}
    for i, action in enumerate(actions):
        g = games[i]
        out[g.current] = (f"{who(g.current, None)}: {describe_action(g, action, None)}",
                          move_targets(g, action), i + 1)
    return out


def with_marks(payload: dict[str, Any], game: Game, last: dict, seat: int | None) -> dict:
    """``seat_payload``'s answer with the server's layer of last moves on its board."""
    from perikles_env.web.hotspots import with_layer
    from perikles_env.web.marks import marks_layer

    return {**payload, "board": with_layer(payload["board"], marks_layer(game, last, seat))}
