"""``perikles-train-rllib`` (``python -m perikles_env.launch.rllib``): multi-agent PPO with
RLlib, with the tournament evaluator (needs the ``rllib`` extra)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from perikles_env.evaluation.for_trainers import TOURNAMENT
from perikles_env.training.rllib import train


def main(argv: Sequence[str] | None = None) -> int:
    return train.main(argv, evaluator=TOURNAMENT)


if __name__ == "__main__":
    sys.exit(main())
