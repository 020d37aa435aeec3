"""Playing evaluation games: one job = one lineup, one seed, one seat rotation.

Common random numbers: every lineup and every rotation plays the same list of game seeds,
so differences between agents are not drowned by differences between deals. Rotation ``r``
seats lineup entry ``i`` at seat ``(i + r) mod N``; all N rotations are played per seed.
Agents act at the engine level through the table loop (``agents/table_loop.py``: ``act_state``
on a clone of the game unless the agent only reads it, so no agent can change the real game,
each decision timed), each seat with its own ``numpy`` generator seeded from
(game seed, rotation, seat). An illegal action is never replaced: it is counted, the game
stops, the offender is ranked last and the others by their score at that moment. A game
still unfinished after ``MAX_GAME_DECISIONS`` decisions (``Game.is_truncated``) stops and
is recorded as truncated: no winner, every seat the same rank, its VP as they stood.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perikles_env.agents import Agent, make_agent
from perikles_env.agents.table_loop import FORFEIT, Decision, TableLoop
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine.queries import fractional_ranks, win_shares, winners_of
from perikles_env.workers import bounded_workers

# Agents built in this process, by spec (a PPO model is loaded once per worker). A ppo
# checkpoint or search network rewritten at the same path (periodic evaluation) is
# reloaded: its file's modification time is part of the key.
_AGENTS: dict[str, Agent] = {}
_STAMPS: dict[str, float] = {}


def _stamp(spec: str) -> float:
    if not spec.startswith(("ppo:", "net:", "search:")):
        return 0.0
    from perikles_env.agents import parse_spec

    options = parse_spec(spec)[1]
    path = Path(str(options.get("path", options.get("model", ""))))
    if not str(path) or str(path) == ".":
        return 0.0
    for candidate in (path, path.with_name(path.name + ".zip")):
        if candidate.exists():
            return candidate.stat().st_mtime
    return 0.0


def agent_for(spec: str) -> Agent:
    stamp = _stamp(spec)
    if spec not in _AGENTS or _STAMPS.get(spec) != stamp:
        _AGENTS[spec] = make_agent(spec)
        _STAMPS[spec] = stamp
    return _AGENTS[spec]


def forget_agent(spec: str | None = None) -> None:
    """Drop one cached agent (or all) from this process."""
    if spec is None:
        _AGENTS.clear()
        _STAMPS.clear()
    else:
        _AGENTS.pop(spec, None)
        _STAMPS.pop(spec, None)


def game_seeds(seed: int, count: int) -> list[int]:
    """The shared list of game seeds (CRN): the same for every lineup and player count."""
    state = np.random.SeedSequence(seed).generate_state(count, dtype=np.uint32)
    return [int(s) for s in state]


def seat_lineup(lineup: tuple[str, ...], rotation: int) -> list[str]:
    """Agent spec per seat: lineup entry i sits at seat (i + rotation) mod N."""
    n = len(lineup)
    seats = [""] * n
    for i, spec in enumerate(lineup):
        seats[(i + rotation) % n] = spec
    return seats


@dataclass(frozen=True)
class Job:
    matchup: int
    lineup: tuple[str, ...]
    seed_index: int
    seed: int
    rotation: int
    backend: str | None = None  # Game.new's backend option


PER_SEAT_TIMINGS = ("think_seconds", "max_think_seconds", "cpu_seconds", "max_cpu_seconds")
DECISION_TIMINGS = "decision_cpu_ms"  # per seat, each decision's CPU time in ms
TIMING_KEYS = (*PER_SEAT_TIMINGS, DECISION_TIMINGS)


@dataclass
class GameRecord:
    """Outcome of one game, per seat."""

    matchup: int
    seed_index: int
    seed: int
    rotation: int
    seats: list[str]
    scores: list[int]
    location_vp: list[int]
    statues: list[int]
    ranks: list[float]
    win_share: list[float]
    decisions: list[int]
    # per seat; empty: not timed (a game kept by a run of an older version, then resumed)
    think_seconds: list[float]
    max_think_seconds: list[float]
    cpu_seconds: list[float]
    max_cpu_seconds: list[float]
    illegal: list[int]
    forfeit: int = -1
    turns: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    # every applied action id, in order: with seed and seats, a game record that
    # ``python -m perikles_env.replay`` turns into a viewer (perikles_env/records.py)
    actions: list[int] = field(default_factory=list)
    # unfinished at MAX_GAME_DECISIONS (Game.is_truncated): no winner, all seats rank equal
    truncated: bool = False
    # per seat, each decision's CPU milliseconds in order (for percentiles; empty: untimed)
    decision_cpu_ms: list[list[float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def play_job(job: Job) -> GameRecord:
    """Play one evaluation game (see the module docstring)."""
    seats = seat_lineup(job.lineup, job.rotation)
    n = len(seats)
    agents = [agent_for(spec) for spec in seats]
    rngs = [np.random.default_rng([job.seed, job.rotation, s]) for s in range(n)]
    config = GameConfig(num_players=n, record_events=False)
    game = new_game(config, seed=job.seed, backend=job.backend)
    decisions = [0] * n
    think = [0.0] * n
    slowest = [0.0] * n
    cpu = [0.0] * n
    cpu_slowest = [0.0] * n
    illegal = [0] * n
    decision_cpu: list[list[float]] = [[] for _ in range(n)]

    def timed(d: Decision) -> None:
        p = d.player
        decisions[p] += 1
        think[p] += d.seconds
        slowest[p] = max(slowest[p], d.seconds)
        cpu[p] += d.cpu_seconds
        cpu_slowest[p] = max(cpu_slowest[p], d.cpu_seconds)
        decision_cpu[p].append(round(1000.0 * d.cpu_seconds, 3))

    loop = TableLoop(game, agents, rngs, check=FORFEIT, timed=True, keep_actions=True,
                     on_decision=timed)
    loop.run()
    forfeit, actions = loop.forfeit, loop.actions
    if forfeit >= 0:
        illegal[forfeit] += 1
    return GameRecord(
        matchup=job.matchup,
        seed_index=job.seed_index,
        seed=job.seed,
        rotation=job.rotation,
        seats=seats,
        decisions=decisions,
        think_seconds=think,
        max_think_seconds=slowest,
        cpu_seconds=cpu,
        max_cpu_seconds=cpu_slowest,
        decision_cpu_ms=decision_cpu,
        illegal=illegal,
        forfeit=forfeit,
        actions=actions,
        **outcome(game, forfeit),
    )


def outcome(game: Game, forfeit: int) -> dict[str, Any]:
    """The result fields of a record of ``game`` as it ended (``forfeit``: the seat that
    answered an illegal action, or -1)."""
    n = game.n
    truncated = forfeit < 0 and game.is_truncated
    keys = game.ranking_keys()
    if forfeit >= 0:
        keys[forfeit] = (-1, 0, 0)  # the offender ranks last
    winners = winners_of(keys)
    if truncated:  # no result: nobody wins, everybody shares the middle rank
        keys, winners = [(0,)] * n, []
    return {
        "scores": game.scores(),
        "location_vp": [game.location_vp(p) for p in range(n)],
        "statues": [game.statue_count(p) for p in range(n)],
        "ranks": fractional_ranks(keys),
        "win_share": win_shares(winners, n),
        "turns": game.turn,
        "truncated": truncated,
    }


def replay_mismatch(record: GameRecord, backend: str | None = None) -> str | None:
    """Replay a kept record from its seed and actions: the first field whose kept value
    differs from the replay's (``"actions"`` if one is not legal), or None. A resumed
    evaluation refuses such a record, so an edited kept line never reaches the report."""
    n = len(record.seats)
    game = new_game(GameConfig(num_players=n, record_events=False), seed=record.seed,
                    backend=backend)
    decisions = [0] * n
    for action in record.actions:
        if game.is_terminal or game.is_truncated or not game.is_legal(action):
            return "actions"
        decisions[game.current] += 1
        game.apply_action(action)
    illegal = [0] * n
    if record.forfeit >= 0:  # the forfeiting seat's illegal answer was its last decision
        if game.is_terminal or game.is_truncated or game.current != record.forfeit:
            return "forfeit"
        decisions[record.forfeit] += 1
        illegal[record.forfeit] = 1
    elif not (game.is_terminal or game.is_truncated):
        return "actions"
    replayed = {"decisions": decisions, "illegal": illegal, **outcome(game, record.forfeit)}
    for name, value in replayed.items():
        if getattr(record, name) != value:
            return name
    return None


def run_jobs(
    jobs: list[Job],
    workers: int = 1,
    progress: bool = False,
    on_record: Callable[[GameRecord], object] | None = None,
) -> list[GameRecord]:
    """Play every job, in worker processes when ``workers > 1``; results in job order.
    ``on_record`` sees each record as soon as its game ends (in finishing order)."""
    bar = _progress(len(jobs), progress)
    results: list[GameRecord | None] = [None] * len(jobs)
    done = on_record or (lambda record: None)
    try:
        if workers <= 1:
            for i, job in enumerate(jobs):
                results[i] = play_job(job)
                done(results[i])
                bar.update(1)
        else:
            import multiprocessing as mp

            ctx = mp.get_context("spawn")  # safe with torch (PPO agents) and threads
            processes = bounded_workers(workers, "evaluation workers", len(jobs))
            with ctx.Pool(processes=processes) as pool:
                indexed = pool.imap_unordered(_play_indexed, list(enumerate(jobs)), chunksize=1)
                for i, record in indexed:
                    results[i] = record
                    done(record)
                    bar.update(1)
    finally:
        bar.close()
    return [r for r in results if r is not None]


def _play_indexed(item: tuple[int, Job]) -> tuple[int, GameRecord]:
    i, job = item
    return i, play_job(job)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="evaluate", dynamic_ncols=True)
