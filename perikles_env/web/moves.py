"""The legal moves of the seat to act, as the page offers them: the words of each step
("Pylos (location 3): attack" > "Sparta hoplite 3"), the places on the board where a click
chooses it, and whether it asks for a confirmation first.

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
from ..engine.information import known_cities
from ..engine.phases import Phase
from ..render.words import special_title

# Moves that commit forces or spend a special tile: the page asks before sending them.
CONFIRM = frozenset((
    "PLACE", "END_STEP", "SPEND_CUBE", "PLAY_PERIKLES", "PLAY_PLAGUE", "SLAVE_REVOLT",
    "BATTLE_DOUBLE", "BATTLE_TOKEN",
))
UNIT = ("hoplite", "trireme")


@dataclass
class Move:
    action: int
    path: list[str]
    targets: list[str] = field(default_factory=list)
    confirm: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "path": self.path, "targets": self.targets,
                "confirm": self.confirm}


def city(c: int) -> str:
    return D.MILITARY_CITY_NAMES[c].capitalize()


def counter(klass: int, strength: bool = True) -> str:
    """'Sparta hoplite 3', or 'Sparta hoplite' when the strength is not the reader's."""
    name = f"{city(D.CLASS_CITY[klass])} {UNIT[D.CLASS_TYPE[klass]]}"
    return f"{name} {D.CLASS_STRENGTH[klass]}" if strength else name


def tile_words(tile: int) -> str:
    """'Sparta 2-cube tile', 'Any City tile'."""
    t = D.INFLUENCE_TILES[tile]
    if t.colour == D.BROWN:
        return "Any City tile"
    return f"{city(t.colour)} {('2-cube', 'candidate', 'assassin', 'any city')[t.kind]} tile"


def location(g: Game, slot: int) -> str:
    return f"{D.LOCATION_TILES[g.loc_display[slot]].name.capitalize()} (location {slot + 1})"


def seat_words(p: int, you: int) -> str:
    return "you" if p == you else f"p{p}"


def special_name(g: Game, p: int) -> str:
    held = g.special[p]
    return special_title(D.SPECIAL_NAMES[held]) if held >= 0 else "special"


def describe(g: Game, action: int, reader: int | None = None) -> Move:
    """One legal action of the player to act, in words for ``reader`` (default: the actor;
    'you' names the reader)."""
    kind, a1, a2, a3 = A.decode(action)
    me = g.current
    you = me if reader is None else reader
    nominee = (me + a2) % g.n if kind in ("PROPOSE", "ALKIBIADES_CUBE") else -1
    confirm = kind in CONFIRM
    if kind == "PLACE":
        return Move(action, [f"{location(g, a2)}: {A.SIDE_NAMES[a3]}",
                             f"{counter(a1)} (you hold {g.pool[a1]})"],
                    [f"side:{a2}:{a3}"], True)
    if kind in ("SETUP_CUBE", "ANY_CITY"):
        return Move(action, [f"a cube to {city(a1)}"], [f"city:{a1}"])
    if kind == "TAKE_TILE":
        return Move(action, [f"take tile {a1 + 1}: {tile_words(g.display[a1])}"],
                    [f"tile:{a1}"])
    if kind == "PLAY_PERIKLES":
        return Move(action, ["play Perikles: 2 cubes in any city"], ["special"], True)
    if kind == "PLAY_PLAGUE":
        return Move(action, ["play Plague", f"on {city(a1)}"], [f"city:{a1}", "special"], True)
    if kind == "ALKIBIADES_CUBE":
        first = g.phase != Phase.ALKIBIADES_CUBE
        step = "play Alkibiades: move 2 cubes" if first else "Alkibiades: the second cube"
        return Move(action, [step, f"from {city(a1)}", f"a cube of {seat_words(nominee, you)}"],
                    [f"row:{a1}:{nominee}", f"city:{a1}"], first)
    if kind == "ALKIBIADES_DEST":
        return Move(action, [f"move both cubes to {city(a1)}"], [f"city:{a1}"])
    if kind == "PROPOSE":
        return Move(action, [f"propose in {city(a1)}", f"{seat_words(nominee, you)} as candidate"],
                    [f"row:{a1}:{nominee}", f"city:{a1}"])
    if kind == "ASSASSINATE":
        if a2 in (A.ASSASSIN_ALPHA, A.ASSASSIN_BETA):
            s = a2 - A.ASSASSIN_ALPHA
            holder = g.cand[a1 * 2 + s]
            target = f"the {('alpha', 'beta')[s]} candidate ({seat_words(holder, you)})"
            where = f"cand:{a1}:{s}"
        else:
            victim = (me + a2) % g.n
            target, where = f"a cube of {seat_words(victim, you)}", f"row:{a1}:{victim}"
        return Move(action, [f"assassinate in {city(a1)}", target], [where, f"city:{a1}"])
    if kind == "SPARTA_FIRST":
        starter = (me + a1) % g.n
        verb = "commit" if starter == you else "commits"
        return Move(action, [f"{seat_words(starter, you)} {verb} first"], [f"player:{starter}"])
    if kind == "DEAD_POOL":
        source = city(g.dp_queue[g.dp_index + 1])
        return Move(action, [f"recover a {source} {UNIT[a1]} from the dead pool"])
    if kind == "SPEND_CUBE":
        return Move(action, [f"spend a cube in {city(a1)} for an extra step"], [f"city:{a1}"],
                    True)
    if kind == "SLAVE_REVOLT":
        where = "Sparta's hand" if a1 == 0 else location(g, a1 - 1)
        target = f"city:{D.SPARTA}" if a1 == 0 else f"loc:{a1 - 1}"
        return Move(action, ["play Slave Revolt", f"on {where}"], [target, "special"], True)
    if kind == "BATTLE_DOUBLE":
        return Move(action, [f"play {special_name(g, me)}: double the strength"], ["special"],
                    True)
    if kind == "BATTLE_TOKEN":
        side = ("attacker", "defender")[a1]
        return Move(action, [f"play {special_name(g, me)} for the {side}"],
                    [f"side:{g.b_slot}:{a1}", "special"], True)
    if kind == "CASUALTY":
        return Move(action, [f"lose the {city(a1)} counter"])
    plain = {
        "END_PICK": "no special now", "END_STEP": "end my commit step",
        "GRANT": "grant permission", "DENY": "deny permission",
        "BATTLE_PASS": "pass (no special)",
    }
    return Move(action, [plain[kind]], [], confirm)


def legal_moves(g: Game) -> list[Move]:
    """Every legal action of the player to act, described."""
    return [describe(g, a) for a in g.legal_actions()]


def move_words(g: Game, action: int, viewer: int) -> str:
    """What the player to act chose, in words, as ``viewer`` may know it: the strength of
    a placed counter only for a viewer who controls its city (docs/rules.md F)."""
    actor = g.current
    kind, klass, slot, side = A.decode(action)
    if kind == "PLACE":
        seen = known_cities(g, viewer) >> D.CLASS_CITY[klass] & 1
        return (f"{seat_words(actor, viewer)}: {A.SIDE_NAMES[side]} {location(g, slot)} with "
                f"a {counter(klass, bool(seen))}")
    words = " ".join(describe(g, action, viewer).path)
    return f"{seat_words(actor, viewer)}: {words}"
