"""The legal moves of the seat to act, as the page offers them: the words of each step
("Pylos (location 3): attack" > "Sparta hoplite 3 (you hold 2)"), the whole move in the
words of ``render.narrate``, the places on the board where a click chooses it, and whether
it asks for a confirmation first.

Targets name board places (see ``hotspots``): ``tile:i`` an influence display tile,
``city:c`` a city card, ``row:c:p`` player ``p``'s cube row in city ``c``, ``cand:c:s`` a
candidate box, ``side:slot:side`` one side of a location, ``loc:slot`` a location's name,
``player:p`` a player's row, ``special`` the actor's own special tile. A move without a
target is offered as a button (pass, end the commit step, grant, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import actions as A
from ..engine import data as D
from ..engine.game import Game
from ..engine.phases import Phase
from ..render.narrate import city, class_words, describe_action, location

# Moves that commit forces or spend a special tile: the page asks before sending them.
CONFIRM = frozenset((
    "PLACE", "END_STEP", "SPEND_CUBE", "PLAY_PERIKLES", "PLAY_PLAGUE", "SLAVE_REVOLT",
    "BATTLE_DOUBLE", "BATTLE_TOKEN",
))


@dataclass
class Move:
    """A legal action: ``words`` says it whole (``narrate.describe_action``), ``path`` is
    the menu steps that lead to it."""

    action: int
    path: list[str]
    targets: list[str] = field(default_factory=list)
    confirm: bool = False
    words: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "path": self.path, "targets": self.targets,
                "confirm": self.confirm, "words": self.words}


# First menu step of the moves that take two or more (the last step is the move's words).
_GROUPS = {
    "PROPOSE": lambda g, a1, a2, a3: f"propose a candidate in {city(a1)}",
    "ASSASSINATE": lambda g, a1, a2, a3: f"assassinate in {city(a1)}",
    "PLAY_PLAGUE": lambda g, a1, a2, a3: "play Plague",
    "SLAVE_REVOLT": lambda g, a1, a2, a3: "play Slave Revolt",
    "ALKIBIADES_CUBE": lambda g, a1, a2, a3: (
        "play Alkibiades" if g.phase != Phase.ALKIBIADES_CUBE else "Alkibiades' second cube"
    ),
    "PLACE": lambda g, a1, a2, a3: f"{location(g, a2)}: {A.SIDE_NAMES[a3]}",
}


def _targets(g: Game, kind: str, a1: int, a2: int, a3: int) -> list[str]:
    """The board places of one action (see the module docstring)."""
    me = g.current
    if kind in ("SETUP_CUBE", "ANY_CITY", "ALKIBIADES_DEST", "SPEND_CUBE"):
        return [f"city:{a1}"]
    if kind == "TAKE_TILE":
        return [f"tile:{a1}"]
    if kind in ("PLAY_PERIKLES", "BATTLE_DOUBLE"):
        return ["special"]
    if kind == "PLAY_PLAGUE":
        return [f"city:{a1}", "special"]
    if kind in ("PROPOSE", "ALKIBIADES_CUBE"):
        return [f"row:{a1}:{(me + a2) % g.n}", f"city:{a1}"]
    if kind == "ASSASSINATE":
        if a2 >= A.ASSASSIN_ALPHA:
            return [f"cand:{a1}:{a2 - A.ASSASSIN_ALPHA}", f"city:{a1}"]
        return [f"row:{a1}:{(me + a2) % g.n}", f"city:{a1}"]
    if kind == "SPARTA_FIRST":
        return [f"player:{(me + a1) % g.n}"]
    if kind == "PLACE":
        return [f"side:{a2}:{a3}"]
    if kind == "SLAVE_REVOLT":
        return [f"city:{D.SPARTA}" if a1 == 0 else f"loc:{a1 - 1}", "special"]
    if kind == "BATTLE_TOKEN":
        return [f"side:{g.b_slot}:{a1}", "special"]
    return []


def describe(g: Game, action: int) -> Move:
    """One legal action of the player to act, for him."""
    kind, a1, a2, a3 = A.decode(action)
    words = describe_action(g, action, g.current)
    group = _GROUPS.get(kind)
    path = [words] if group is None else [group(g, a1, a2, a3), words]
    if kind == "PLACE":
        path[1] = f"{class_words(a1)} (you hold {g.pool[a1]})"
    return Move(action, path, _targets(g, kind, a1, a2, a3), kind in CONFIRM, words)


def move_targets(g: Game, action: int) -> list[str]:
    """The board places an action of the player to act touches, as anyone may see them (no
    ``special``: that box is the viewer's own row)."""
    kind, a1, a2, a3 = A.decode(action)
    return [t for t in _targets(g, kind, a1, a2, a3) if t != "special"]


def legal_moves(g: Game) -> list[Move]:
    """Every legal action of the player to act, described for him."""
    return [describe(g, a) for a in g.legal_actions()]
