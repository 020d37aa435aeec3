"""Static component data (docs/rules.md section A). Built once at import; never mutated.

Everything the rules call a "number printed on a component" lives here and nowhere else:
cities and statue tracks (A.2), Greek and Persian military counters (A.3, A.4),
influence tiles (A.5), location tiles (A.6) and special tiles (A.7).
"""

from __future__ import annotations

from typing import NamedTuple

# --- Cities (A.2). Index order is fixed and used everywhere (actions, observations). ---
CITY_NAMES = ("athens", "sparta", "argos", "corinth", "thebes", "megara")
ATHENS, SPARTA, ARGOS, CORINTH, THEBES, MEGARA = range(6)
PERSIA = 6  # pseudo-city for military purposes only (docs/rules.md glossary)
NUM_CITIES = 6
NUM_MILITARY_CITIES = 7  # six cities + Persia
MILITARY_CITY_NAMES = CITY_NAMES + ("persia",)
BROWN = 6  # colour index of the "Any City" influence tiles (A.5)
COLOUR_NAMES = CITY_NAMES + ("any",)

MAX_PLAYERS = 5
MIN_PLAYERS = 3
CUBES_PER_PLAYER = 30  # B.12


def city_player_index(city: int, player: int) -> int:
    """Index of (city, player) in the state's per-city, per-player lists (``cubes``,
    ``statues``): ``city * MAX_PLAYERS + player``."""
    return city * MAX_PLAYERS + player

NUM_TURNS = 3

# Statue value after 0, 1, 2, ... defeats; value is 0 once every square is covered (A.2, E2).
STATUE_TRACKS: tuple[tuple[int, ...], ...] = (
    (5, 5, 3, 1),  # athens
    (5, 4, 3, 2),  # sparta
    (6, 3),  # argos
    (9, 7, 5, 3),  # corinth
    (7, 5, 3),  # thebes
    (6, 3),  # megara
)


def statue_value(city: int, defeats: int) -> int:
    """Current value of one statue in ``city`` after ``defeats`` defeats (A.2, E2, E3)."""
    track = STATUE_TRACKS[city]
    return track[defeats] if defeats < len(track) else 0


# Tiles taken per player per turn by player count (A.1).
TILES_PER_PLAYER = {3: 5, 4: 5, 5: 4}

# --- Military counters (A.3, A.4). ---
HOPLITE, TRIREME = 0, 1
UNIT_TYPE_NAMES = ("H", "T")
MAX_STRENGTH = 4
# A counter *class* is (city, type, strength); identical counters are interchangeable (E7).
# class id = city * 8 + type * 4 + (strength - 1), city in 0..6 (6 = Persia).
NUM_CLASSES = NUM_MILITARY_CITIES * 2 * MAX_STRENGTH  # 56

# Number of counters per strength 1..4, per city and type (A.3); Persia from A.4.
_COUNTS: dict[int, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    ATHENS: ((2, 2, 2, 0), (2, 2, 2, 2)),
    SPARTA: ((2, 3, 3, 2), (1, 2, 1, 0)),
    ARGOS: ((2, 2, 2, 0), (1, 1, 1, 0)),
    CORINTH: ((1, 3, 1, 0), (2, 2, 1, 0)),
    THEBES: ((2, 3, 2, 0), (1, 1, 0, 0)),
    MEGARA: ((1, 1, 0, 0), (1, 1, 1, 0)),
    PERSIA: ((0, 2, 4, 0), (0, 2, 2, 0)),
}


def class_id(city: int, unit_type: int, strength: int) -> int:
    return city * 8 + unit_type * 4 + (strength - 1)


