"""``perikles-bench AGENT [--quick] [--workers N] [--resume RUN_DIR]``: rate one agent
against the versioned reference pool (docs/benchmark.md); ``perikles-bench --exploit AGENT
[--minutes M]``: how much a best response trained against it wins; ``perikles-bench
--leaderboard RUN_DIR ...``: the pool members' runs on one scale. Games go through the
evaluator (perikles_env.evaluation: workers, game records, resume); bad input is one line,
exit 2, and nothing is written."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perikles_env.agents import AgentError, agent_names, make_agent
from perikles_env.agents.registry import PYTHON_AGENTS_ENV
from perikles_env.cli import CliParser, player_count, positive_float, positive_int
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.config import EvalConfig
from perikles_env.evaluation.tournament import resume, run
from perikles_env.jobs.config_schema import build
from perikles_env.jobs.run_folder import new_run_dir
from perikles_env.jobs.signals import exit_code

from . import exploit, leaderboard, report
from .plan import plan_tables
from .protocol import DEFAULT_VERSION, Protocol, load_protocol


def agent_spec(text: str) -> str:
    """An agent spec; ``module:callable`` or ``file.py:callable`` become ``python:...``."""
    head = text.split(":", 1)[0].strip()
    if head in agent_names() or ":" not in text:
        return text
    target, _, attr = text.rpartition(":")
    if target.endswith(".py"):
        target = str(Path(target).resolve())
    return f"python:{target}:{attr}"


def checked_agent(spec: str, counts: Sequence[int]) -> str:
    try:
        agent = make_agent(spec)
    except AgentError as exc:
        raise InvalidConfigError(str(exc)) from None
    missing = [n for n in counts if n not in agent.supported_players]
    if missing:
        plays = "/".join(map(str, agent.supported_players))
        raise InvalidConfigError(
            f"{spec} plays only {plays}-player games, the protocol also needs "
            f"{'/'.join(map(str, missing))}: rate it with --players {plays.replace('/', ' ')}")
    return spec


def _config(protocol: Protocol, agent: str, quick: bool, players: list[int] | None,
            workers: int, out: str, plots: bool) -> tuple[Protocol, EvalConfig]:
    if players:
        bad = sorted(set(players) - set(protocol.players))
        if bad:
            raise InvalidConfigError(f"--players {bad} is not in {protocol.version}'s counts")
        protocol = protocol.model_copy(update={"players": tuple(sorted(set(players)))})
    checked_agent(agent, protocol.players)
    protocol.check_models(protocol.players, quick)
    tables = plan_tables(protocol, agent, quick)
    games = protocol.games.quick if quick else protocol.games.full
    name = "bench-" + protocol.version.replace("/", "-") + ("-quick" if quick else "")
    config = build(EvalConfig, {"lineups": [t.lineup for t in tables], "games": games,
                                "seed": protocol.seed, "workers": workers, "out": out,
                                "name": name, "plots": False})
    return protocol, config


def rate(agent: str, protocol: Protocol, quick: bool = False, players: list[int] | None = None,
         workers: int = 1, out: str = "runs/bench", plots: bool = True,
         progress: bool = False) -> tuple[Path, dict]:
    """Play one benchmark run in a new folder under ``out``; its folder and report."""
    protocol, config = _config(protocol, agent, quick, players, workers, out, plots)
    ident = {**report.identity(protocol, agent, quick), "players": list(protocol.players),
             "plots": plots}

    def mark(run_dir: Path) -> None:
        (run_dir / report.IDENTITY).write_text(json.dumps(ident, indent=2) + "\n")

    result = run(config, progress=progress, command=f"perikles-bench {agent}", on_folder=mark)
    assert result.run_dir is not None
    data = report.build(result, protocol, plan_tables(protocol, agent, quick), agent, quick)
    report.write(data, result.run_dir, plots)
    return result.run_dir, data


def resume_run(run_dir: str | Path, protocol: Protocol, workers: int | None = None,
               progress: bool = False) -> tuple[Path, dict]:
    """Finish an interrupted benchmark run of the same protocol (refused otherwise)."""
    run_dir = Path(run_dir)
    ident = report.read_identity(run_dir, protocol, ": resume it with --protocol {protocol}")
    protocol = protocol.model_copy(update={"players": tuple(ident["players"])})
    protocol.check_models(protocol.players, bool(ident["quick"]))
    result = resume(run_dir, workers=workers, progress=progress)
    agent, quick = ident["agent"], bool(ident["quick"])
    data = report.build(result, protocol, plan_tables(protocol, agent, quick), agent, quick)
    report.write(data, run_dir, bool(ident.get("plots", True)))
    return run_dir, data


def main(argv: Sequence[str] | None = None) -> int:
    """The user's own agent (``python:...``) is accepted while this runs, and by the worker
    processes it starts (they inherit the environment); nowhere else."""
    before = os.environ.get(PYTHON_AGENTS_ENV)
    os.environ[PYTHON_AGENTS_ENV] = "1"
    try:
        return _main(argv)
    finally:
        if before is None:
            del os.environ[PYTHON_AGENTS_ENV]
        else:
            os.environ[PYTHON_AGENTS_ENV] = before


def _main(argv: Sequence[str] | None) -> int:
    parser = CliParser(prog="perikles-bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", nargs="?", help="agent spec, module:callable or file.py:callable")
    parser.add_argument("--protocol", default=DEFAULT_VERSION, help="version or protocol file")
    parser.add_argument("--quick", action="store_true", help="the short suite")
    parser.add_argument("--players", type=player_count, nargs="+",
                        help="only these player counts (an agent that plays only some)")
    parser.add_argument("--workers", type=positive_int, default=1, help="worker processes")
    parser.add_argument("--out", default="runs/bench", help="parent folder of the run folder")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG")
    parser.add_argument("--resume", metavar="RUN_DIR", help="finish an interrupted run")
    parser.add_argument("--exploit", metavar="SPEC",
                        help="train a best response against SPEC and report its win share")
    parser.add_argument("--minutes", type=positive_float, default=30.0,
                        help="--exploit: minutes of PPO for the best response "
                        "(default: %(default)s)")
    parser.add_argument("--games", type=positive_int, default=400,
                        help="--exploit: final games against the target (default: %(default)s)")
    parser.add_argument("--recipe", help="--exploit: another training recipe file")
    parser.add_argument("--progress", action="store_true", help="a progress bar")
    parser.add_argument("--leaderboard", metavar="RUN_DIR", nargs="+",
                        help="rate the pool members of these finished runs on one scale")
    args = parser.parse_args(argv)
    if args.exploit and args.agent:
        parser.error("--exploit SPEC trains against SPEC: give no agent to rate with it")
    if args.leaderboard and (args.agent or args.exploit or args.resume):
        parser.error("--leaderboard reads finished runs: give no agent, --exploit or --resume")
    if not args.agent and not args.resume and not args.exploit and not args.leaderboard:
        parser.error("give an agent spec to rate, --exploit SPEC, --resume RUN_DIR or "
                     "--leaderboard RUN_DIR ...")
    try:
        protocol = load_protocol(args.protocol)
        if args.leaderboard:
            return _leaderboard(args.leaderboard, protocol, args.out, not args.no_plots)
        if args.exploit or (args.resume and exploit.identity(Path(args.resume))):
            return _exploit(args, protocol, parser, argv)
        if args.resume:
            run_dir, data = resume_run(args.resume, protocol, args.workers, args.progress)
        else:
            run_dir, data = rate(agent_spec(args.agent), protocol, args.quick, args.players,
                                 args.workers, args.out, not args.no_plots, args.progress)
    except InvalidConfigError as exc:
        parser.error(str(exc))
    r = data["rating"]
    print(f"{data['agent']} on {data['protocol']}: rating {r['rating']:.2f} "
          f"[{r['rating_ci'][0]:.2f}, {r['rating_ci'][1]:.2f}]; report {run_dir}/bench.md")
    return 0


def _leaderboard(run_dirs: Sequence[str], protocol: Protocol, out: str,
                 plots: bool) -> int:
    """``--leaderboard``: every run checked before the folder is made."""
    runs = [leaderboard.read_run(Path(p), protocol) for p in run_dirs]
    data = leaderboard.build(runs, protocol)
    name = "leaderboard-" + protocol.version.replace("/", "-") + (
        "-quick" if data["suite"] == "quick" else "")
    folder = new_run_dir(out, name)
    leaderboard.write(data, folder, plots)
    best = data["members"][0]
    print(f"{len(data['members'])} members of {protocol.version} rated ({data['suite']} "
          f"suite), first {best['name']} {best['rating']:+.2f}; {folder}/leaderboard.md")
    return 0


def _exploit(args: Any, protocol: Protocol, parser: CliParser,
             argv: Sequence[str] | None) -> int:
    """``--exploit`` (or ``--resume`` of an exploit run): train, then report."""
    if args.resume:
        run_dir = Path(args.resume)
        config = exploit.resumable(run_dir)
    else:
        players = args.players or [4]
        if len(players) != 1:
            parser.error("--exploit trains at one player count: give one --players N")
        target = agent_spec(args.exploit)
        checked_agent(target, players)
        config, run_dir = exploit.start(target, players[0], args.minutes, args.games,
                                        protocol, args.out, args.recipe)
    print(f"run folder: {run_dir}")
    command = " ".join(["perikles-bench", *(sys.argv[1:] if argv is None else argv)])
    try:
        summary = exploit.train_best_response(config, run_dir, bool(args.resume), command)
    except KeyboardInterrupt as exc:
        summary = {"status": "interrupted", "stop_signal": str(exc) or "SIGINT"}
    data = exploit.finish(run_dir, summary)
    if data is None:
        signal_name = summary.get("stop_signal") or "SIGINT"
        print(f"interrupted ({signal_name}): continue with perikles-bench --resume {run_dir}")
        return exit_code(signal_name if signal_name in ("SIGINT", "SIGTERM") else "SIGINT")
    low, high = data["equal_share_multiple_ci"]
    print(f"best response vs {data['players'] - 1} x {data['target']}: win "
          f"{100 * data['win_share']:.1f} % of {data['games']} games, "
          f"{data['equal_share_multiple']:.2f}x the equal share [{low:.2f}, {high:.2f}]; "
          f"report {run_dir}/exploit.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
