"""Tournament evaluator: agents against each other with ratings and confidence intervals.

    python -m training.evaluate --agents heuristic,random,random,random --players 4 --games 400
    python -m training.evaluate --agents heuristic,random --players 3,4,5 --games 300
    python -m training.evaluate --config configs/eval_heuristic_vs_random.yaml --workers 2

Every lineup plays the same list of game seeds (common random numbers), each seed in all N
seat rotations, so ``--games`` is rounded up to a multiple of N. Each player count is
reported separately. Output goes to a new run folder (default ``runs/eval/<name or
timestamp>``, suffixed ``-2``, ``-3``, ... when taken: a run never overwrites another):
``status.json`` (``running`` / ``interrupted`` / ``complete``), ``games.partial.jsonl``
while games finish, then ``report.md``, ``results.json``, ``games.jsonl``, ``ratings.png``
and ``winrate_by_seat.png``, each written atomically. Same arguments, same numbers
(timings aside). A game unfinished at ``MAX_GAME_DECISIONS`` is counted as truncated.

Python API for periodic evaluation during training::

    from perikles_env.training.evaluate import evaluate
    result = evaluate(["ppo:runs/x/model.zip", "heuristic"], players=4, games=40)
    result.win_rate("ppo:runs/x/model.zip")
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from perikles_env.agents import split_specs
from perikles_env.cli import CliParser
from perikles_env.errors import InvalidConfigError

from .evaluation.config import EvalConfig, expand_lineup, load_config
from .evaluation.results import MatchupResult, ratings_by_player_count, summarise_matchup
from .evaluation.runner import GameRecord, Job, game_seeds, run_jobs
from .run_folder import COMPLETE, FAILED, INTERRUPTED, RUNNING, new_run_dir, write_status
from .signals import StopRequest, exit_code


@dataclass
class EvalResult:
    config: EvalConfig
    matchups: list[MatchupResult]
    ratings: dict[int, dict[str, dict[str, float]]]
    records: list[GameRecord]
    run_dir: Path | None = None
    command: str = ""
    plots: list[str] = field(default_factory=list)

    @property
    def illegal_actions(self) -> int:
        return sum(sum(r.illegal) for r in self.records)

    @property
    def truncated_games(self) -> int:
        return sum(r.truncated for r in self.records)

    def win_rate(self, agent: str, players: int | None = None) -> float:
        """Win rate of ``agent`` over every matchup (at ``players``) it played, seat-weighted."""
        seats = wins = 0.0
        for m in self.matchups:
            if agent in m.agents and (players is None or m.players == players):
                a = m.agents[agent]
                seats += a.seats_played
                wins += a.win_rate * a.seats_played
        if not seats:
            raise KeyError(
                f"agent {agent!r} played no game" + (f" at {players} players" if players else "")
            )
        return wins / seats


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
    from .evaluation.report import append_game

    run_dir = None
    if write:
        run_dir = new_run_dir(config.out, config.name or time.strftime("%Y%m%d-%H%M%S"))
        write_status(run_dir, RUNNING, command=command)
    jobs = build_jobs(config)
    played = 0

    def on_record(record: GameRecord) -> None:
        nonlocal played
        played += 1
        if run_dir is not None:
            append_game(run_dir, record)

    try:
        records = run_jobs(jobs, workers=config.workers, progress=progress, on_record=on_record)
    except BaseException as exc:
        if run_dir is not None:
            status = INTERRUPTED if isinstance(exc, KeyboardInterrupt) else FAILED
            write_status(run_dir, status, command=command, games=played, of=len(jobs),
                         error=f"{type(exc).__name__}: {exc}")
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
        from .evaluation.plots import write_plots
        from .evaluation.report import write_run

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


def _players_arg(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"players must be ints like 4 or 3,4,5: {text!r}") from exc


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = CliParser(
        prog="perikles-evaluate",
        description="Play agents against each other and report win rates, ranks, VP and ratings.",
    )
    p.add_argument("--config", help="YAML evaluation config (configs/eval_*.yaml)")
    p.add_argument(
        "--agents",
        help="comma-separated agent specs, e.g. heuristic,random,random,random; padded with the "
        "last one up to --players",
    )
    p.add_argument("--players", type=_players_arg, help="player count(s): 4 or 3,4,5")
    p.add_argument(
        "--games", type=int, help="games per matchup (default 400; rounded up to whole rotations)"
    )
    p.add_argument("--seed", type=int, help="base seed of the shared game seeds (default 0)")
    p.add_argument("--workers", type=int, help="worker processes (default 1)")
    p.add_argument(
        "--backend",
        choices=("auto", "native", "python"),
        help="engine of every game (default: $PERIKLES_BACKEND, else python; docs/native.md)",
    )
    p.add_argument("--out", help="parent folder of the run folder (default runs/eval)")
    p.add_argument("--name", help="run folder name (default: a timestamp)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    return p.parse_args(argv)


def config_from_args(args: argparse.Namespace) -> EvalConfig:
    overrides = {
        "games": args.games,
        "seed": args.seed,
        "workers": args.workers,
        "out": args.out,
        "name": args.name,
        "plots": False if args.no_plots else None,
        "backend": args.backend,
    }
    if args.agents:
        overrides["lineups"] = expand_lineup(split_specs(args.agents), args.players)
    elif args.players and not args.config:
        raise InvalidConfigError("--players needs --agents")
    if args.config:
        return load_config(args.config, overrides)
    if not args.agents:
        raise InvalidConfigError("give --agents or --config")
    values = {k: v for k, v in overrides.items() if v is not None and k != "lineups"}
    return EvalConfig(lineups=tuple(overrides["lineups"]), **values)


def summary(result: EvalResult) -> str:
    lines = []
    for m in result.matchups:
        lines.append(f"[{m.players}p] {', '.join(m.lineup)}: {m.games} games")
        for a in m.agents.values():
            t = m.timing[a.agent]
            lines.append(
                f"  {a.agent:40s} win {100 * a.win_rate:5.1f}% "
                f"[{100 * a.win_ci[0]:.1f}, {100 * a.win_ci[1]:.1f}]  rank {a.mean_rank:.2f}  "
                f"VP {a.mean_vp:.1f}  {t.mean_decision_ms:.2f} ms/decision "
                f"(CPU {t.mean_cpu_ms:.2f}, max {t.max_cpu_ms:.0f})  "
                f"illegal {a.illegal_actions}"
            )
    if result.truncated_games:
        lines.append(f"truncated games (no winner): {result.truncated_games}")
    if result.run_dir is not None:
        lines.append(f"report: {result.run_dir / 'report.md'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = config_from_args(args)
    except InvalidConfigError as exc:
        print(f"perikles-evaluate: error: {exc}", file=sys.stderr)
        return 2
    command = "python -m training.evaluate " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    try:
        with StopRequest().listening():
            result = run(config, progress=not args.quiet, write=True, command=command)
    except KeyboardInterrupt as exc:
        signal_name = str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT"
        print(f"perikles-evaluate: interrupted ({signal_name})", file=sys.stderr)
        return exit_code(signal_name)
    if not args.quiet:
        print(summary(result))
    return 1 if result.illegal_actions else 0


if __name__ == "__main__":
    sys.exit(main())
