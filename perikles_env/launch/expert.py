"""``perikles-search-train`` (``python -m perikles_env.launch.expert``): expert iteration for
the search network, with the tournament evaluator."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.training.expert import cli


def main(argv: Sequence[str] | None = None) -> int:
    return cli.main(argv, evaluator=TOURNAMENT)


if __name__ == "__main__":
    sys.exit(main())
