"""Running an evaluation: jobs from a config, games played, results summarised and written.

Every lineup plays the same list of game seeds (common random numbers), each seed in all N
seat rotations, so ``games`` is rounded up to a multiple of N. Python API::

    from perikles_env.evaluation import evaluate
    result = evaluate(["ppo:runs/x/model.zip", "heuristic"], players=4, games=40)
    result.win_rate("ppo:runs/x/model.zip")
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from perikles_env.errors import InvalidConfigError
from perikles_env.jobs.run_folder import (
    COMPLETE,
    FAILED,
    INTERRUPTED,
    RUNNING,
    STATUS,
    new_run_dir,
    read_status,
    write_status,
)

from . import eval_report as report
from .config import EvalConfig, expand_lineup
from .eval_result import EvalResult
from .matchup_results import ratings_by_player_count, summarise_matchup
from .runner import (
    DECISION_TIMINGS,
    PER_SEAT_TIMINGS,
    GameRecord,
    Job,
    game_seeds,
    replay_mismatch,
    run_jobs,
    seat_lineup,
)


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
    on_folder: Callable[[Path], None] | None = None,
) -> EvalResult:
    """Play and summarise an evaluation; write a new run folder when ``write``
    (``on_folder(run_dir)`` then adds a caller's files to it before any game)."""
    run_dir = None
    if write:
        run_dir = new_run_dir(config.out, config.name or time.strftime("%Y%m%d-%H%M%S"))
        report.write_config(run_dir, config)
        if on_folder is not None:
            on_folder(run_dir)
        write_status(run_dir, RUNNING, command=command)
    return _play(config, [], run_dir, progress, command)


def resume(run_dir: str | Path, workers: int | None = None, progress: bool = False) -> EvalResult:
    """Finish an interrupted run in its own folder: the games kept in
    ``games.partial.jsonl`` count as played, the others are played now, and the result is
    the one the first command would have given (timings aside). ``InvalidConfigError`` if
    the folder is not an unfinished run, or a kept game is not one of the run's games."""
    run_dir = Path(run_dir)
    status = read_status(run_dir)
    if not status:
        raise InvalidConfigError(f"{run_dir} is not an evaluation run folder (no {STATUS})")
    state = status.get("status")
    if state == COMPLETE:
        raise InvalidConfigError(f"{run_dir} is already complete: nothing to resume")
    if state == RUNNING:
        raise InvalidConfigError(
            f"{run_dir} is still running (process {status.get('pid')} on {status.get('host')})"
        )
    config = report.read_config(run_dir)
    if workers is not None:
        config = config.model_copy(update={"workers": workers})
    command = str(status.get("command", ""))
    kept = report.read_games(run_dir)
    check_kept_games(kept, build_jobs(config))
    report.cut_torn_line(run_dir)
    write_status(run_dir, RUNNING, command=command, resumed_with=len(kept))
    return _play(config, kept, run_dir, progress, command)


def check_kept_games(kept: list[GameRecord], jobs: list[Job]) -> None:
    """Every kept game must be one of ``jobs``, played once, with that job's seed and seats
    and one entry per seat (anything else is not this run's game), and replaying its seed
    and actions must give every kept result (anything else was edited)."""
    by_key = {(j.matchup, j.seed_index, j.rotation): j for j in jobs}
    seen: set[tuple[int, int, int]] = set()
    for number, record in enumerate(kept, start=1):
        key = (record.matchup, record.seed_index, record.rotation)
        job = by_key.get(key)
        n = len(job.lineup) if job else 0
        per_seat = [record.scores, record.ranks, record.win_share, record.decisions,
                    record.illegal, record.location_vp, record.statues]
        timings = [getattr(record, k) for k in PER_SEAT_TIMINGS]
        per_decision = getattr(record, DECISION_TIMINGS)
        if (
            job is None
            or key in seen
            or record.seed != job.seed
            or record.seats != seat_lineup(job.lineup, job.rotation)
            or any(not _numbers(v) or len(v) != n for v in per_seat)
            or any(not _numbers(v) or len(v) not in (0, n) for v in timings)
            or not isinstance(per_decision, list)
            or len(per_decision) not in (0, n)
            or any(not _numbers(v) for v in per_decision)
        ):
            what = "played twice" if key in seen else "not one of this run's games"
            raise InvalidConfigError(
                f"{report.PARTIAL}, game {number} (matchup {record.matchup}, seed index "
                f"{record.seed_index}, rotation {record.rotation}): {what}; the file does "
                "not belong to this run's config"
            )
        seen.add(key)
        mismatch = _checked_types(record, n) or replay_mismatch(record, job.backend)
        if mismatch:
            raise InvalidConfigError(
                f"{report.PARTIAL}, line {number} (matchup {record.matchup}, seed index "
                f"{record.seed_index}, rotation {record.rotation}): its {mismatch} differ from "
                "a replay of its seed and actions; the kept results were edited, refusing "
                "to resume"
            )


def _checked_types(record: GameRecord, n: int) -> str | None:
    """The first field a replay cannot even read (None when all can be)."""
    if not (type(record.forfeit) is int and -1 <= record.forfeit < n):
        return "forfeit"
    if not (isinstance(record.actions, list) and all(type(a) is int for a in record.actions)):
        return "actions"
    return None


def _numbers(values: object) -> bool:
    return isinstance(values, list) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in values
    )


def _play(
    config: EvalConfig,
    kept: list[GameRecord],
    run_dir: Path | None,
    progress: bool,
    command: str,
) -> EvalResult:
    """Play the jobs not in ``kept``, then summarise all of them in job order."""
    jobs = build_jobs(config)
    done = {(r.matchup, r.seed_index, r.rotation): r for r in kept}
    todo = [j for j in jobs if (j.matchup, j.seed_index, j.rotation) not in done]

    def on_record(record: GameRecord) -> None:
        if run_dir is not None:
            report.append_game(run_dir, record)

    try:
        played = run_jobs(todo, workers=config.workers, progress=progress, on_record=on_record)
    except BaseException as exc:
        if run_dir is not None:
            status = INTERRUPTED if isinstance(exc, KeyboardInterrupt) else FAILED
            write_status(run_dir, status, command=command, games=report.recorded_games(run_dir),
                         of=len(jobs), error=f"{type(exc).__name__}: {exc}",
                         resume=resume_command(run_dir))
            if status == INTERRUPTED:
                exc.add_note(f"the games played are kept; resume with: {resume_command(run_dir)}")
        raise
    by_key = {**done, **{(r.matchup, r.seed_index, r.rotation): r for r in played}}
    records = [by_key[(j.matchup, j.seed_index, j.rotation)] for j in jobs]
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
        from .plots import write_plots  # matplotlib: only when plotting

        if config.plots:
            result.plots = write_plots(result, run_dir)
        report.write_run(result, run_dir)
        write_status(run_dir, COMPLETE, command=command, games=len(records))
    return result


def resume_command(run_dir: Path) -> str:
    """The command that finishes an interrupted evaluation (the installed script: any folder)."""
    return f"perikles-evaluate --resume {shlex.quote(str(run_dir))}"


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
