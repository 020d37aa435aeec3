"""``make network`` (``python -m perikles_env.launch.rebuild_net``): the shipped search
network rebuilt from nothing, one of the package's own commands per stage.

    python -m perikles_env.launch.rebuild_net --out runs/network             # every stage
    python -m perikles_env.launch.rebuild_net --out runs/network --until counts
    python -m perikles_env.launch.rebuild_net --out runs/network --dry-run   # the commands

Every stage writes under ``--out``; run the same command again after Ctrl-C, a kill or a
reboot and it goes on where it stopped: a finished stage (a training run whose folder says
``complete``, a network file that exists) is skipped, an interrupted training run is
resumed from its last checkpoint. Nothing in the package is replaced: the last line says
which file to copy over ``perikles_env/agents/search/search_net.pkn``. The stages, their
times on 2 cores and what each reached: docs/training.md, "The shipped network".
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perikles_env.cli import CliParser
from perikles_env.jobs.run_folder import COMPLETE, read_status

PROG = "rebuild_net"
PPO = ("-m", "perikles_env.launch.ppo")
EXPERT = ("-m", "perikles_env.launch.expert")
WARM_START = ("-m", "perikles_env.training.search_warmstart")


@dataclass(frozen=True)
class Stage:
    """One step of the chain. ``run`` names a training run folder ``<out>/<name>`` (its
    tool resumes it); otherwise ``output`` is the network file the command writes."""

    name: str
    what: str
    tool: tuple[str, ...]
    args: tuple[str, ...]  # ``{out}`` stands for the --out folder
    output: str  # the stage's product, relative to --out
    smoke: tuple[str, ...] = ()  # arguments that make the stage take seconds (tests)

    @property
    def trains(self) -> bool:
        return self.tool in (PPO, EXPERT)


# the smallest runs each tool accepts: a few hundred steps, one iteration of two games
_PPO_SMOKE = (
    "train.total_timesteps=512", "train.n_envs=2", "train.workers=1", "train.update_threads=1",
    "train.checkpoint_every=512", "train.progress_bar=false", "train.tensorboard=false",
    "ppo.n_steps=128", "ppo.batch_size=64", "ppo.n_epochs=1",
    "eval.every=0", "eval.final_games=4", "eval.workers=1", "eval.agreement_games=0",
)
_EXPERT_SMOKE = (
    "selfplay.games=2", "selfplay.parallel=2", "selfplay.workers=1", "search.sims=4",
    "search.gumbel_m=4", "search.batch=2", "budget.iterations=1", "budget.minutes=null",
    "eval.every=0", "progress_bar=false",
)


def _overrides(*pairs: str) -> tuple[str, ...]:
    return tuple(a for pair in pairs for a in ("--override", pair))


STAGES: tuple[Stage, ...] = (
    Stage("first_network",
          "imitation of the heuristic, then 14 min of PPO (configs/first_network.yaml)",
          PPO, ("--config", "first_network", *_overrides("out={out}", "name=first_network")),
          "first_network/model.zip",
          _overrides(*_PPO_SMOKE, "pretrain.decisions=200", "pretrain.epochs=1",
                     "pretrain.workers=1", "pretrain.agreement_games=0")),
    Stage("warm", "its policy with a value fitted on 4,000 recorded games",
          WARM_START, ("--ppo", "{out}/first_network/model.zip", "--games", "4000",
                       "--epochs", "5", "--league", "first_network", "--out", "{out}/warm.pkn"),
          "warm.pkn", ("--games", "4", "--epochs", "1")),
    Stage("expert", "expert iteration: 12 iterations of 48 games at 32 simulations",
          EXPERT, ("--config", "search_long", *_overrides(
              "out={out}", "name=expert", "warm_start.net={out}/warm.pkn",
              "selfplay.games=48", "selfplay.parallel=48", "search.sims=32", "search.batch=48",
              "budget.iterations=12", "budget.minutes=null", "eval.every=0",
              "selfplay.workers=1")),
          "expert/net.pkn", _overrides(*_EXPERT_SMOKE)),
    Stage("net_tune", "its policy fine-tuned by 40 min of PPO (configs/net_tune.yaml)",
          PPO, ("--config", "net_tune", *_overrides(
              "out={out}", "name=net_tune", "ppo.init_net={out}/expert/net.pkn")),
          "net_tune/model.zip", _overrides(*_PPO_SMOKE)),
    Stage("tuned", "the tuned policy beside the expert network's value",
          WARM_START, ("--ppo", "{out}/net_tune/model.zip", "--value-from",
                       "{out}/expert/net.pkn", "--out", "{out}/tuned.pkn"),
          "tuned.pkn"),
    Stage("net_counts", "the policy fine-tuned at 3, 4 and 5 players, 45 min of PPO "
          "(configs/net_counts.yaml)",
          PPO, ("--config", "net_counts", *_overrides(
              "out={out}", "name=net_counts", "ppo.init_net={out}/tuned.pkn")),
          "net_counts/model.zip", _overrides(*_PPO_SMOKE)),
    Stage("counts", "a value for every count, fitted on 3,000 games at 3, 4 and 5 players",
          WARM_START, ("--ppo", "{out}/net_counts/model.zip", "--players", "3,4,5",
                       "--value-init", "{out}/tuned.pkn", "--games", "3000", "--epochs", "5",
                       "--league", "net_counts", "--out", "{out}/counts.pkn"),
          "counts.pkn", ("--games", "6", "--epochs", "1")),
    Stage("population", "expert iteration against a population at 3, 4 and 5 players "
          "(configs/search_population.yaml)",
          EXPERT, ("--config", "search_population", *_overrides(
              "out={out}", "name=population", "warm_start.net={out}/counts.pkn")),
          "population/net.pkn", _overrides(*_EXPERT_SMOKE)),
)
NAMES = [s.name for s in STAGES]


def command(stage: Stage, out: Path, smoke: bool = False) -> list[str]:
    """The stage's command line: a new run, or the resumption of its interrupted run."""
    run_dir = out / stage.name
    if stage.trains and run_dir.exists():
        return [sys.executable, *stage.tool, "--resume", str(run_dir)]
    args = [a.replace("{out}", str(out)) for a in stage.args]
    return [sys.executable, *stage.tool, *args, *(stage.smoke if smoke else ())]


