"""Keep finished pool-member runs of ``perikles-bench`` as the published leaderboard's
evidence (docs/benchmark.md, "Rebuild the leaderboard").

    python scripts/archive_bench_runs.py runs/bench/bench-perikles-bench-v3* \\
        --into benchmarks/leaderboard/v3

Each run becomes ``<into>/<member>/`` (its identity, report and gzipped game records
without actions); ``perikles-bench --leaderboard benchmarks/leaderboard/v3/*`` then refits
the board from them. Each run is archived or refused on its own (a member already
archived is refused, its folder unchanged).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from perikles_env.bench.leaderboard import archive
from perikles_env.bench.protocol import load_protocol
from perikles_env.errors import InvalidConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="finished benchmark run folders")
    parser.add_argument("--into", type=Path, required=True, help="the archive folder")
    parser.add_argument("--protocol", default=None, help="version or file (default: current)")
    args = parser.parse_args(argv)
    try:
        protocol = load_protocol(args.protocol)
        for run_dir in args.runs:
            print(archive(run_dir, args.into, protocol))
    except InvalidConfigError as exc:
        print(f"archive_bench_runs: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
