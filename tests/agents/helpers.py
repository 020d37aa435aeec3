"""Seeded games played by agents, for agent tests."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from perikles_env.agents import Agent, make_agent
from perikles_env.engine import Game, GameConfig, new_game


def play(
    specs: list[str], seed: int, record: bool = False, backend: str | None = None
) -> Iterator[tuple[Game, int, int]]:
    """Yield (game before the decision, player, chosen action) for a whole game; actions go
    through ``apply_action_checked`` so an illegal choice raises."""
    agents: list[Agent] = [make_agent(s) for s in specs]
    config = GameConfig(num_players=len(specs), record_events=record)
    g = new_game(config, seed=seed, backend=backend)
    rngs = [np.random.default_rng([seed, i]) for i in range(len(specs))]
    while not g.is_terminal:
        p = g.current
        action = agents[p].act_state(g.clone(), p, rngs[p])
        yield g, p, action
        g.apply_action_checked(action)


def on_engine(game: Game, backend: str) -> Game:
    """``game`` on the Python engine, or its C++ twin (``backend="native"``, skipped where
    the core is not built): scenario tests run the heuristic on both."""
    if backend == "python":
        return game
    from tests.native.helpers import unvalidated_twin

    return unvalidated_twin(game)


def write_four_player_network(path) -> str:
    """A small search network that plays 4-player games only, written to ``path``."""
    import torch

    from perikles_env.agents.search.net_file import save_net
    from perikles_env.agents.search.network import NetSettings, SearchNet

    torch.manual_seed(0)
    save_net(path, SearchNet(NetSettings(num_players=4, policy_arch=(8,), value_arch=(8,))))
    return str(path)
