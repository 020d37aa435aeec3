"""A user's own agent in its own file, outside the package (the benchmark loads it)."""

import numpy as np

from perikles_env.agents import Agent


class FirstLegal(Agent):
    name = "first_legal"
    read_only = True

    def act_state(self, game, player, rng):
        return game.legal_actions()[0]


def make_agent():
    return FirstLegal()


def make_policy():
    """A PettingZoo-style policy: observation and mask in, action out."""
    return lambda observation, mask: int(np.flatnonzero(mask)[-1])
