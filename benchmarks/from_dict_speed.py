"""Cost of loading a saved state: ``Game.from_dict`` (validated, engine/validate.py) against
building the same game without checks, and ``clone()`` (the search path, never validated).

States are every decision state of seeded random games (3, 4 and 5 players, Python engine).
Prints microseconds per state (minimum of the repeats). Standard library only.

    python benchmarks/from_dict_speed.py [--games N] [--repeats R]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perikles_env.engine import Game, GameConfig, new_game  # noqa: E402
from perikles_env.engine import state as S  # noqa: E402
from perikles_env.engine import validate as V  # noqa: E402
from perikles_env.engine.rng import Rng  # noqa: E402


def saved_states(games: int) -> list[dict[str, Any]]:
    out = []
    for n in (3, 4, 5):
        for seed in range(games):
            g = new_game(GameConfig(num_players=n), seed=seed, backend="python")
            policy = Rng(seed)
            while not g.is_terminal:
                out.append(g.to_dict())
                g.apply_action(policy.choice(g.legal_actions()))
    return out


def unchecked(d: dict[str, Any]) -> Game:
    """``from_dict`` without its two checks: the cost the validation adds to."""
    return Game.from_dict_unchecked(d)


def best(run: Callable[[Any], Any], items: list[Any], repeats: int) -> float:
    """Minimum microseconds per item over ``repeats`` passes."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for item in items:
            run(item)
        times.append((time.perf_counter() - start) / len(items) * 1e6)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per player count")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    states = saved_states(args.games)
    games = [unchecked(d) for d in states]
    rows = [
        ("from_dict (validated)", best(Game.from_dict, states, args.repeats)),
        (
            "  of which check_fields",
            best(lambda d: V.check_fields(d, S.STATE_FIELDS), states, args.repeats),
        ),
        ("  of which check_state", best(V.check_state, games, args.repeats)),
        ("build without checks", best(unchecked, states, args.repeats)),
        ("clone()", best(Game.clone, games, args.repeats)),
    ]
    print(f"{len(states)} states, Python {platform.python_version()}")
    for label, micros in rows:
        print(f"{label:<26}{micros:8.1f} us/state")


if __name__ == "__main__":
    main()
