"""``SearchAgent``: the Agent API over network-guided IS-MCTS (``puct.Search``), one decision
at a time (``act_state``) or many games at once (``act_batch``, ``search_batch``: self-play).

Every seed comes from the caller's ``numpy`` Generator, so a fixed rng gives a fixed
decision (``seconds=0``). The search reads a game only through ``determinize`` and the
searching player's legal actions, so it never leaves hidden information in a decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import Agent
from .evaluator import Evaluator
from .puct import Search, SearchParams, SearchResult

if TYPE_CHECKING:
    from ...engine.game import Game


class SearchAgent(Agent):
    name = "search"
    uses_state = True
    read_only = True  # the search copies the game before it changes anything

    def __init__(self, evaluator: Evaluator, params: SearchParams | None = None) -> None:
        self.params = params or SearchParams()
        self.evaluator = evaluator
        self._search = Search(evaluator, self.params)

    @property
    def supported_players(self) -> tuple[int, ...]:  # type: ignore[override]
        """The counts its evaluator plays (a network's file says which; an evaluator
        without ``players`` evaluates ``num_players``-player games only)."""
        players = getattr(self.evaluator, "players", None)
        return tuple(players) if players else (int(self.evaluator.num_players),)

    def describe(self) -> str:
        defaults = asdict(SearchParams())
        diff = [f"{k}={v}" for k, v in asdict(self.params).items() if defaults[k] != v]
        return self.name + (":" + ",".join(diff) if diff else "")

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search_batch([game], [player], rng)[0].action

    def act_batch(
        self, games: Sequence[Game], players: Sequence[int], rng: np.random.Generator
    ) -> list[int]:
        """The decision of ``players[i]`` in ``games[i]`` for every i, searched together
        (the network's calls batched across games)."""
        return [r.action for r in self.search_batch(games, players, rng)]

    def search_batch(
        self, games: Sequence[Game], players: Sequence[int], rng: np.random.Generator
    ) -> list[SearchResult]:
        """The full results (policy target, visits, root values) of one search per game;
        seed i is the i-th draw of ``rng``."""
        seeds = [int(s) for s in rng.integers(2**63, size=len(games))]
        return self._search.run(games, players, seeds)


def search_agent(evaluator: Evaluator, **params: Any) -> SearchAgent:
    """A ``SearchAgent`` from keyword settings (``SearchParams`` names, validated)."""
    return SearchAgent(evaluator, SearchParams.from_options(params))
