"""The flat action space: one codec for every decision (docs/rules.md Appendix 1).

Action ids are contiguous ranges, fixed for 3-5 players, each with one meaning in every
phase (see ``docs/actions.md``). Arguments that name a player are **seat offsets relative
to the acting player** (0 = the actor, 1 = the player to his left, ...), so one policy can
play every seat and every player count. Offsets >= num_players are never legal.

Ranges (``RANGES`` is the source of truth; the docs table is generated from it):

=================  =====  ==========================================================
name               size   argument(s)
=================  =====  ==========================================================
SETUP_CUBE         6      city for the setup cube (B.1 step 9)
TAKE_TILE          10     influence display slot (B.4 step 2)
PLAY_PERIKLES      1      play Perikles (D.1)
PLAY_PLAGUE        6      play Plague on a city (D.2)
ALKIBIADES_CUBE    30     (city, owner offset): one cube to move (D.3); the first one
                          also plays the tile
ALKIBIADES_DEST    6      destination city of both cubes (D.3, E18)
END_PICK           1      decline the after-tile special window (B.4 step 5)
ANY_CITY           6      city for an Any City tile's cube (A.5)
PROPOSE            30     (city, nominee offset) (B.5)
ASSASSINATE        42     (city, target): target 0-4 = a main-area cube of that offset,
                          5 = the alpha candidate, 6 = the beta candidate (B.4, E16)
SPARTA_FIRST       5      offset of the phase-5 first player (B.7.2)
DEAD_POOL          2      recover a hoplite (0) or trireme (1) (B.7.3)
PLACE              784    (counter class, location slot, side 0=attack 1=defend) (B.7.5)
SPEND_CUBE         6      city whose cube pays for extra forces (B.7.5 step 4)
SLAVE_REVOLT       8      source: 0 = Sparta leader's pool, 1-7 = location slot 0-6 (D.4)
END_STEP           1      end the commit step
GRANT              1      grant permission to defend (B.7.8)
DENY               1      deny permission to defend (B.7.8)
BATTLE_PASS        1      pass on a battle special (D.9)
BATTLE_DOUBLE      1      play Brasidas / Phormio (D.5, D.6)
BATTLE_TOKEN       2      play Thessalian Allies / Persian Fleet for side 0=attacker,
                          1=defender (D.7, D.8)
CASUALTY           7      military city that loses the tied lowest counter (C.7)
=================  =====  ==========================================================
"""

from __future__ import annotations

from . import data as D

RANGE_SIZES: tuple[tuple[str, int], ...] = (
    ("SETUP_CUBE", D.NUM_CITIES),
    ("TAKE_TILE", D.INFLUENCE_DISPLAY_SIZE),
    ("PLAY_PERIKLES", 1),
    ("PLAY_PLAGUE", D.NUM_CITIES),
    ("ALKIBIADES_CUBE", D.NUM_CITIES * D.MAX_PLAYERS),
    ("ALKIBIADES_DEST", D.NUM_CITIES),
    ("END_PICK", 1),
    ("ANY_CITY", D.NUM_CITIES),
    ("PROPOSE", D.NUM_CITIES * D.MAX_PLAYERS),
    ("ASSASSINATE", D.NUM_CITIES * (D.MAX_PLAYERS + 2)),
    ("SPARTA_FIRST", D.MAX_PLAYERS),
    ("DEAD_POOL", 2),
    ("PLACE", D.NUM_CLASSES * D.LOCATION_SLOTS * 2),
    ("SPEND_CUBE", D.NUM_CITIES),
    ("SLAVE_REVOLT", 1 + D.LOCATION_SLOTS),
    ("END_STEP", 1),
    ("GRANT", 1),
    ("DENY", 1),
    ("BATTLE_PASS", 1),
    ("BATTLE_DOUBLE", 1),
    ("BATTLE_TOKEN", 2),
    ("CASUALTY", D.NUM_MILITARY_CITIES),
)


def _offsets() -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    start = 0
    for name, size in RANGE_SIZES:
        out[name] = (start, size)
        start += size
    return out


RANGES = _offsets()
NUM_ACTIONS = sum(size for _, size in RANGE_SIZES)

SETUP_CUBE = RANGES["SETUP_CUBE"][0]
TAKE_TILE = RANGES["TAKE_TILE"][0]
PLAY_PERIKLES = RANGES["PLAY_PERIKLES"][0]
PLAY_PLAGUE = RANGES["PLAY_PLAGUE"][0]
ALKIBIADES_CUBE = RANGES["ALKIBIADES_CUBE"][0]
ALKIBIADES_DEST = RANGES["ALKIBIADES_DEST"][0]
END_PICK = RANGES["END_PICK"][0]
ANY_CITY = RANGES["ANY_CITY"][0]
PROPOSE = RANGES["PROPOSE"][0]
ASSASSINATE = RANGES["ASSASSINATE"][0]
SPARTA_FIRST = RANGES["SPARTA_FIRST"][0]
DEAD_POOL = RANGES["DEAD_POOL"][0]
PLACE = RANGES["PLACE"][0]
SPEND_CUBE = RANGES["SPEND_CUBE"][0]
SLAVE_REVOLT = RANGES["SLAVE_REVOLT"][0]
END_STEP = RANGES["END_STEP"][0]
GRANT = RANGES["GRANT"][0]
DENY = RANGES["DENY"][0]
BATTLE_PASS = RANGES["BATTLE_PASS"][0]
BATTLE_DOUBLE = RANGES["BATTLE_DOUBLE"][0]
BATTLE_TOKEN = RANGES["BATTLE_TOKEN"][0]
CASUALTY = RANGES["CASUALTY"][0]

