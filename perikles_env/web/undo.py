"""Taking a move back, the way Board Game Arena allows it: only the player who made the
last move, only while nobody else has moved since, and only when the move showed nothing
that was hidden and rolled no dice (so taking it back cannot be used to peek).

The test is made on the game itself, not on a list of move kinds: the move is made again
on hidden states redrawn from the mover's point of view (``determinize``: the others'
counters and special tiles, both decks, the dice); if anything the public sees, or the
move's events, differs between them, the move depended on something the mover could not
know, and it stands. Playing a special tile shows which tile one held, so it stands too.
"""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..engine.determinize import determinize
from ..engine.game import Game
from ..render.svg import board_svg

SAMPLES = 2  # redrawn hidden states per check (two differ from the real one almost surely)
SHOWS_A_TILE = frozenset((
    "PLAY_PERIKLES", "PLAY_PLAGUE", "SLAVE_REVOLT", "ALKIBIADES_CUBE", "BATTLE_DOUBLE",
    "BATTLE_TOKEN",
))


def _after(game: Game, action: int) -> tuple[str, list[object]]:
    seen = len(game.event_log)
    game.apply_action(action)
    return board_svg(game, None), [list(e) for e in game.event_log[seen:]]


def undo_refusal(before: Game, action: int, seat: int) -> str:
    """Why ``seat`` may not take back ``action`` made in ``before`` ("" if it may)."""
    if before.current != seat:
        return f"the last move was p{before.current}'s"
    kind = A.decode(action)[0]
    if kind in SHOWS_A_TILE:
        return "playing a special tile showed it to everyone"
    real = _after(before.clone(), action)
    rng = np.random.default_rng([len(before.event_log), action])
    for _ in range(SAMPLES):
        other = determinize(before, seat, rng, record_events=True)
        if not other.is_legal(action) or _after(other, action) != real:
            return "the move showed hidden information or rolled dice"
    return ""
