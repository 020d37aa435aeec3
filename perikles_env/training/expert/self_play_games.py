"""Self-play with search: many games at once on the C++ core, recording search targets.

Each game seats the network with search at one random seat and fills the others from the
league's weights (``self``: the network with search too; ``personalities``: the heuristic
with knobs drawn for that seat; any other key an agent spec: population.py).
Games advance until each waits on a searching seat with more than one legal action; then
one ``SearchAgent.search_batch`` call searches all of them together (the network's calls
batched across games) and each plays its search's action. At every such decision the
searching player's observation, legal actions and the search's policy target are
recorded; when the game ends, each record gets the game's win shares in the recorder's
relative seat order (``relative_shares``) as its value target. A game cut off at the
decision limit has no outcome and is dropped. Seeds come from one ``SeedSequence``, so a
seed fixes the games (the search runs with ``seconds = 0``).

``play_sharded`` splits an iteration's games over worker processes (the search and the
heuristic seats are single-threaded C++, so one process uses one core): shard ``k`` is an
ordinary ``SelfPlay.play`` of its share of the games with the seed ``SeedSequence([seed,
k])``, so a seed and a worker count fix the games; one worker is ``play`` itself.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perikles_env.agents import Agent, TableLoop, make_agent
from perikles_env.agents.search import SearchAgent, SearchParams, SearchResult
from perikles_env.agents.search.network import SearchNet, relative_shares
from perikles_env.analysis.action_features import PER_ACTION
from perikles_env.engine import NUM_ACTIONS, GameConfig, new_game
from perikles_env.vector.encoder import encode_with_features, legal_mask
from perikles_env.vector.seat_draw import cumulative, draw_seats
from perikles_env.workers import bounded_workers

from .dataset import Positions, concat
from .population import PERSONALITIES, SELF, pairwise, seat_agent


@dataclass
class _GameInProgress:
    """One game in progress and what its searching seats recorded."""

    game: Any
    seats: list[str]
    rng: np.random.Generator
    loop: TableLoop  # plays the forced moves and the seats that do not search
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
    # league key -> (pairwise score of the searching seats against its seats, pairs)
    versus: dict[str, tuple[float, float]] = field(default_factory=dict)

    def add(self, other: SelfPlayStats) -> None:
        self.games += other.games
        self.truncated += other.truncated
        self.decisions += other.decisions
        self.searcher_share += other.searcher_share
        for key, count in other.seats.items():
            self.seats[key] = self.seats.get(key, 0) + count
        for key, (score, pairs) in other.versus.items():
            self.add_versus(key, score, pairs)

    def add_versus(self, key: str, score: float, pairs: float) -> None:
        old = self.versus.get(key, (0.0, 0.0))
        self.versus[key] = (old[0] + score, old[1] + pairs)


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
        self.cdf = cumulative(weights)  # the league's seat draw (vector/seat_draw.py)
        self.agents: dict[str, Agent] = {
            k: make_agent(k) for k in keys if k not in (SELF, PERSONALITIES)
        }
        self.state_size = net.state_size

    def _table(self, seed: np.random.SeedSequence) -> _GameInProgress:
        rng = np.random.default_rng(seed)
        counts = self.net.players
        n = counts[0] if len(counts) == 1 else int(rng.choice(counts))
        seats = [self.keys[i] for i in draw_seats(rng.random, self.cdf, 0.0, n)]
        seats[int(rng.integers(n))] = SELF
        game = new_game(
            GameConfig(num_players=n, record_events=False),
            seed=int(rng.integers(2**63)),
            backend="native",
        )
        players = [None if spec == SELF else seat_agent(spec, self.agents, rng) for spec in seats]
        return _GameInProgress(game, seats, rng, TableLoop(game, players, rng, skip_forced=True))

    def _advance(self, t: _GameInProgress) -> bool:
        """Play forced moves and non-searching seats; True when ``t`` waits on a search."""
        t.loop.run()
        return not t.loop.over

    def _play(self, t: _GameInProgress, result: SearchResult) -> None:
        g, p = t.game, t.game.current
        obs = encode_with_features(g, p, self.net.features)
        t.rows.append(record(obs, legal_mask(g), result.policy, self.state_size))
        t.players.append(p)
        g.apply_action(result.action)

    def _finish(self, t: _GameInProgress, stats: SelfPlayStats) -> Positions | None:
        stats.games += 1
        for key in t.seats:
            stats.seats[key] = stats.seats.get(key, 0) + 1
        if not t.game.is_terminal:
            stats.truncated += 1
            return None
        shares, ranks = t.game.win_shares(), t.game.ranks()
        stats.searcher_share += sum(s for s, k in zip(shares, t.seats, strict=True) if k == SELF)
        for me in (i for i, k in enumerate(t.seats) if k == SELF):
            for other, key in enumerate(t.seats):
                if key != SELF:
                    stats.add_versus(key, pairwise(ranks, me, other), 1.0)
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
            values=np.stack(
                [relative_shares(shares, p, self.net.num_players) for p in t.players]
            ).astype(np.float16),
        )

    def play(self, games: int, parallel: int, seed: int) -> tuple[Positions, SelfPlayStats]:
        """``games`` games, at most ``parallel`` at once; seeds from ``SeedSequence(seed)``."""
        root = np.random.SeedSequence(seed)
        search_rng = np.random.default_rng(root.spawn(1)[0])
        pending = list(root.spawn(games))[::-1]
        tables: list[_GameInProgress] = []
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


def shard_sizes(games: int, parallel: int, workers: int) -> list[tuple[int, int]]:
    """(games, games at once) of each worker's shard: the games split as evenly as
    possible (earlier shards take the remainder), ``parallel`` likewise; no empty shard."""
    count = max(1, min(workers, games))
    sizes = [games // count + (k < games % count) for k in range(count)]
    at_once = [max(1, parallel // count + (k < parallel % count)) for k in range(count)]
    return [(g, min(g, p)) for g, p in zip(sizes, at_once, strict=True)]


def shard_seed(seed: int, shard: int, shards: int) -> int:
    """The seed of shard ``shard``: ``seed`` itself when there is one shard."""
    if shards == 1:
        return seed
    return int(np.random.SeedSequence([seed, shard]).generate_state(1)[0])


def _play_shard(job: tuple) -> tuple[Positions, SelfPlayStats]:
    net, params, league, games, parallel, seed, threads = job
    import torch

    torch.set_num_threads(threads)
    return SelfPlay(net, params, league).play(games, parallel, seed)


def play_sharded(
    net: SearchNet, params: SearchParams, league: Mapping[str, float], games: int,
    parallel: int, seed: int, workers: int = 1, torch_threads: int = 1,
) -> tuple[Positions, SelfPlayStats]:
    """``games`` self-play games in ``workers`` processes (module docstring); the positions
    in shard order and the shards' statistics added up."""
    shards = shard_sizes(games, parallel, workers)
    jobs = [
        (net, params, dict(league), g, p, shard_seed(seed, k, len(shards)), torch_threads)
        for k, (g, p) in enumerate(shards)
    ]
    if len(jobs) == 1:
        return SelfPlay(net, params, league).play(games, jobs[0][4], seed)
    # safe with torch and threads; the shards (and so the games) stay as asked
    processes = bounded_workers(workers, "selfplay.workers", len(jobs))
    pool = mp.get_context("spawn").Pool(processes)
    try:
        results = pool.map(_play_shard, jobs, chunksize=1)
    finally:
        pool.terminate()  # every result is in; on an interrupt, stop at once
        pool.join()
    stats = SelfPlayStats()
    for _, part in results:
        stats.add(part)
    parts = [data for data, _ in results if len(data)]
    empty = Positions.empty(net.state_size, net.num_players)
    return (concat(parts) if parts else empty), stats