ASSASSIN_ALPHA = D.MAX_PLAYERS  # target index of the alpha candidate
ASSASSIN_BETA = D.MAX_PLAYERS + 1
ASSASSIN_TARGETS = D.MAX_PLAYERS + 2
ATTACK, DEFEND = 0, 1
SIDE_NAMES = ("attack", "defend")

# --- encoders -------------------------------------------------------------------------


def city_player(base: int, city: int, offset: int) -> int:
    return base + city * D.MAX_PLAYERS + offset


def assassinate(city: int, target: int) -> int:
    return ASSASSINATE + city * ASSASSIN_TARGETS + target


def place(klass: int, slot: int, side: int) -> int:
    return PLACE + (klass * D.LOCATION_SLOTS + slot) * 2 + side


# --- decoder tables, built once -----------------------------------------------------------

ACTION_KIND: list[str] = []
ACTION_ARG: list[int] = []  # first argument (city, slot, class, side, ...)
ACTION_ARG2: list[int] = []  # second argument (offset, slot, target) or -1
ACTION_ARG3: list[int] = []  # third argument (side for PLACE) or -1


def _build_tables() -> None:
    for name, size in RANGE_SIZES:
        for i in range(size):
            a1, a2, a3 = i, -1, -1
            if name in ("ALKIBIADES_CUBE", "PROPOSE"):
                a1, a2 = divmod(i, D.MAX_PLAYERS)
            elif name == "ASSASSINATE":
                a1, a2 = divmod(i, ASSASSIN_TARGETS)
            elif name == "PLACE":
                rest, a3 = divmod(i, 2)
                a1, a2 = divmod(rest, D.LOCATION_SLOTS)
            ACTION_KIND.append(name)
            ACTION_ARG.append(a1)
            ACTION_ARG2.append(a2)
            ACTION_ARG3.append(a3)


_build_tables()


def decode(action: int) -> tuple[str, int, int, int]:
    """(range name, arg1, arg2, arg3) of an action id; unused args are -1."""
    return ACTION_KIND[action], ACTION_ARG[action], ACTION_ARG2[action], ACTION_ARG3[action]


def action_to_str(action: int, actor: int | None = None, num_players: int | None = None) -> str:
    """Human-readable, unique per id. With ``actor`` and ``num_players`` given, player offsets
    are also shown as absolute seats (``p2``)."""
    if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        return f"<invalid action {action!r}>"
    kind, a1, a2, a3 = decode(action)

    def who(offset: int) -> str:
        if actor is None or num_players is None:
            return f"+{offset}"
        if offset >= num_players:
            return f"+{offset}(no such seat)"
        return f"+{offset}=p{(actor + offset) % num_players}"

    city = D.CITY_NAMES
    if kind in ("SETUP_CUBE", "PLAY_PLAGUE", "ALKIBIADES_DEST", "ANY_CITY", "SPEND_CUBE"):
        return f"{kind.lower()}({city[a1]})"
    if kind == "TAKE_TILE":
        return f"take_tile(slot {a1 + 1})"
    if kind in ("ALKIBIADES_CUBE", "PROPOSE"):
        return f"{kind.lower()}({city[a1]}, {who(a2)})"
    if kind == "ASSASSINATE":
        target = "alpha" if a2 == ASSASSIN_ALPHA else "beta" if a2 == ASSASSIN_BETA else who(a2)
        return f"assassinate({city[a1]}, {target})"
    if kind == "SPARTA_FIRST":
        return f"sparta_first({who(a1)})"
    if kind == "DEAD_POOL":
        return f"dead_pool({D.UNIT_TYPE_NAMES[a1]})"
    if kind == "PLACE":
        return f"place({D.class_name(a1)}, slot {a2 + 1}, {SIDE_NAMES[a3]})"
    if kind == "SLAVE_REVOLT":
        return "slave_revolt(pool)" if a1 == 0 else f"slave_revolt(slot {a1})"
    if kind == "BATTLE_TOKEN":
        return f"battle_token({('attacker', 'defender')[a1]})"
    if kind == "CASUALTY":
        return f"casualty({D.MILITARY_CITY_NAMES[a1]})"
    return kind.lower()
