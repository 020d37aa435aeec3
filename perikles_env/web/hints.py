"""Hints for the seat to act: the moves an agent of the player's choice would make, each
with an estimated chance to win, computed only from what the seat may know.

How: the hidden state is redrawn ``SAMPLES`` times from the seat's point of view
(``determinize``), seeded by a digest of the seat's own view (its board and its legal
moves), so the redrawn states, and everything below, are the same whatever the real hidden
state is. The chosen agent picks a move in each redrawn state: its favourites are the ones it
picks most. Each of the top moves is then played in every redrawn state and the game
finished by heuristic players; the estimated win chance is the seat's mean share of the win
(a tie for first counts as a share).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ..agents import Agent, make_agent
from ..engine.determinize import determinize
from ..engine.game import Game
from ..render.narrate import describe_action
from ..render.svg import board_svg

# The agents a player may ask, by the name the page shows; the search with a small budget,
# as it runs once per redrawn state.
HINT_AGENTS = {"heuristic": "heuristic", "net": "net", "search": "search:sims=24"}
SAMPLES = 6
TOP = 4


def view_seed(game: Game, seat: int) -> int:
    """A seed from what the seat sees: the same for every hidden state it cannot tell
    apart (its board is, tests/web/test_payload.py)."""
    text = board_svg(game, seat) + repr(game.legal_actions()) + str(len(game.event_log))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def _win_share(game: Game, seat: int) -> float:
    winners = game.winners()
    return 1.0 / len(winners) if seat in winners else 0.0


def _playout(game: Game, players: Agent, rng: np.random.Generator) -> Game:
    while not game.is_terminal:
        game.apply_action(int(players.act_state(game, game.current, rng)))
    return game


def hints(game: Game, seat: int, agent: Agent) -> list[dict[str, Any]]:
    """The top moves of ``agent`` for ``seat`` (who must be to act), best first:
    ``{"action", "words", "votes", "win"}``; ``votes``: in how many of the redrawn states
    the agent chose it, ``win``: the estimated chance to win after it."""
    if game.is_terminal or game.current != seat:
        return []
    rng = np.random.default_rng(view_seed(game, seat))
    samples = [determinize(game, seat, rng, record_events=False) for _ in range(SAMPLES)]
    legal = game.legal_actions()
    votes = dict.fromkeys(legal, 0)
    for sample in samples:
        votes[int(agent.act_state(sample.clone(), seat, rng))] += 1
    ranked = sorted(legal, key=lambda a: -votes[a])[:TOP]
    players = make_agent("heuristic")
    out = []
    for action in ranked:
        shares = []
        for sample in samples:
            g = sample.clone()
            g.apply_action(action)
            shares.append(_win_share(_playout(g, players, rng), seat))
        out.append({"action": int(action), "words": describe_action(game, action, seat),
                    "votes": votes[action], "samples": SAMPLES,
                    "win": float(np.mean(shares))})
    return sorted(out, key=lambda h: (-h["votes"], -h["win"]))
