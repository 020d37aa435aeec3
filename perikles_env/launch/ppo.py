"""``perikles-train`` (``python -m perikles_env.launch.ppo``): the MaskablePPO trainer with
the tournament evaluator."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.training.ppo import train


def main(argv: Sequence[str] | None = None) -> int:
    return train.main(argv, evaluator=TOURNAMENT)


if __name__ == "__main__":
    sys.exit(main())