def is_done(stage: Stage, out: Path) -> bool:
    if stage.trains:
        return read_status(out / stage.name).get("status") == COMPLETE
    return (out / stage.output).is_file()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = CliParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="the folder every stage writes under")
    p.add_argument("--until", choices=NAMES, default=NAMES[-1],
                   help=f"the last stage to run (default {NAMES[-1]})")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--smoke", action="store_true",
                   help="every stage at the smallest size (seconds each): tests the chain")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out).resolve()
    if out.exists() and not out.is_dir():
        print(f"{PROG}: error: --out {str(out)!r} is a file, not a folder", file=sys.stderr)
        return 2
    stages = STAGES[: NAMES.index(args.until) + 1]
    start = time.monotonic()
    for i, stage in enumerate(stages, 1):
        head = f"[{i}/{len(stages)}] {stage.name}: {stage.what}"
        if is_done(stage, out):
            print(f"{head}: done ({out / stage.output})", flush=True)
            continue
        cmd = command(stage, out, args.smoke)
        print(f"{head}\n  $ {shlex.join(cmd)}", flush=True)
        if args.dry_run:
            continue
        out.mkdir(parents=True, exist_ok=True)
        code = subprocess.call(cmd)
        if code != 0 or not is_done(stage, out):
            print(f"{PROG}: stage {stage.name} stopped (exit code {code}); run the same "
                  f"command again to go on from there", file=sys.stderr)
            return code or 1
        print(f"  {stage.name} done; {(time.monotonic() - start) / 60:.1f} min since the start",
              flush=True)
    if not args.dry_run:
        final = out / stages[-1].output
        print(f"{PROG}: network {final}; to ship it: cp {shlex.quote(str(final))} "
              "perikles_env/agents/search/search_net.pkn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
