"""Where is one agent stronger than another? Swap one part of the game and play it again.

A `phase_swap` seat plays the `search` spec's default, except in one part of the game, where
another agent decides (`agent=ismcts`, the default, or `agent=search`; every other option
is that agent's, `sims=30` unless given): `part=military` (Sparta's choice, the dead pool,
commit steps, permission, battle specials, casualties) or `part=influence` (everything
else: setup, tile picks and their specials, proposals). Played on the same games as a
`search` line, the difference says which part of the search's play carries its result
(docs/results.md, "A search that models no particular opponent"). Every argument after the
script's name goes to `perikles-evaluate`:

    python scripts/phase_swap.py --agents "phase_swap:part=military,ismcts:sims=30" \\
        --players 3 --games 48 --seed 49000000 --workers 2
    python scripts/phase_swap.py --agents \\
        "phase_swap:part=influence,agent=search,sims=150,rollout_mix=0.0,ismcts:sims=30" \\
        --players 3 --games 48 --seed 49000000 --workers 2
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from perikles_env.agents import make_agent
from perikles_env.agents.base import Agent
from perikles_env.agents.registry import register_agent
from perikles_env.engine.phases import Phase

MILITARY = frozenset({Phase.SPARTA_CHOICE, Phase.DEAD_POOL, Phase.COMMIT, Phase.PERMISSION,
                      Phase.BATTLE_SPECIAL, Phase.CASUALTY})
PARTS = ("military", "influence")
AGENTS = ("ismcts", "search")


class PhaseSwap(Agent):
    """`search`, with another agent (IS-MCTS, or the search with other options) deciding in
    one part of the game."""

    name = "phase_swap"
    uses_state = True
    read_only = False  # IS-MCTS may change the game it is given: the loop hands a copy

    def __init__(self, part: str = "military", agent: str = "ismcts", **options: Any) -> None:
        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, got {part!r}")
        if agent not in AGENTS:
            raise ValueError(f"agent must be one of {AGENTS}, got {agent!r}")
        self.part, self.agent = part, agent
        self.options = {"sims": 30, **options}  # the other agent's options
        self.search = make_agent("search")
        spec = ",".join(f"{k}={v}" for k, v in self.options.items())
        self.other = make_agent(f"{agent}:{spec}")

    def describe(self) -> str:
        return f"phase_swap:part={self.part},agent={self.other.describe()}"

    def reset(self) -> None:
        self.search.reset()
        self.other.reset()

    def act_state(self, game: Any, player: int, rng: np.random.Generator) -> int:
        military = Phase(int(game.phase)) in MILITARY
        swapped = military if self.part == "military" else not military
        return (self.other if swapped else self.search).act_state(game, player, rng)


# At import, so that the evaluator's worker processes (spawned: they import this script
# again as their main module) know the agent too.
register_agent("phase_swap", lambda **options: PhaseSwap(**options))

if __name__ == "__main__":
    from perikles_env.evaluation.cli import main

    sys.exit(main(sys.argv[1:]))
