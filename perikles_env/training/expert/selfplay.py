"""Self-play with search: many games at once on the C++ core, recording search targets.

Each game seats the network with search at one random seat and fills the others from the
league's weights (``self``: the network with search too; any other key an agent spec).
Games advance until each waits on a searching seat with more than one legal action; then
one ``SearchAgent.search_batch`` call searches all of them together (the network's calls
batched across games) and each plays its search's action. At every such decision the
searching player's observation, legal actions and the search's policy target are
recorded; when the game ends, each record gets the game's win shares in the recorder's
relative seat order (``relative_shares``) as its value target. A game cut off at the
decision limit has no outcome and is dropped. Seeds come from one ``SeedSequence``, so a
seed fixes the games (the search runs with ``seconds = 0``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perikles_env.agents import Agent, game_for, make_agent
from perikles_env.agents.search import SearchAgent, SearchParams, SearchResult
from perikles_env.agents.search.network import SearchNet, relative_shares
from perikles_env.analysis.action_features import PER_ACTION
from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game
from perikles_env.vector.encoder import encode_with_features, legal_mask

from .config import SELF
from .dataset import Positions, concat


@dataclass
class _Table:
    """One game in progress and what its searching seats recorded."""

    game: Any
    seats: list[str]
    rng: np.random.Generator
    players: list[int] = field(default_factory=list)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=list
    )


@dataclass
class SelfPlayStats:
    games: int = 0
    truncated: int = 0
    decisions: int = 0  # searched decisions recorded
    searcher_share: float = 0.0  # win shares of the recorded seats, summed per game
    seats: dict[str, int] = field(default_factory=dict)  # seats played per league key


def record(obs: np.ndarray, mask: np.ndarray, target: np.ndarray, state_size: int) -> tuple:
    """One position in the compact form of ``dataset.Positions`` (without its value)."""
    block = obs[state_size:].reshape(NUM_ACTIONS, PER_ACTION)
    legal = mask > 0
    ids = np.flatnonzero(legal | (block != 0).any(axis=1))
    return (
        obs[:state_size].astype(np.float16),
        ids.astype(np.int16),
        legal[ids],
        target[ids].astype(np.float16),
        block[ids].astype(np.float16),
    )


class SelfPlay:
    """Plays the games of an iteration with ``net`` searching under ``params``."""

    def __init__(self, net: SearchNet, params: SearchParams, league: Mapping[str, float]) -> None:
        self.net = net
        self.searcher = SearchAgent(net, params)
        keys = sorted(league)
        weights = np.asarray([league[k] for k in keys], dtype=np.float64)
        self.keys, self.weights = keys, weights / weights.sum()
        self.agents: dict[str, Agent] = {k: make_agent(k) for k in keys if k != SELF}
        self.state_size = net.state_size

    def _table(self, seed: np.random.SeedSequence) -> _Table:
        rng = np.random.default_rng(seed)
        n = self.net.num_players
        seats = [self.keys[i] for i in rng.choice(len(self.keys), size=n, p=self.weights)]
        seats[int(rng.integers(n))] = SELF
        game = new_game(
            GameConfig(num_players=n, record_events=False),
            seed=int(rng.integers(2**63)),
            backend="native",
        )
        for spec in set(seats) - {SELF}:
            self.agents[spec].reset()
        return _Table(game, seats, rng)

    def _advance(self, t: _Table) -> bool:
        """Play forced moves and non-searching seats; True when ``t`` waits on a search."""
        g = t.game
        while not g.is_terminal and not g.is_truncated:
            p = g.current
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply_action(legal[0])
            elif t.seats[p] == SELF:
                return True
            else:
                agent = self.agents[t.seats[p]]
                g.apply_action(int(agent.act_state(game_for(agent, g), p, t.rng)))
        return False

    def _play(self, t: _Table, result: SearchResult) -> None:
        g, p = t.game, t.game.current
        obs = encode_with_features(g, p, self.net.features)
        t.rows.append(record(obs, legal_mask(g), result.policy, self.state_size))
        t.players.append(p)
        g.apply_action(result.action)

    def _finish(self, t: _Table, stats: SelfPlayStats) -> Positions | None:
        stats.games += 1
        for key in t.seats:
            stats.seats[key] = stats.seats.get(key, 0) + 1
        if not t.game.is_terminal:
            stats.truncated += 1
            return None
        shares = t.game.win_shares()
        stats.searcher_share += sum(s for s, k in zip(shares, t.seats, strict=True) if k == SELF)
        stats.decisions += len(t.rows)
        if not t.rows:
            return None
        lengths = [len(r[1]) for r in t.rows]
        return Positions(
            states=np.stack([r[0] for r in t.rows]),
            offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            ids=np.concatenate([r[1] for r in t.rows]),
            legal=np.concatenate([r[2] for r in t.rows]),
            policy=np.concatenate([r[3] for r in t.rows]),
            feats=np.concatenate([r[4] for r in t.rows]),
            values=np.stack([relative_shares(shares, p) for p in t.players]).astype(np.float16),
        )

    def play(self, games: int, parallel: int, seed: int) -> tuple[Positions, SelfPlayStats]:
        """``games`` games, at most ``parallel`` at once; seeds from ``SeedSequence(seed)``."""
        root = np.random.SeedSequence(seed)
        search_rng = np.random.default_rng(root.spawn(1)[0])
        pending = list(root.spawn(games))[::-1]
        tables: list[_Table] = []
        parts: list[Positions] = []
        stats = SelfPlayStats()
        while pending or tables:
            while pending and len(tables) < parallel:
                tables.append(self._table(pending.pop()))
            waiting = []
            for t in tables:
                if self._advance(t):
                    waiting.append(t)
                else:
                    part = self._finish(t, stats)
                    if part is not None:
                        parts.append(part)
            tables = waiting
            if waiting:
                results = self.searcher.search_batch(
                    [t.game for t in waiting], [t.game.current for t in waiting], search_rng
                )
                for t, result in zip(waiting, results, strict=True):
                    self._play(t, result)
        empty = Positions.empty(self.state_size, self.net.num_players)
        return (concat(parts) if parts else empty), stats
