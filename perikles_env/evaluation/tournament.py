"""Running an evaluation: jobs from a config, games played, results summarised and written.

Every lineup plays the same list of game seeds (common random numbers), each seed in all N
seat rotations, so ``games`` is rounded up to a multiple of N. Python API::

    from perikles_env.evaluation import evaluate
    result = evaluate(["ppo:runs/x/model.zip", "heuristic"], players=4, games=40)
    result.win_rate("ppo:runs/x/model.zip")
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from perikles_env.training.run_folder import (
    COMPLETE,
    FAILED,
    INTERRUPTED,
    RUNNING,
    new_run_dir,
    write_status,
)

from .config import EvalConfig, expand_lineup
from .result import EvalResult
from .results import ratings_by_player_count, summarise_matchup
from .runner import GameRecord, Job, game_seeds, run_jobs


def build_jobs(config: EvalConfig) -> list[Job]:
    jobs = []
    for index, lineup in enumerate(config.lineups):
        n = len(lineup)
        seeds = game_seeds(config.seed, -(-config.games // n))
        for si, seed in enumerate(seeds):
            for rotation in range(n):
                jobs.append(Job(index, tuple(lineup), si, seed, rotation, config.backend))
    return jobs


def run(
    config: EvalConfig,
    progress: bool = False,
    write: bool = True,
    command: str = "",
) -> EvalResult:
    """Play and summarise an evaluation; write a new run folder when ``write``."""
    from .report import append_game, recorded_games

    run_dir = None
    if write:
        run_dir = new_run_dir(config.out, config.name or time.strftime("%Y%m%d-%H%M%S"))
        write_status(run_dir, RUNNING, command=command)
    jobs = build_jobs(config)

    def on_record(record: GameRecord) -> None:
        if run_dir is not None:
            append_game(run_dir, record)

    try:
        records = run_jobs(jobs, workers=config.workers, progress=progress, on_record=on_record)
    except BaseException as exc:
        if run_dir is not None:
            status = INTERRUPTED if isinstance(exc, KeyboardInterrupt) else FAILED
            write_status(run_dir, status, command=command, games=recorded_games(run_dir),
                         of=len(jobs), error=f"{type(exc).__name__}: {exc}")
        raise
    matchups = []
    for index, lineup in enumerate(config.lineups):
        mine = [r for r in records if r.matchup == index]
        matchups.append(summarise_matchup(index, list(lineup), mine, seed=config.seed))
    result = EvalResult(
        config=config,
        matchups=matchups,
        ratings=ratings_by_player_count(records),
        records=records,
        command=command,
        run_dir=run_dir,
    )
    if run_dir is not None:
        from .plots import write_plots
        from .report import write_run

        if config.plots:
            result.plots = write_plots(result, run_dir)
        write_run(result, run_dir)
        write_status(run_dir, COMPLETE, command=command, games=len(records))
    return result


def evaluate(
    lineup: Sequence[str] | Sequence[Sequence[str]],
    players: int | list[int] | None = None,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    out: str | None = None,
    name: str = "",
    plots: bool = True,
    progress: bool = False,
    backend: str | None = None,
) -> EvalResult:
    """Evaluate one lineup (padded with its last agent up to ``players``; several counts
    allowed) or several lineups. Writes a run folder only when ``out`` is given."""
    if lineup and isinstance(lineup[0], str):
        lineups = expand_lineup(list(lineup), players)  # type: ignore[arg-type]
    else:
        lineups = [tuple(x) for x in lineup]
    config = EvalConfig(
        lineups=tuple(lineups),
        games=games,
        seed=seed,
        workers=workers,
        out=out or "runs/eval",
        name=name,
        plots=plots,
        backend=backend,
    )
    return run(config, progress=progress, write=out is not None)
