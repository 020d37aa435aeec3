"""Former home of the game's words, kept so older imports work: everything is phrased in
``narrate`` (the one phrasing module); new code imports from there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.game import Game
from .narrate import UNIT_WORDS as ROUND_NAMES
from .narrate import describe_action, describe_event, special_title, who


def event_text(event: Sequence[Any], you: int | None = None) -> str:
    return describe_event(event, you)


def action_words(game: Game, action: int, viewer: int | None) -> str:
    return describe_action(game, action, viewer)


__all__ = ["ROUND_NAMES", "action_words", "event_text", "special_title", "who"]
