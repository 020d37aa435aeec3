"""Project agents as OpenSpiel bots, and the project's leaf values as an OpenSpiel
evaluator, so OpenSpiel's tools (``evaluate_bots``, MCTS, IS-MCTS) and the project's agents
meet on one ``python_perikles`` state."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from ..agents import Agent, decide, make_agent
from ..analysis.leaf_value import leaf_values
from .game import PeriklesState


class PeriklesAgentBot(pyspiel.Bot):
    """Any project agent (an ``Agent`` or a registry spec such as ``"heuristic"``) as an
    OpenSpiel bot. It decides through the table loop's ``decide`` (``act_state`` on a copy
    of the engine state unless the agent only reads it); every project agent reads that
    state only through what its player may know (docs/agents.md). OpenSpiel's own loop
    (``evaluate_bots``) takes the turns."""

    def __init__(self, agent: Agent | str, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = make_agent(agent) if isinstance(agent, str) else agent
        self._rng = np.random.default_rng(seed)

    def step(self, state: PeriklesState) -> int:
        game = state.engine_game
        return int(decide(self.agent, game, game.current, self._rng))

    def restart_at(self, state: PeriklesState) -> None:
        self.agent.reset()

    def inform_action(self, state: PeriklesState, player_id: int, action: int) -> None:
        pass  # project agents read the whole (visible) state at each decision


class LeafValueEvaluator(mcts.Evaluator):
    """Values for OpenSpiel's MCTS / IS-MCTS leaves from the project's leaf model
    (``analysis.leaf_value``: expected VP turned into win chances ``w``), on the win-reward
    scale: ``w * 1 + (1 - w) * -1 / (n - 1)``. Meant for determinised states (IS-MCTS
    searches samples from ``resample_from_infostate``, so reading them is fair). Priors
    are uniform. About 0.7 ms a leaf, against ~40 ms for one random rollout to the end of
    a 4-player game (OpenSpiel's ``RandomRolloutEvaluator``; 2-core machine, under load)."""

    def evaluate(self, state: PeriklesState) -> np.ndarray:
        game = state.engine_game
        w = np.asarray(leaf_values(game), dtype=float)
        return w - (1.0 - w) / (game.n - 1)

    def prior(self, state: PeriklesState) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


def ismcts_bot(game: Any, max_simulations: int = 20, seed: int = 0, uct_c: float = 2.0) -> Any:
    """OpenSpiel's own IS-MCTS bot (``open_spiel.python.algorithms.ismcts``) with the
    project's leaf values; it resamples through ``PeriklesState.resample_from_infostate``."""
    from open_spiel.python.algorithms import ismcts

    return ismcts.ISMCTSBot(
        game=game,
        evaluator=LeafValueEvaluator(),
        uct_c=uct_c,
        max_simulations=max_simulations,
        random_state=np.random.RandomState(seed),
    )


def play_game(game: Any, bots: list[Any], seed: int = 0) -> PeriklesState:
    """Play one game to the end with one bot per seat (any ``pyspiel.Bot``: OpenSpiel's,
    or ``PeriklesAgentBot``) and return the final state. Chance nodes (the deal) are drawn
    from ``seed``. Unlike OpenSpiel's ``evaluate_bots`` it calls only ``step``, which every
    bot has (OpenSpiel's Python IS-MCTS bot has no ``restart_at``). A bot's illegal
    action raises ``IllegalActionError`` naming it; nothing is substituted."""
    if len(bots) != game.num_players():
        raise ValueError(f"need {game.num_players()} bots, got {len(bots)}")
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [action for action, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state
