"""A legal policy that drags games past ``MAX_GAME_DECISIONS``: it
asks for every permission it can (a ``PLACE`` that needs one), denies every request and
never makes a placement; elsewhere it takes the lowest legal action."""

from __future__ import annotations

from perikles_env.agents import register_agent
from perikles_env.agents.base import Agent
from perikles_env.engine import actions as A

NAME = "never_place"


def stalling_action(game) -> int:  # noqa: ANN001
    legal = game.legal_actions()
    if A.DENY in legal:
        return A.DENY
    for action in legal:  # a placement that only asks for permission
        if A.decode(action)[0] == "PLACE":
            trial = game.clone()
            trial.apply_action(action)
            if trial.phase.name == "PERMISSION":
                return action
    if A.END_STEP in legal:
        return A.END_STEP
    others = [a for a in legal if A.decode(a)[0] != "PLACE"]
    return (others or legal)[0]


class NeverPlace(Agent):
    name = NAME
    uses_state = True

    def act_state(self, game, player, rng):  # noqa: ANN001, ANN201
        return stalling_action(game)


def register() -> str:
    register_agent(NAME, lambda **kw: NeverPlace())
    return NAME