CLASS_CITY = tuple(k // 8 for k in range(NUM_CLASSES))
CLASS_TYPE = tuple((k // 4) % 2 for k in range(NUM_CLASSES))
CLASS_STRENGTH = tuple(k % 4 + 1 for k in range(NUM_CLASSES))
INITIAL_COUNTERS = tuple(
    _COUNTS[CLASS_CITY[k]][CLASS_TYPE[k]][CLASS_STRENGTH[k] - 1] for k in range(NUM_CLASSES)
)
# Classes of one (city, type), lowest strength first: used for casualties and dead pool.
CLASSES_OF = tuple(
    tuple(tuple(class_id(c, t, s) for s in range(1, 5)) for t in (HOPLITE, TRIREME))
    for c in range(NUM_MILITARY_CITIES)
)
CLASSES_OF_CITY = tuple(tuple(range(c * 8, c * 8 + 8)) for c in range(NUM_MILITARY_CITIES))
EXISTING_CLASSES = tuple(k for k in range(NUM_CLASSES) if INITIAL_COUNTERS[k] > 0)


def class_name(k: int) -> str:
    return (
        f"{MILITARY_CITY_NAMES[CLASS_CITY[k]]}-{UNIT_TYPE_NAMES[CLASS_TYPE[k]]}{CLASS_STRENGTH[k]}"
    )


# --- Influence tiles (A.5). ---
PLAIN, CANDIDATE, ASSASSIN, ANY_CITY = range(4)
INFLUENCE_KIND_NAMES = ("plain", "candidate", "assassin", "any")


class InfluenceTile(NamedTuple):
    colour: int  # city index, or BROWN for "Any City"
    kind: int
    shards: int  # cubes placed in phase 2 and commit stage in phase 5


_INFLUENCE_MIX = {  # city: (plain 2-shard, candidate, assassin)
    ATHENS: (3, 2, 1),
    SPARTA: (3, 2, 1),
    ARGOS: (2, 2, 1),
    CORINTH: (2, 2, 1),
    THEBES: (2, 2, 1),
    MEGARA: (2, 1, 1),
}


def _build_influence() -> tuple[InfluenceTile, ...]:
    tiles: list[InfluenceTile] = []
    for city in range(NUM_CITIES):
        plain, cand, assn = _INFLUENCE_MIX[city]
        tiles += [InfluenceTile(city, PLAIN, 2)] * plain
        tiles += [InfluenceTile(city, CANDIDATE, 1)] * cand
        tiles += [InfluenceTile(city, ASSASSIN, 1)] * assn
    tiles += [InfluenceTile(BROWN, ANY_CITY, 1)] * 5
    return tuple(tiles)


INFLUENCE_TILES = _build_influence()
NUM_INFLUENCE_TILES = len(INFLUENCE_TILES)  # 36
INFLUENCE_DISPLAY_SIZE = 10


def influence_name(tile: int) -> str:
    t = INFLUENCE_TILES[tile]
    return f"{COLOUR_NAMES[t.colour]}-{INFLUENCE_KIND_NAMES[t.kind]}"


# --- Location tiles (A.6). ---
ORDER_TH, ORDER_HT, ORDER_H = 0, 1, 2
ROUND_TYPES = ((TRIREME, HOPLITE), (HOPLITE, TRIREME), (HOPLITE,))


class LocationTile(NamedTuple):
    name: str
    city: int  # controlling city O
    vp: int
    order: int
    militia: tuple[int, int]  # intrinsic defenders (H, T)
    rebels: tuple[int, int]  # intrinsic attackers (H, T)

    @property
    def rounds(self) -> tuple[int, ...]:
        return ROUND_TYPES[self.order]


LOCATION_TILES: tuple[LocationTile, ...] = (
    LocationTile("amphipolis", ATHENS, 6, ORDER_TH, (1, 0), (0, 0)),
    LocationTile("lesbos", ATHENS, 4, ORDER_HT, (0, 0), (1, 1)),
    LocationTile("plataea", ATHENS, 4, ORDER_H, (1, 0), (0, 0)),
    LocationTile("naupactus", ATHENS, 4, ORDER_TH, (0, 0), (0, 0)),
    LocationTile("potidea", ATHENS, 5, ORDER_TH, (0, 0), (1, 0)),
    LocationTile("acarnania", ATHENS, 3, ORDER_TH, (1, 0), (0, 0)),
    LocationTile("attica", ATHENS, 4, ORDER_H, (0, 0), (0, 0)),
    LocationTile("melos", SPARTA, 3, ORDER_HT, (1, 1), (0, 0)),
    LocationTile("epidaurus", SPARTA, 4, ORDER_TH, (0, 0), (0, 0)),
    LocationTile("pylos", SPARTA, 4, ORDER_TH, (0, 0), (0, 0)),
    LocationTile("sicily", SPARTA, 7, ORDER_TH, (1, 1), (0, 0)),
    LocationTile("cephallenia", SPARTA, 4, ORDER_HT, (0, 0), (0, 0)),
    LocationTile("cythera", SPARTA, 3, ORDER_HT, (0, 0), (0, 0)),
    LocationTile("spartolus", SPARTA, 4, ORDER_TH, (0, 0), (1, 0)),
    LocationTile("megara", MEGARA, 5, ORDER_TH, (0, 0), (0, 0)),
    LocationTile("mantinea", ARGOS, 5, ORDER_H, (0, 0), (0, 0)),
    LocationTile("delium", THEBES, 5, ORDER_TH, (0, 0), (0, 0)),
    LocationTile("aetolia", THEBES, 3, ORDER_TH, (0, 0), (0, 0)),
    LocationTile("corcyra", CORINTH, 3, ORDER_HT, (0, 0), (1, 1)),
    LocationTile("leucas", CORINTH, 4, ORDER_HT, (0, 0), (0, 0)),
    LocationTile("solygeia", CORINTH, 4, ORDER_HT, (0, 0), (0, 0)),
)
NUM_LOCATION_TILES = len(LOCATION_TILES)  # 21
LOCATION_SLOTS = 7
LOCATION_IDS = {t.name: i for i, t in enumerate(LOCATION_TILES)}

# --- Special tiles (A.7). ---
SPECIAL_NAMES = (
    "alkibiades",
    "brasidas",
    "perikles",
    "persianfleet",
    "phormio",
    "plague",
    "slaverevolt",
    "thessalianallies",
)
ALKIBIADES, BRASIDAS, PERIKLES, PERSIAN_FLEET, PHORMIO, PLAGUE, SLAVE_REVOLT, THESSALIAN = range(8)
NUM_SPECIALS = 8
INFLUENCE_SPECIALS = frozenset((PERIKLES, PLAGUE, ALKIBIADES))  # E20
# Battle specials usable before a dice round of each type (D.5-D.8).
BATTLE_SPECIALS_FOR_TYPE = ((BRASIDAS, THESSALIAN), (PHORMIO, PERSIAN_FLEET))

# CRT (C.5): columns in order, with the 2d6 number each side needs.
CRT_COLUMNS = ("1:2", "-2", "1:1", "+2", "2:1", "3:1")
CRT_ATTACKER_NEEDS = (10, 9, 8, 7, 6, 5)
CRT_DEFENDER_NEEDS = (5, 6, 7, 8, 9, 10)


def crt_column(attack: int, defence: int) -> int:
    """Index into CRT_COLUMNS; the stronger side takes its best fitting column (C.5)."""
    if attack >= defence:
        if attack >= 3 * defence:
            return 5
        if attack >= 2 * defence:
            return 4
        if attack >= defence + 2:
            return 3
        return 2
    if defence >= 2 * attack:
        return 0
    if defence >= attack + 2:
        return 1
    return 2


# P(2d6 >= n) * 36, for n in 0..13.
TWO_D6_AT_LEAST = tuple(
    sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= n) for n in range(14)
)
