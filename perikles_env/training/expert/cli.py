"""``perikles-search-train``: expert iteration for the search network.

    perikles-search-train --config search_smoke            # a new run folder
    perikles-search-train --config search_long --override warm_start.ppo=runs/default/model.zip
    perikles-search-train --resume runs/search_smoke       # continue from its last checkpoint
    perikles-search-train --resume runs/search_smoke --override budget.iterations=20

Exit codes: 0 done, 2 bad config or checkpoint (one line naming it), 130 / 143 interrupted
by SIGINT (Ctrl-C) / SIGTERM (``kill``): the run folder says ``interrupted``; continue
with ``--resume``.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

from perikles_env.agents.ppo_file import ModelFileError
from perikles_env.cli import CliParser, command_line
from perikles_env.errors import InvalidConfigError
from perikles_env.jobs.evaluator import Evaluator
from perikles_env.jobs.signals import StopRequest, exit_code

from .config import load_config
from .loop import PROG, run


def main(argv: Sequence[str] | None = None, *, evaluator: Evaluator) -> int:
    """The command line; ``perikles_env.launch.expert`` starts it with the evaluator."""
    p = CliParser(prog=PROG, description=__doc__.split("\n\n")[0])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="a config file or a shipped name (search_smoke)")
    source.add_argument("--resume", help="a run folder to continue from its last checkpoint")
    p.add_argument("--override", action="append", default=[], metavar="KEY=VALUE",
                   help="set a config key (search.sims=128; with --resume: of the run's own "
                   "config, e.g. budget.iterations=20); repeatable")
    p.add_argument("--no-progress", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    command = command_line(PROG, argv)
    try:
        config = load_config(args.config, args.override) if args.config else None
        with StopRequest().listening():
            run_dir = run(config, args.resume, command, False if args.no_progress else None,
                          args.override if args.resume else (), evaluator=evaluator)
    except (InvalidConfigError, ModelFileError) as exc:
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # the loop has said how to continue
        return exit_code(str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT")
    print(f"{PROG}: done: {run_dir / 'report.md'}; network {run_dir / 'net.pkn'} "
          f"(agent search:model={shlex.quote(str(run_dir / 'net.pkn'))})")
    return 0

