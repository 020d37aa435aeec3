"""The board at the end of a turn, which no decision ever shows: the engine resolves the
last battles, scores the turn and lays out the next turn inside one ``apply_action``, so a
picture taken at each decision goes straight from the last battle decision (or the last
commit) to the next turn. The replay viewer and videos add these boards as frames of their
own, so a viewer sees every location's result and the turn's scores.
"""

from __future__ import annotations

from typing import Any

from ..engine.game import Game


def turn_end_states(before: Game, action: int) -> list[Game]:
    """Copies of the state at each end of turn (B.9: battles fought, statues and scores
    given, forces home) that applying ``action`` to ``before`` passes through, oldest
    first; the end of the last turn is left out (the terminal state that follows shows
    it). ``before`` is not changed. Costs one Python-engine copy and one step, so callers
    ask only when the step's events hold an ``end_turn``."""
    game = before.to_python()  # an independent Python-engine copy, on either engine
    found: list[Game] = []

    class Watched(Game):
        __slots__ = ()

        def _log(self, *event: Any) -> None:
            Game._log(self, *event)
            if event[0] == "end_turn":
                snapshot = self.clone()
                snapshot.__class__ = Game
                found.append(snapshot)

    game.__class__ = Watched
    game.apply_action(action)
    if game.is_terminal and found:
        found.pop()
    return found


def ends_a_turn(events: list[Any], since: int) -> bool:
    """Whether ``events[since:]`` holds the end of a turn."""
    return any(e[0] == "end_turn" for e in events[since:])
