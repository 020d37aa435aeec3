"""Plain words for a game, the one phrasing module of the terminal game, the replay viewer
and the web game: every action id as the choice a person makes ("take the Sparta 2-cube
tile (display slot 6)"), every public event ("Dice at Pylos: attacker rolls 8, needs 10:
miss"), and the odds before a battle decision.

Events come from ``Game.event_log`` and are public by construction. An action is told as
``viewer`` may know it: the strength of a placed counter only to the controllers of its
city (docs/rules.md F), a battle special by name only to its owner or once it is played.
``describe_events`` reads a log front to back, so that a dice roll can name the numbers it
needed and the tokens it gave (the roll events alone carry only the dice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import actions as A
from ..engine import data as D
from ..engine.combat import battle_win_probability, round_win_probability
from ..engine.game import Game
from ..engine.information import known_cities
from ..engine.phases import Phase
from ..engine.queries import ROUND_DICE, doubled_city, location_rounds, odds_inputs

UNIT_WORDS = {"H": "hoplite", "T": "trireme"}
SIDE_WORDS = ("attacker", "defender")
ORDER_WORDS = ("triremes, then hoplites", "hoplites, then triremes", "hoplites only")
KIND_WORDS = {
    "plain": "2-cube",
    "candidate": "candidate",
    "assassin": "assassin",
    "any": "Any City",
}
SPECIAL_TITLES = {
    "persianfleet": "Persian Fleet",
    "slaverevolt": "Slave Revolt",
    "thessalianallies": "Thessalian Allies",
}
SPECIAL_EFFECTS = {
    "alkibiades": "move 2 cubes to one other city",
    "brasidas": "Spartan hoplites count double in one round",
    "perikles": "2 cubes to Athens",
    "persianfleet": "a token for one side before a trireme round",
    "phormio": "Athenian triremes count double in one round",
    "plague": "every player loses half his cubes in one city",
    "slaverevolt": "remove one Spartan hoplite",
    "thessalianallies": "a token for one side before a hoplite round",
}
PHASE_TITLES = {
    Phase.SETUP_PLACE: "Setup: place cubes",
    Phase.INFLUENCE_PICK: "Influence: take a tile",
    Phase.ALKIBIADES_CUBE: "Influence: Alkibiades",
    Phase.ALKIBIADES_DEST: "Influence: Alkibiades",
    Phase.ANY_CITY: "Influence: Any City tile",
    Phase.CANDIDATE_TILE: "Influence: candidate tile",
    Phase.ASSASSIN_TILE: "Influence: assassin",
    Phase.POST_PICK_SPECIAL: "Influence: special window",
    Phase.PROPOSE: "Proposals",
    Phase.SPARTA_CHOICE: "Sparta picks the first player",
    Phase.DEAD_POOL: "Dead pool recovery",
    Phase.COMMIT: "Commit forces",
    Phase.PERMISSION: "Permission to defend",
    Phase.BATTLE_SPECIAL: "Battle: specials",
    Phase.CASUALTY: "Battle: casualty",
    Phase.GAME_OVER: "Game over",
}
_UNCLAIMED = {
    "not attacked": "nobody attacked it",
    "no forces": "nobody fought for it",
    "no final-round attackers": "no attacker was left for the last round",
    "final round empty": "nobody fought the last round",
    "militia held": "its militia held it and it had no main defender",
}


# ---- names ----------------------------------------------------------------------------------


def special_title(name: str) -> str:
    """'slaverevolt' -> 'Slave Revolt'."""
    return SPECIAL_TITLES.get(name, name.capitalize())


def who(p: int, you: int | None = None) -> str:
    if p < 0:
        return "nobody"
    return f"p{p} (you)" if p == you else f"p{p}"


def players(ps: Sequence[int], you: int | None = None) -> str:
    return ", ".join(who(p, you) for p in ps) or "nobody"


def city(name_or_index: str | int) -> str:
    """A city by name or index (Persia included), capitalised."""
    if isinstance(name_or_index, int):
        return D.MILITARY_CITY_NAMES[name_or_index].capitalize()
    return name_or_index.capitalize()


def counter(name: str, strength: bool = True) -> str:
    """'sparta-H3' -> 'Sparta hoplite 3' (without the strength: 'Sparta hoplite')."""
    home, rest = name.split("-")
    return f"{city(home)} {UNIT_WORDS[rest[0]]}" + (f" {rest[1:]}" if strength else "")


def class_words(klass: int, strength: bool = True) -> str:
    return counter(D.class_name(klass), strength)


def influence_tile(name: str) -> str:
    """'sparta-plain' -> 'Sparta 2-cube tile'; 'any-any' -> 'Any City tile'."""
    colour, kind = name.split("-")
    if kind == "any":
        return "Any City tile"
    return f"{city(colour)} {KIND_WORDS[kind]} tile"


def location(game: Game, slot: int) -> str:
    """'Pylos (location 3)' for the tile in display slot ``slot``."""
    return f"{D.LOCATION_TILES[game.loc_display[slot]].name.capitalize()} (location {slot + 1})"


def _a(word: str) -> str:
    return ("an " if word[:1] in "AEIOUaeiou" else "a ") + word


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%"


# ---- actions ---------------------------------------------------------------------------------


def describe_action(game: Game, action: int, viewer: int | None = None) -> str:
    """The choice ``action`` of the player to act in ``game``, as an order in words ("propose
    p1 as alpha candidate in Argos"), told as ``viewer`` (a seat, or None: the public) may
    know it. Raises ``ValueError`` for an id outside the action space."""
    if type(action) is not int or not 0 <= action < A.NUM_ACTIONS:
        raise ValueError(f"action must be an id in 0..{A.NUM_ACTIONS - 1}, got {action!r}")
    kind, a1, a2, a3 = A.decode(action)
    return _ACTIONS[kind](game, a1, a2, a3, viewer)


def _seat(game: Game, offset: int, viewer: int | None) -> str:
    if offset >= game.n:
        return f"seat +{offset} (not in this game)"
    return who((game.current + offset) % game.n, viewer)


def _propose(g: Game, c: int, off: int, _a3: int, v: int | None) -> str:
    rank = "alpha" if g.cand[c * 2] < 0 else "beta"
    text = f"propose {_seat(g, off, v)} as {rank} candidate in {city(c)}"
    return ("use the candidate tile: " + text) if g.phase == Phase.CANDIDATE_TILE else text


def _assassinate(g: Game, c: int, target: int, _a3: int, v: int | None) -> str:
    if target in (A.ASSASSIN_ALPHA, A.ASSASSIN_BETA):
        rank = "alpha" if target == A.ASSASSIN_ALPHA else "beta"
        holder = g.cand[c * 2 + (target == A.ASSASSIN_BETA)]
        whose = f" ({who(holder, v)})" if holder >= 0 else ""
        return f"assassinate the {rank} candidate{whose} in {city(c)}"
    return f"assassinate a cube of {_seat(g, target, v)} in {city(c)}"


def _alkibiades(g: Game, c: int, off: int, _a3: int, v: int | None) -> str:
    cube = f"a cube of {_seat(g, off, v)} out of {city(c)}"
    if g.phase == Phase.ALKIBIADES_CUBE:
        return f"Alkibiades' second cube: move {cube}"
    return f"play Alkibiades: move {cube} (then a second cube)"


def _take_tile(g: Game, slot: int, _a2: int, _a3: int, _v: int | None) -> str:
    tile = g.display[slot]
    what = f"the {influence_tile(D.influence_name(tile))}" if tile >= 0 else "an empty slot"
    return f"take {what} (display slot {slot + 1})"


def _dead_pool(g: Game, unit: int, _a2: int, _a3: int, _v: int | None) -> str:
    queue, index = g.dp_queue, g.dp_index
    where = f" from the dead pool of {city(queue[index + 1])}" if index + 1 < len(queue) else ""
    return f"recover {('a hoplite', 'a trireme')[unit]}{where}"


def _place(g: Game, klass: int, slot: int, side: int, v: int | None) -> str:
    home = D.CLASS_CITY[klass]
    visible = v is not None and known_cities(g, v) >> home & 1
    return (
        f"place {_a(class_words(klass, bool(visible)))} to {A.SIDE_NAMES[side]} {location(g, slot)}"
    )


def _spend(g: Game, c: int, _a2: int, _a3: int, _v: int | None) -> str:
    return f"spend a cube in {city(c)} to commit up to 2 more counters"


def _slave_revolt(g: Game, source: int, _a2: int, _a3: int, _v: int | None) -> str:
    where = "Sparta's leader's hand" if source == 0 else location(g, source - 1)
    return f"play Slave Revolt: remove a Spartan hoplite from {where}"


def _permission(grant: bool) -> Callable[[Game, int, int, int, int | None], str]:
    def text(g: Game, _a1: int, _a2: int, _a3: int, v: int | None) -> str:
        verb = "let" if grant else "refuse to let"
        if not g.pending:
            return f"{verb} the asking player defend"
        klass, slot, _side = g.pending
        force = _a(class_words(klass, strength=False))
        return f"{verb} {who(g.step_player, v)} defend {location(g, slot)} with {force}"

    return text


def _round_special(g: Game, double: bool) -> str:
    """The battle special a choice plays: the round's type tells which (D.5-D.8), so the
    name is public as soon as the choice is made."""
    unit = D.LOCATION_TILES[g.loc_display[g.b_slot]].rounds[g.b_round]
    return special_title(D.SPECIAL_NAMES[D.BATTLE_SPECIALS_FOR_TYPE[unit][0 if double else 1]])


def _battle_double(g: Game, _a1: int, _a2: int, _a3: int, _v: int | None) -> str:
    name = _round_special(g, True)
    home = "Spartan hoplites" if name == "Brasidas" else "Athenian triremes"
    return f"play {name}: {home} count double this round"


def _battle_token(g: Game, side: int, _a2: int, _a3: int, _v: int | None) -> str:
    return f"play {_round_special(g, False)}: a token for the {SIDE_WORDS[side]} this round"


def _casualty(g: Game, x: int, _a2: int, _a3: int, _v: int | None) -> str:
    klass = next((k for k in g.b_cas if D.CLASS_CITY[k] == x), -1)
    lost = class_words(klass) if klass >= 0 else f"{city(x)} counter"
    return f"lose the {lost} (one of the tied weakest)"


def _fixed(text: str) -> Callable[[Game, int, int, int, int | None], str]:
    return lambda g, a1, a2, a3, v: text


_ACTIONS: dict[str, Callable[[Game, int, int, int, int | None], str]] = {
    "SETUP_CUBE": lambda g, c, a2, a3, v: f"put a setup cube in {city(c)}",
    "TAKE_TILE": _take_tile,
    "PLAY_PERIKLES": _fixed("play Perikles: 2 of your cubes to Athens"),
    "PLAY_PLAGUE": lambda g, c, a2, a3, v: (
        f"play Plague on {city(c)}: every player loses half his cubes there"
    ),
    "ALKIBIADES_CUBE": _alkibiades,
    "ALKIBIADES_DEST": lambda g, c, a2, a3, v: f"move both Alkibiades cubes to {city(c)}",
    "END_PICK": _fixed("play no special tile now"),
    "ANY_CITY": lambda g, c, a2, a3, v: f"put the Any City tile's cube in {city(c)}",
    "PROPOSE": _propose,
    "ASSASSINATE": _assassinate,
    "SPARTA_FIRST": lambda g, off, a2, a3, v: f"let {_seat(g, off, v)} commit forces first",
    "DEAD_POOL": _dead_pool,
    "PLACE": _place,
    "SPEND_CUBE": _spend,
    "SLAVE_REVOLT": _slave_revolt,
    "END_STEP": _fixed("end my commit step"),
    "GRANT": _permission(True),
    "DENY": _permission(False),
    "BATTLE_PASS": _fixed("pass: play no battle special"),
    "BATTLE_DOUBLE": _battle_double,
    "BATTLE_TOKEN": _battle_token,
    "CASUALTY": _casualty,
}


# ---- events ----------------------------------------------------------------------------------


class _Context:
    """What a reader of the log remembers: the locations on display (slot order) and the
    dice round being fought (targets and tokens), so later events can be explained."""

    def __init__(self) -> None:
        self.locations: list[str] = []
        self.needs = (0, 0)
        self.tokens = [0, 0]
        self.rolloff = False

    def where(self, slot: int) -> str:
        if 0 <= slot < len(self.locations):
            return f"{self.locations[slot].capitalize()} (location {slot + 1})"
        return f"location {slot + 1}"


def describe_event(event: Sequence[Any], you: int | None = None) -> str:
    """One public event in words (``you``: the reader's seat, marked '(you)'). Alone, a dice
    roll cannot name its targets: prefer ``describe_events`` for a log."""
    return _event_text(event, you, _Context())


def describe_events(
    events: Sequence[Sequence[Any]], you: int | None = None, start: int = 0
) -> list[str]:
    """``events[start:]`` in words, each explained with what the events before it told
    (the location names, the dice round's targets and tokens)."""
    context = _Context()
    out = []
    for i, event in enumerate(events):
        text = _event_text(event, you, context)
        if i >= start:
            out.append(text)
    return out


def _event_text(event: Sequence[Any], you: int | None, ctx: _Context) -> str:
    kind, args = event[0], list(event[1:])
    describe = _EVENTS.get(kind)
    if describe is None:  # an event kind this module does not know yet: still readable
        return f"{str(kind).replace('_', ' ')}: " + ", ".join(str(x) for x in args)
    return describe(args, lambda p: who(p, you), you, ctx)


def _revealed(a: list[Any]) -> str:
    """The counters of a location turned face up, per side, with each side's strength per
    type (the rounds are fought per type, C.3)."""
    parts = []
    for side, side_name in (("attack", "attack"), ("defend", "defence")):
        mine = [(name, box, n) for s, box, name, n in a if s == side]
        if not mine:
            continue
        listed = ", ".join(
            counter(name) + (f" x{n}" if n > 1 else "") + (" (allied)" if box == "allied" else "")
            for name, box, n in mine
        )
        totals = []
        for t in ("H", "T"):
            of_type = [(name, n) for name, _box, n in mine if name.split("-")[1][0] == t]
            if of_type:
                total = sum(int(name[-1]) * n for name, n in of_type)
                totals.append(f"{UNIT_WORDS[t]}s {total}")
        parts.append(f"{side_name} {listed} (strength: {', '.join(totals)})")
    return "; ".join(parts) or "no counters"


def _dice_round(a: list[Any], ctx: _Context) -> str:
    slot, unit, att, dfc, column, ta, td = a
    index = D.CRT_COLUMNS.index(column)
    need_a, need_d = D.CRT_ATTACKER_NEEDS[index], D.CRT_DEFENDER_NEEDS[index]
    ctx.needs, ctx.tokens, ctx.rolloff = (need_a, need_d), [ta, td], False
    chance_a = D.TWO_D6_AT_LEAST[need_a] / 36
    chance_d = D.TWO_D6_AT_LEAST[need_d] / 36
    start = ""
    if ta or td:
        start = f"; tokens at the start: attacker {ta}, defender {td}"
    return (
        f"{UNIT_WORDS[unit].capitalize()} round at {ctx.where(slot)}: attack {att} against "
        f"defence {dfc}, column {column}: the attacker hits on {need_a}+ ({_pct(chance_a)}), "
        f"the defender on {need_d}+ ({_pct(chance_d)}) with two dice; each hit is a token, "
        f"2 tokens win{start}"
    )


def _roll(a: list[Any], w: Callable[[int], str], ctx: _Context) -> str:
    slot, ra, rd = a
    need_a, need_d = ctx.needs
    if not need_a:
        return f"Dice at {ctx.where(slot)}: attacker rolls {ra}, defender {rd}"
    hit_a, hit_d = ra >= need_a, rd >= need_d
    said = (
        f"attacker rolls {ra} (needs {need_a}: {'hit' if hit_a else 'miss'}), "
        f"defender {rd} (needs {need_d}: {'hit' if hit_d else 'miss'})"
    )
    if ctx.rolloff:
        if hit_a != hit_d:
            return f"Roll-off at {ctx.where(slot)}: {said}: the {SIDE_WORDS[hit_d]} wins the round"
        return f"Roll-off at {ctx.where(slot)}: {said}: no decision, roll again"
    t = ctx.tokens
    t[0] = min(2, t[0] + hit_a)
    t[1] = min(2, t[1] + hit_d)
    after = f"tokens attacker {t[0]}, defender {t[1]}"
    if t == [2, 2]:
        ctx.rolloff = True
        after += ": both have 2, a roll-off decides (first roll where only one side hits)"
    elif 2 in t:
        after += f": the {SIDE_WORDS[t.index(2)]} wins the round"
    return f"Dice at {ctx.where(slot)}: {said}; {after}"


def _round(a: list[Any], ctx: _Context) -> str:
    slot, unit = a[0], UNIT_WORDS[a[1]].capitalize()
    ctx.needs = (0, 0)
    if a[2] == "empty":
        return f"{unit} round at {ctx.where(slot)}: nobody fights it"
    side = SIDE_WORDS[a[2] != "attack"]
    how = "on the dice" if a[3] == "dice" else "without dice (the other side has none)"
    return f"{unit} round at {ctx.where(slot)} won by the {side} {how}"


def _claim(a: list[Any], w: Callable[[int], str], you: int | None, ctx: _Context) -> str:
    slot, name, winners, attackers = a
    vp = D.LOCATION_TILES[D.LOCATION_IDS[name]].vp
    how = "the attackers took it" if attackers else "the defenders held it"
    return f"{ctx.where(slot)} goes to {players(winners, you)} for {vp} VP: {how}"


def _locations(ctx: _Context, names: list[str]) -> str:
    ctx.locations = list(names)
    return ", ".join(n.capitalize() for n in names)


def _special(a: list[Any], w: Callable[[int], str], ctx: _Context) -> str:
    name = special_title(a[1])
    text = f"{w(a[0])} plays {name}"
    if len(a) > 3:
        return text + f" at {ctx.where(a[2])}: the {SIDE_WORDS[a[3] != 'attack']} gets a token"
    if len(a) > 2:
        home = "Spartan hoplites" if a[1] == "brasidas" else "Athenian triremes"
        return text + f" at {ctx.where(a[2])}: {home} count double this round"
    return text + f" ({SPECIAL_EFFECTS.get(a[1], 'a special tile')})"


def _slave_revolt_event(a: list[Any], w: Callable[[int], str], ctx: _Context) -> str:
    where = a[1]
    if where == "pool":
        place = "Sparta's leader's hand"
    else:
        place = ctx.where(int(str(where).split()[-1]) - 1)
    return f"Slave Revolt by {w(a[0])} removes {_a(counter(a[2]))} from {place}"


_Who = Callable[[int], str]
_EVENTS: dict[str, Callable[[list[Any], _Who, int | None, _Context], str]] = {
    "setup": lambda a, w, y, c: (
        f"A {a[0]}-player game begins; {w(a[1])} starts. Locations: {_locations(c, a[2])}"
    ),
    "new_turn": lambda a, w, y, c: (
        f"Turn {a[0]} begins; {w(a[1])} starts. Locations: {_locations(c, a[2])}"
    ),
    "phase": lambda a, w, y, c: f"Turn {a[0]}: {a[1]} phase, {w(a[2])} first",
    "cubes": lambda a, w, y, c: (
        f"{w(a[0])} adds {a[2]} cube{'s' if a[2] != 1 else ''} to {city(a[1])}"
    ),
    "take_tile": lambda a, w, y, c: f"{w(a[0])} takes the {influence_tile(a[1])}",
    "pick_skipped": lambda a, w, y, c: f"{w(a[0])} has no tile to take",
    "action_skipped": lambda a, w, y, c: (
        f"{w(a[0])}'s {KIND_WORDS.get(a[1], a[1])} tile has no effect here"
    ),
    "special": lambda a, w, y, c: _special(a, w, c),
    "plague_loss": lambda a, w, y, c: (
        f"Plague: {w(a[0])} loses {a[2]} cube{'s' if a[2] != 1 else ''} in {city(a[1])}"
    ),
    "alkibiades_move": lambda a, w, y, c: (
        f"Alkibiades moves a cube of {w(a[0])} from {city(a[1])} to {city(a[2])}"
    ),
    "propose": lambda a, w, y, c: (
        f"{w(a[0])} proposes {w(a[2])} as {'alpha' if a[3] == 'a' else 'beta'} "
        f"candidate in {city(a[1])}"
    ),
    "propose_pass": lambda a, w, y, c: f"{w(a[0])} has no proposal to make",
    "assassinate": lambda a, w, y, c: (
        f"{w(a[0])} assassinates "
        + (f"a cube of {w(a[2])}" if a[3] == "main" else f"the {a[3]} candidate {w(a[2])}")
        + f" in {city(a[1])}"
    ),
    "election": lambda a, w, y, c: (
        f"{city(a[0])} elects {w(a[1])} as leader"
        + (f", who returns {a[2]} cube{'s' if a[2] != 1 else ''} to win" if a[2] else "")
        if a[1] >= 0
        else f"{city(a[0])} elects no leader (no candidate)"
    ),
    "persian_leaders": lambda a, w, y, c: (
        f"Persian leaders (no city led): {players(a[0], y)}"
        if a[0]
        else "No Persian leaders: every player leads a city"
    ),
    "sparta_first": lambda a, w, y, c: (
        f"Sparta's leader {w(a[0])} lets {w(a[1])} commit forces first"
    ),
    "recover": lambda a, w, y, c: (
        f"{w(a[0])} recovers {_a(counter(a[1], strength=False))} from the dead pool"
    ),
    "commit_nothing": lambda a, w, y, c: f"{w(a[0])} has nothing to commit",
    "end_step": lambda a, w, y, c: f"{w(a[0])} ends the commit step",
    "spend_cube": lambda a, w, y, c: (
        f"{w(a[0])} spends a cube in {city(a[1])} to commit more counters"
    ),
    "ask_permission": lambda a, w, y, c: (
        f"{w(a[0])} asks permission to defend {c.where(a[2])} with {city(a[1])}"
    ),
    "permission": lambda a, w, y, c: (
        f"{w(a[0])} {'grants' if a[3] else 'refuses'} {city(a[1])} permission to defend "
        f"{c.where(a[2])}"
    ),
    "place": lambda a, w, y, c: (
        f"{w(a[0])} places {_a(city(a[1]))} {UNIT_WORDS[a[2]]} face down to {a[4]} "
        f"{c.where(a[3])} ({a[5]} force)"
    ),
    "slave_revolt": lambda a, w, y, c: _slave_revolt_event(a, w, c),
    "battle": lambda a, w, y, c: (
        f"Battle at {c.where(a[0])}: counters turned face up: {_revealed(a[2])}"
    ),
    "dice_round": lambda a, w, y, c: _dice_round(a, c),
    "roll": lambda a, w, y, c: _roll(a, w, c),
    "round": lambda a, w, y, c: _round(a, c),
    "casualty": lambda a, w, y, c: (
        f"The {SIDE_WORDS[a[1] != 'attack']} loses {_a(counter(a[2]))} at {c.where(a[0])}"
    ),
    "claim": lambda a, w, y, c: _claim(a, w, y, c),
    "unclaimed": lambda a, w, y, c: (
        f"{c.where(a[0])} stays unclaimed: {_UNCLAIMED.get(a[2], a[2])}"
    ),
    "end_turn": lambda a, w, y, c: (
        f"End of turn {a[0]}; scores " + ", ".join(f"{w(p)} {s}" for p, s in enumerate(a[1]))
    ),
    "game_over": lambda a, w, y, c: (
        "Game over; scores "
        + ", ".join(f"{w(p)} {s}" for p, s in enumerate(a[0]))
        + f"; winner: {players(a[1], y)}"
    ),
}
EVENT_KINDS = frozenset(_EVENTS)


# ---- battle odds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BattleOdds:
    """The battle being fought as the engine's exact odds see it (docs/rules.md C.5-C.6).
    Probabilities are the attacker's; ``options`` gives, for each of the viewer's legal
    choices, (action, words, P(attacker wins this round), P(attacker takes the location))."""

    slot: int
    where: str
    unit: str
    attack: int
    defence: int
    column: str
    need_attack: int
    need_defence: int
    tokens: tuple[int, int]
    p_round: float
    p_location: float
    options: tuple[tuple[int, str, float, float], ...] = ()


def _side_totals(g: Game, slot: int, doubled: int = -1) -> tuple[list[int], list[int]]:
    """Counters and printed strengths per ``side * 2 + type`` at ``slot`` (``doubled``: a
    city whose counters count twice); the location being fought is face up (C.2)."""
    counts, strengths = [0] * 4, [0] * 4
    for side in (0, 1):
        for box in (0, 1):
            base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
            for k in D.EXISTING_CLASSES:
                n = g.at[base + k]
                if n:
                    i = side * 2 + D.CLASS_TYPE[k]
                    counts[i] += n
                    strengths[i] += (
                        n * D.CLASS_STRENGTH[k] * (2 if D.CLASS_CITY[k] == doubled else 1)
                    )
    return counts, strengths


def _location_chance(
    g: Game, tokens: tuple[int, int], double: bool
) -> tuple[int, int, float, float]:
    """(attack, defence, P(attacker wins this round), P(attacker takes the location))."""
    slot, index = g.b_slot, g.b_round
    tile = D.LOCATION_TILES[g.loc_display[slot]]
    unit = tile.rounds[index]
    counts, strengths = _side_totals(g, slot, doubled_city(unit) if double else -1)
    [(_t, _kind, att, dfc)] = location_rounds(tile, counts, strengths, index)[:1]
    p = round_win_probability(max(1, att), max(1, dfc), min(tokens[0], 1), min(tokens[1], 1))
    rest = list(odds_inputs(location_rounds(tile, counts, strengths, index + 1)))
    if not rest:
        return att, dfc, p, p
    whole = p * battle_win_probability(rest, 1, 0) + (1 - p) * battle_win_probability(rest, 0, 1)
    return att, dfc, p, whole


def battle_odds(game: Game, viewer: int | None = None) -> BattleOdds | None:
    """The odds before a battle-special decision (phase ``BATTLE_SPECIAL``), else None. The
    options are the viewer's own legal choices when he is the one to decide."""
    g = game
    if g.phase != Phase.BATTLE_SPECIAL or g.b_round < 0:
        return None
    slot = g.b_slot
    tile = D.LOCATION_TILES[g.loc_display[slot]]
    unit = tile.rounds[g.b_round]
    counts, _ = _side_totals(g, slot)
    if location_rounds(tile, counts, [1] * 4, g.b_round)[0][1] != ROUND_DICE:
        return None
    tokens = (int(g.b_tokens[0]), int(g.b_tokens[1]))
    att, dfc, p, whole = _location_chance(g, tokens, bool(g.b_double))
    column = D.crt_column(max(1, att), max(1, dfc))
    options = []
    if viewer is not None and viewer == g.current:
        for action in g.legal_actions():
            if action == A.BATTLE_DOUBLE:
                _a_, _d, pr, pl = _location_chance(g, tokens, True)
            elif action in (A.BATTLE_TOKEN, A.BATTLE_TOKEN + 1):
                side = action - A.BATTLE_TOKEN
                trial = (tokens[0] or side == 0, tokens[1] or side == 1)
                _a_, _d, pr, pl = _location_chance(
                    g, (int(trial[0]), int(trial[1])), bool(g.b_double)
                )
            else:
                pr, pl = p, whole
            options.append((action, describe_action(g, action, viewer), pr, pl))
    return BattleOdds(
        slot,
        location(g, slot),
        UNIT_WORDS[D.UNIT_TYPE_NAMES[unit]],
        att,
        dfc,
        D.CRT_COLUMNS[column],
        D.CRT_ATTACKER_NEEDS[column],
        D.CRT_DEFENDER_NEEDS[column],
        tokens,
        p,
        whole,
        tuple(options),
    )


def battle_summary(game: Game, viewer: int | None = None) -> str | None:
    """``battle_odds`` in words (a few lines), or None when no battle decision is asked."""
    odds = battle_odds(game, viewer)
    if odds is None:
        return None
    g = game
    mains = [g.main[odds.slot * 2 + s] for s in (0, 1)]
    sides = f"attacker {who(mains[0], viewer)}, defender {who(mains[1], viewer)}"
    lines = [
        f"Battle at {odds.where}, {odds.unit} round ({sides}): attack {odds.attack} against "
        f"defence {odds.defence}, column {odds.column}: the attacker hits on "
        f"{odds.need_attack}+, the defender on {odds.need_defence}+ (two dice); tokens now "
        f"attacker {odds.tokens[0]}, defender {odds.tokens[1]}",
        f"The attacker wins this round {_pct(odds.p_round)} and takes the location "
        f"{_pct(odds.p_location)} of the time (exact odds, no more specials)",
    ]
    for _action, text, pr, pl in odds.options:
        lines.append(
            f"  {text}: the attacker then wins the round {_pct(pr)}, the location {_pct(pl)}"
        )
    return "\n".join(lines)
