"""``perikles-evaluate``: play agents against each other and report win rates and ratings.

    perikles-evaluate --agents heuristic,random,random,random --games 400
    perikles-evaluate --agents heuristic,random --players 3,4,5 --games 300
    perikles-evaluate --config eval_heuristic_vs_random --workers 2

Output goes to a new run folder (default ``runs/eval/<name or timestamp>``, suffixed ``-2``,
``-3``, ... when taken: a run never overwrites another): ``status.json`` (``running`` /
``interrupted`` / ``complete``), ``games.partial.jsonl`` while games finish, then
``report.md``, ``results.json``, ``games.jsonl``, ``ratings.png`` and
``winrate_by_seat.png``, each written atomically. Same arguments, same numbers (timings
aside). A game unfinished at ``MAX_GAME_DECISIONS`` is counted as truncated. Exit codes: 0
done, 1 an agent made an illegal action, 2 bad input, 128 + signal when interrupted.

    perikles-evaluate --resume runs/eval/<name>    # finish an interrupted run in its folder
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from perikles_env.agents import split_specs
from perikles_env.cli import CliParser, command_line
from perikles_env.errors import InvalidConfigError
from perikles_env.jobs.signals import StopRequest, exit_code

from . import eval_report as report
from .config import EvalConfig, EvalFile, expand_lineup, load_config
from .eval_result import EvalResult
from .tournament import resume, run

PROG = "perikles-evaluate"
DEFAULTS = EvalFile.model_fields  # the --help texts quote the schema's defaults


def _players_arg(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"players must be ints like 4 or 3,4,5: {text!r}") from exc


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    d = {name: field.default for name, field in DEFAULTS.items()}
    p = CliParser(
        prog=PROG,
        description="Play agents against each other and report win rates, ranks, VP and ratings.",
    )
    p.add_argument("--config", help="YAML evaluation config (a path, or eval_smoke, ...)")
    p.add_argument(
        "--agents",
        help="comma-separated agent specs, e.g. heuristic,random,random,random; padded with the "
        "last one up to --players",
    )
    p.add_argument(
        "--players",
        type=_players_arg,
        help="player count(s): 4 or 3,4,5 (default: the number of --agents, which must then "
        "be 3..5)",
    )
    p.add_argument(
        "--games", type=int,
        help=f"games per matchup, rounded up to whole rotations (default: {d['games']})",
    )
    p.add_argument(
        "--seed", type=int, help=f"base seed of the shared game seeds (default: {d['seed']})"
    )
    p.add_argument("--workers", type=int, help=f"worker processes (default: {d['workers']})")
    p.add_argument(
        "--backend",
        choices=("auto", "native", "python"),
        help="engine of every game (default: $PERIKLES_BACKEND, else auto: the C++ core where "
        "it is built; docs/native.md)",
    )
    p.add_argument("--out", help=f"parent folder of the run folder (default: {d['out']})")
    p.add_argument("--name", help="run folder name (default: a timestamp)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.add_argument(
        "--resume", metavar="RUN_DIR",
        help="finish an interrupted run in its folder with its own settings: the games it "
        "kept are not played again (only --workers, --quiet may be given with it)",
    )
    return p.parse_args(argv)


RESUME_FIXED = ("config", "agents", "players", "games", "seed", "backend", "out", "name")


def check_resume_args(args: argparse.Namespace) -> None:
    given = [f"--{k.replace('_', '-')}" for k in RESUME_FIXED if getattr(args, k) is not None]
    given += ["--no-plots"] if args.no_plots else []
    if given:
        raise InvalidConfigError(
            f"--resume plays the run's own settings; {', '.join(given)} cannot change them "
            "(only --workers and --quiet may be given with --resume)"
        )


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
    return EvalConfig(**{k: v for k, v in overrides.items() if v is not None})


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
                f"(CPU {t.mean_cpu_ms:.2f}, 95% {report.ms(t.p95_cpu_ms)}, "
                f"max {t.max_cpu_ms:.0f})  "
                f"illegal {a.illegal_actions}"
            )
    if result.truncated_games:
        lines.append(f"truncated games (no winner): {result.truncated_games}")
    if result.run_dir is not None:
        lines.append(f"report: {result.run_dir / 'report.md'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    command = command_line(PROG, argv)
    try:
        if args.resume:
            check_resume_args(args)
            with StopRequest().listening():
                result = resume(args.resume, workers=args.workers, progress=not args.quiet)
        else:
            config = config_from_args(args)
            with StopRequest().listening():
                result = run(config, progress=not args.quiet, write=True, command=command)
    except InvalidConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        signal_name = str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT"
        print(f"{PROG}: interrupted ({signal_name})", file=sys.stderr)
        for note in getattr(exc, "__notes__", []):
            print(f"{PROG}: {note}", file=sys.stderr)
        return exit_code(signal_name)
    if not args.quiet:
        print(summary(result))
    return 1 if result.illegal_actions else 0


if __name__ == "__main__":
    sys.exit(main())
