"""Public events and chosen actions in plain words, for the terminal game and the replay
viewer ("p1 (you) proposes p3 as beta candidate in Corinth").

Events come from ``Game.event_log`` and are public by construction. A chosen action is
public too except the strength of a placed counter, which only its owner's controllers
know (docs/rules.md F): ``action_words`` hides it from everyone else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import actions as A
from ..engine import data as D
from ..engine.game import Game
from ..engine.information import known_cities

ROUND_NAMES = {"H": "hoplite", "T": "trireme"}
SPECIAL_TITLES = {
    "persianfleet": "Persian Fleet",
    "slaverevolt": "Slave Revolt",
    "thessalianallies": "Thessalian Allies",
}


def special_title(name: str) -> str:
    return SPECIAL_TITLES.get(name, name.capitalize())


def _a(word: str) -> str:
    return ("an " if word[:1] in "AEIOUaeiou" else "a ") + word


def who(p: int, you: int | None = None) -> str:
    if p < 0:
        return "nobody"
    return f"p{p} (you)" if p == you else f"p{p}"


def _cap(name: str) -> str:
    return name.capitalize()


def _counter(name: str) -> str:
    """'sparta-H3' -> 'Sparta hoplite 3'."""
    city, rest = name.split("-")
    return f"{_cap(city)} {ROUND_NAMES[rest[0]]} {rest[1:]}"


def _tile(name: str) -> str:
    """'sparta-plain' -> 'Sparta 2-cube tile'."""
    colour, kind = name.split("-")
    if kind == "any":
        return "Any City tile"
    kinds = {"plain": "2-cube", "candidate": "candidate", "assassin": "assassin"}
    return f"{_cap(colour)} {kinds[kind]} tile"


def _players(ps: list[int], you: int | None) -> str:
    return ", ".join(who(p, you) for p in ps) or "nobody"


def event_text(event: tuple[Any, ...] | list[Any], you: int | None = None) -> str:
    """One public event in words (``you``: the reader's seat, marked '(you)')."""
    kind, args = event[0], list(event[1:])
    describe = _EVENTS.get(kind)
    if describe is None:
        return " ".join(str(x) for x in event)
    return describe(args, lambda p: who(p, you), you)


def _slot(g: int) -> str:
    return f"location {g + 1}"


_Who = Callable[[int], str]

_EVENTS: dict[str, Callable[[list[Any], _Who, int | None], str]] = {
    "setup": lambda a, w, y: (
        f"A {a[0]}-player game begins; {w(a[1])} starts. Locations: "
        + ", ".join(_cap(n) for n in a[2])
    ),
    "new_turn": lambda a, w, y: (
        f"Turn {a[0]} begins; {w(a[1])} starts. Locations: " + ", ".join(_cap(n) for n in a[2])
    ),
    "phase": lambda a, w, y: f"Turn {a[0]}: {a[1]} phase, {w(a[2])} first",
    "cubes": lambda a, w, y: (
        f"{w(a[0])} adds {a[2]} cube{'s' if a[2] != 1 else ''} to {_cap(a[1])}"
    ),
    "take_tile": lambda a, w, y: f"{w(a[0])} takes the {_tile(a[1])}",
    "pick_skipped": lambda a, w, y: f"{w(a[0])} has no tile to take",
    "action_skipped": lambda a, w, y: f"{w(a[0])}'s {a[1]} tile has no effect",
    "special": lambda a, w, y: (
        f"{w(a[0])} plays {special_title(a[1])}"
        + (f" at {_slot(a[2])}" if len(a) > 2 else "")
        + (f" for the {'attacker' if a[3] == 'attack' else 'defender'}" if len(a) > 3 else "")
    ),
    "plague_loss": lambda a, w, y: f"Plague: {w(a[0])} loses {a[2]} cube(s) in {_cap(a[1])}",
    "alkibiades_move": lambda a, w, y: (
        f"Alkibiades moves a cube of {w(a[0])} from {_cap(a[1])} to {_cap(a[2])}"
    ),
    "propose": lambda a, w, y: (
        f"{w(a[0])} proposes {w(a[2])} as {'alpha' if a[3] == 'a' else 'beta'} "
        f"candidate in {_cap(a[1])}"
    ),
    "propose_pass": lambda a, w, y: f"{w(a[0])} has no proposal to make",
    "assassinate": lambda a, w, y: (
        f"{w(a[0])} assassinates {w(a[2])}'s "
        + ("cube" if a[3] == "main" else f"{a[3]} candidate")
        + f" in {_cap(a[1])}"
    ),
    "election": lambda a, w, y: (
        f"{_cap(a[0])} elects {w(a[1])} as leader" + (f" (-{a[2]} cubes)" if a[2] else "")
        if a[1] >= 0
        else f"{_cap(a[0])} elects no leader"
    ),
    "persian_leaders": lambda a, w, y: f"Persian leaders: {_players(a[0], y)}",
    "sparta_first": lambda a, w, y: f"Sparta's leader {w(a[0])} lets {w(a[1])} commit first",
    "recover": lambda a, w, y: f"{w(a[0])} recovers {_a(_counter(a[1]))} from the dead pool",
    "commit_nothing": lambda a, w, y: f"{w(a[0])} has nothing to commit",
    "end_step": lambda a, w, y: f"{w(a[0])} ends the commit step",
    "spend_cube": lambda a, w, y: f"{w(a[0])} spends a cube in {_cap(a[1])} for extra forces",
    "ask_permission": lambda a, w, y: (
        f"{w(a[0])} asks permission to defend {_slot(a[2])} with {_cap(a[1])}"
    ),
    "permission": lambda a, w, y: (
        f"{w(a[0])} {'grants' if a[3] else 'denies'} permission to {_cap(a[1])} at "
        f"{_slot(a[2])}"
    ),
    "place": lambda a, w, y: (
        f"{w(a[0])} places {_a(_cap(a[1]))} {ROUND_NAMES[a[2]]} to {a[4]} {_slot(a[3])} "
        f"({a[5]} force)"
    ),
    "slave_revolt": lambda a, w, y: (
        f"Slave revolt by {w(a[0])} removes {_a(_counter(a[2]))} ("
        + ("Sparta's hand" if a[1] == "pool" else f"location {a[1]}")
        + ")"
    ),
    "battle": lambda a, w, y: f"Battle at {_slot(a[0])}, {_cap(a[1])}: counters turned face up",
    "dice_round": lambda a, w, y: (
        f"{_cap(ROUND_NAMES[a[1]])} round at {_slot(a[0])}: attack {a[2]} vs defence {a[3]} "
        f"(column {a[4]}, tokens {a[5]}:{a[6]})"
    ),
    "roll": lambda a, w, y: f"Dice at {_slot(a[0])}: attacker rolls {a[1]}, defender {a[2]}",
    "round": lambda a, w, y: (
        f"{_cap(ROUND_NAMES[a[1]])} round at {_slot(a[0])}: no forces"
        if a[2] == "empty"
        else f"{_cap(ROUND_NAMES[a[1]])} round at {_slot(a[0])} won by the "
        f"{'attacker' if a[2] == 'attack' else 'defender'} ({a[3]})"
    ),
    "casualty": lambda a, w, y: f"The {a[1]}er loses {_a(_counter(a[2]))} at {_slot(a[0])}",
    "claim": lambda a, w, y: (
        f"{_cap(a[1])} ({_slot(a[0])}) goes to {_players(a[2], y)} "
        f"({'attackers' if a[3] else 'defenders'} won)"
    ),
    "unclaimed": lambda a, w, y: f"{_cap(a[1])} ({_slot(a[0])}) stays unclaimed: {a[2]}",
    "end_turn": lambda a, w, y: (
        f"End of turn {a[0]}; scores " + ", ".join(f"{w(p)} {s}" for p, s in enumerate(a[1]))
    ),
    "game_over": lambda a, w, y: (
        "Game over; scores " + ", ".join(f"{w(p)} {s}" for p, s in enumerate(a[0]))
        + f"; winner: {_players(a[1], y)}"
    ),
}


def action_words(game: Game, action: int, viewer: int | None) -> str:
    """What the player to act chose, as ``viewer`` may know it: a placed counter's strength
    is shown only to viewers who control its city."""
    kind, klass, slot, side = A.decode(action)
    if kind != "PLACE":
        return game.action_to_str(action)
    city = D.CLASS_CITY[klass]
    visible = viewer is not None and known_cities(game, viewer) >> city & 1
    unit = ROUND_NAMES[D.UNIT_TYPE_NAMES[D.CLASS_TYPE[klass]]]
    strength = f" {D.CLASS_STRENGTH[klass]}" if visible else ""
    name = D.LOCATION_TILES[game.loc_display[slot]].name.capitalize()
    return (
        f"place {_a(D.MILITARY_CITY_NAMES[city].capitalize())} {unit}{strength} to "
        f"{A.SIDE_NAMES[side]} {name} (location {slot + 1})"
    )
