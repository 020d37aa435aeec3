"""Component data (docs/rules.md section A) checked against the tables and the A.8 totals.

The expected values are typed in here from docs/rules.md, independently of ``engine/data.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from perikles_env.engine import data as D

CITIES = ("athens", "sparta", "argos", "corinth", "thebes", "megara")

# A.2: statue track, 2-shard, candidate, assassin, total influence tiles, # H, # T.
A2 = {
    "athens": ((5, 5, 3, 1), 3, 2, 1, 6, 6, 8),
    "sparta": ((5, 4, 3, 2), 3, 2, 1, 6, 10, 4),
    "argos": ((6, 3), 2, 2, 1, 5, 6, 3),
    "corinth": ((9, 7, 5, 3), 2, 2, 1, 5, 5, 5),
    "thebes": ((7, 5, 3), 2, 2, 1, 5, 7, 2),
    "megara": ((6, 3), 2, 1, 1, 4, 2, 3),
}

# A.3: H1..H4, T1..T4, ΣH strength, ΣT strength.
A3 = {
    "athens": ((2, 2, 2, 0), (2, 2, 2, 2), 12, 20),
    "sparta": ((2, 3, 3, 2), (1, 2, 1, 0), 25, 8),
    "argos": ((2, 2, 2, 0), (1, 1, 1, 0), 12, 6),
    "corinth": ((1, 3, 1, 0), (2, 2, 1, 0), 10, 9),
    "thebes": ((2, 3, 2, 0), (1, 1, 0, 0), 14, 3),
    "megara": ((1, 1, 0, 0), (1, 1, 1, 0), 3, 6),
}

# A.6: name -> (city, VP, order, intrinsic defenders (H, T), rebels (H, T)).
A6 = {
    "amphipolis": ("athens", 6, "TH", (1, 0), (0, 0)),
    "lesbos": ("athens", 4, "HT", (0, 0), (1, 1)),
    "plataea": ("athens", 4, "H", (1, 0), (0, 0)),
    "naupactus": ("athens", 4, "TH", (0, 0), (0, 0)),
    "potidea": ("athens", 5, "TH", (0, 0), (1, 0)),
    "acarnania": ("athens", 3, "TH", (1, 0), (0, 0)),
    "attica": ("athens", 4, "H", (0, 0), (0, 0)),
    "melos": ("sparta", 3, "HT", (1, 1), (0, 0)),
    "epidaurus": ("sparta", 4, "TH", (0, 0), (0, 0)),
    "pylos": ("sparta", 4, "TH", (0, 0), (0, 0)),
    "sicily": ("sparta", 7, "TH", (1, 1), (0, 0)),
    "cephallenia": ("sparta", 4, "HT", (0, 0), (0, 0)),
    "cythera": ("sparta", 3, "HT", (0, 0), (0, 0)),
    "spartolus": ("sparta", 4, "TH", (0, 0), (1, 0)),
    "megara": ("megara", 5, "TH", (0, 0), (0, 0)),
    "mantinea": ("argos", 5, "H", (0, 0), (0, 0)),
    "delium": ("thebes", 5, "TH", (0, 0), (0, 0)),
    "aetolia": ("thebes", 3, "TH", (0, 0), (0, 0)),
    "corcyra": ("corinth", 3, "HT", (0, 0), (1, 1)),
    "leucas": ("corinth", 4, "HT", (0, 0), (0, 0)),
    "solygeia": ("corinth", 4, "HT", (0, 0), (0, 0)),
}
ORDER_CODES = {"TH": D.ORDER_TH, "HT": D.ORDER_HT, "H": D.ORDER_H}


def counters_of(city: int, unit_type: int) -> list[int]:
    """Counts of strength 1..4 for one city and type, read through ``class_id``."""
    return [D.INITIAL_COUNTERS[D.class_id(city, unit_type, s)] for s in range(1, 5)]


def strength_sum(counts: tuple[int, ...] | list[int]) -> int:
    """Total printed strength of counters given as counts of strength 1..4."""
    return sum(s * k for s, k in zip(range(1, 5), counts, strict=True))


# ---- A.1 players and per-player material --------------------------------------------------


def test_a1_tiles_per_player_and_per_turn() -> None:
    """A.1: 5/5/4 tiles each for 3/4/5 players, i.e. 15/20/20 picks and commit steps."""
    assert D.TILES_PER_PLAYER == {3: 5, 4: 5, 5: 4}
    assert {n: n * k for n, k in D.TILES_PER_PLAYER.items()} == {3: 15, 4: 20, 5: 20}
    assert (D.MIN_PLAYERS, D.MAX_PLAYERS) == (3, 5)


def test_a1_a8_cubes_displays_and_turns() -> None:
    """A.1/A.8: 30 cubes each (150 in 5 colours), 10 influence and 7 location slots, 3 turns."""
    assert D.CUBES_PER_PLAYER == 30
    assert D.CUBES_PER_PLAYER * D.MAX_PLAYERS == 150
    assert D.INFLUENCE_DISPLAY_SIZE == 10
    assert D.LOCATION_SLOTS == 7
    assert D.NUM_TURNS == 3


# ---- A.2 cities ------------------------------------------------------------------------------


def test_a2_city_order_and_names() -> None:
    """Section 0 / A.2: six cities in fixed order, Persia the military-only seventh."""
    assert D.CITY_NAMES == CITIES
    assert D.MILITARY_CITY_NAMES == CITIES + ("persia",)
    assert D.PERSIA == 6 and D.NUM_CITIES == 6 and D.NUM_MILITARY_CITIES == 7


@pytest.mark.parametrize("city", CITIES)
def test_a2_statue_track_and_value_after_all_squares(city: str) -> None:
    """A.2/E2/E3: statue value per defeats, 0 once every square is covered (any count)."""
    c = CITIES.index(city)
    track = A2[city][0]
    assert D.STATUE_TRACKS[c] == track
    for defeats, value in enumerate(track):
        assert D.statue_value(c, defeats) == value
    for defeats in range(len(track), len(track) + 5):
        assert D.statue_value(c, defeats) == 0


@pytest.mark.parametrize("city", CITIES)
def test_a2_a5_influence_tile_mix_per_city(city: str) -> None:
    """A.2/A.5: plain 2-shard, candidate and assassin tiles of each colour, and the total."""
    c = CITIES.index(city)
    _, plain, cand, assn, total, _, _ = A2[city]
    kinds = Counter(t.kind for t in D.INFLUENCE_TILES if t.colour == c)
    assert kinds == Counter({D.PLAIN: plain, D.CANDIDATE: cand, D.ASSASSIN: assn})
    assert sum(kinds.values()) == total


@pytest.mark.parametrize("city", CITIES)
def test_a2_counter_totals_per_city(city: str) -> None:
    """A.2: number of hoplite and trireme counters of each city."""
    c = CITIES.index(city)
    *_, hoplites, triremes = A2[city]
    assert sum(counters_of(c, D.HOPLITE)) == hoplites
    assert sum(counters_of(c, D.TRIREME)) == triremes


def test_a8_statue_squares_total_19() -> None:
    """A.8/E3: 4+4+2+4+3+2 = 19 statue squares (more than the 15 defeat counters)."""
    assert [len(t) for t in D.STATUE_TRACKS] == [4, 4, 2, 4, 3, 2]
    assert sum(len(t) for t in D.STATUE_TRACKS) == 19


# ---- A.3 / A.4 military counters ---------------------------------------------------------------


@pytest.mark.parametrize("city", CITIES)
def test_a3_greek_counters_by_strength(city: str) -> None:
    """A.3: counters per printed strength, and the summed strength of each type."""
    c = CITIES.index(city)
    hoplites, triremes, h_strength, t_strength = A3[city]
    assert tuple(counters_of(c, D.HOPLITE)) == hoplites
    assert tuple(counters_of(c, D.TRIREME)) == triremes
    assert strength_sum(hoplites) == h_strength
    assert strength_sum(triremes) == t_strength


def test_a3_greek_totals_36_h_25_t_61() -> None:
    """A.3/A.8/E1: 36 hoplites + 25 triremes = 61 Greek counters; strengths 76 and 52."""
    greek = range(D.NUM_CITIES)
    h = sum(sum(counters_of(c, D.HOPLITE)) for c in greek)
    t = sum(sum(counters_of(c, D.TRIREME)) for c in greek)
    assert (h, t, h + t) == (36, 25, 61)
    h_str = sum(strength_sum(counters_of(c, D.HOPLITE)) for c in greek)
    t_str = sum(strength_sum(counters_of(c, D.TRIREME)) for c in greek)
    assert (h_str, t_str) == (76, 52)


def test_a4_persian_counters() -> None:
    """A.4: Persian H2 x2, H3 x4, T2 x2, T3 x2: 10 counters, total strength 26 (16 + 10)."""
    assert counters_of(D.PERSIA, D.HOPLITE) == [0, 2, 4, 0]
    assert counters_of(D.PERSIA, D.TRIREME) == [0, 2, 2, 0]
    persian = [D.class_id(D.PERSIA, t, s) for t in (0, 1) for s in range(1, 5)]
    assert sum(D.INITIAL_COUNTERS[k] for k in persian) == 10
    assert sum(D.INITIAL_COUNTERS[k] * D.CLASS_STRENGTH[k] for k in persian) == 26


def test_a8_all_military_counters_71() -> None:
    """A.8/E1: 61 Greek + 10 Persian = 71 counters in the engine (RB lists 60)."""
    assert sum(D.INITIAL_COUNTERS) == 71
    assert D.NUM_CLASSES == 56


def test_counter_class_id_layout() -> None:
    """Counter classes: class_id(city, type, strength) = city*8 + type*4 + strength-1."""
    for c in range(D.NUM_MILITARY_CITIES):
        for t in (D.HOPLITE, D.TRIREME):
            for s in range(1, 5):
                k = D.class_id(c, t, s)
                assert k == c * 8 + t * 4 + s - 1
                assert (D.CLASS_CITY[k], D.CLASS_TYPE[k], D.CLASS_STRENGTH[k]) == (c, t, s)
            assert D.CLASSES_OF[c][t] == tuple(D.class_id(c, t, s) for s in range(1, 5))
    assert D.class_name(D.class_id(D.SPARTA, D.HOPLITE, 3)) == "sparta-H3"
    assert D.class_name(D.class_id(D.PERSIA, D.TRIREME, 2)) == "persia-T2"
    assert set(D.EXISTING_CLASSES) == {k for k in range(56) if D.INITIAL_COUNTERS[k]}


# ---- A.5 influence tiles ------------------------------------------------------------------------


def test_a5_influence_totals() -> None:
    """A.5/A.8: 36 tiles = 14 plain 2-shard + 11 candidate + 6 assassin + 5 Any City."""
    tiles = D.INFLUENCE_TILES
    assert len(tiles) == D.NUM_INFLUENCE_TILES == 36
    kinds = Counter(t.kind for t in tiles)
    assert kinds == Counter({D.PLAIN: 14, D.CANDIDATE: 11, D.ASSASSIN: 6, D.ANY_CITY: 5})
    assert Counter(t.shards for t in tiles) == Counter({2: 14, 1: 22})


def test_a5_shards_match_kind_and_brown_is_its_own_colour() -> None:
    """A.5: plain tiles have 2 shards, every other kind 1; Any City tiles are brown only."""
    for t in D.INFLUENCE_TILES:
        assert t.shards == (2 if t.kind == D.PLAIN else 1)
        assert (t.colour == D.BROWN) == (t.kind == D.ANY_CITY)
    assert D.BROWN == 6 and D.COLOUR_NAMES[D.BROWN] == "any"
    assert len({t.colour for t in D.INFLUENCE_TILES}) == 7  # 7 colours for the B.4 rule


def test_e17_display_can_never_run_dry() -> None:
    """E17: one turn draws 10 + (picks - 1) <= 29 of the 36 influence tiles."""
    most_picks = max(n * k for n, k in D.TILES_PER_PLAYER.items())
    assert D.INFLUENCE_DISPLAY_SIZE + most_picks - 1 == 29 <= D.NUM_INFLUENCE_TILES


# ---- A.6 location tiles --------------------------------------------------------------------------


def test_a6_every_location_tile() -> None:
    """A.6: name, controlling city, VP, round order, militia and rebels of all 21 tiles,
    in the table's order."""
    assert [t.name for t in D.LOCATION_TILES] == list(A6)
    for tile in D.LOCATION_TILES:
        city, vp, order, militia, rebels = A6[tile.name]
        assert (D.CITY_NAMES[tile.city], tile.vp, tile.order) == (city, vp, ORDER_CODES[order])
        assert (tile.militia, tile.rebels) == (militia, rebels)
    assert D.LOCATION_IDS == {name: i for i, name in enumerate(A6)}


def test_a6_round_types_follow_order() -> None:
    """A.6: T->H is trireme then hoplite, H->T the reverse, H only a single hoplite round."""
    rounds = {t.name: t.rounds for t in D.LOCATION_TILES}
    assert rounds["sicily"] == (D.TRIREME, D.HOPLITE)
    assert rounds["melos"] == (D.HOPLITE, D.TRIREME)
    assert rounds["mantinea"] == (D.HOPLITE,)


def test_a6_summary_tiles_per_city() -> None:
    """A.6 summary: Athens 7, Sparta 7, Corinth 3, Thebes 2, Megara 1, Argos 1 (21 total)."""
    per_city = Counter(D.CITY_NAMES[t.city] for t in D.LOCATION_TILES)
    assert per_city == Counter(athens=7, sparta=7, corinth=3, thebes=2, megara=1, argos=1)
    assert len(D.LOCATION_TILES) == D.NUM_LOCATION_TILES == 21


def test_a6_summary_vp_per_city_total_88() -> None:
    """A.6 summary: VP Athens 30, Sparta 29, Corinth 11, Thebes 8, Megara 5, Argos 5 = 88."""
    vp: Counter[str] = Counter()
    for t in D.LOCATION_TILES:
        vp[D.CITY_NAMES[t.city]] += t.vp
    assert vp == Counter(athens=30, sparta=29, corinth=11, thebes=8, megara=5, argos=5)
    assert sum(vp.values()) == 88


def test_a6_summary_orders_11_7_3() -> None:
    """A.6 summary: 11 x T->H, 7 x H->T, 3 x H only."""
    orders = Counter(t.order for t in D.LOCATION_TILES)
    assert orders == Counter({D.ORDER_TH: 11, D.ORDER_HT: 7, D.ORDER_H: 3})


def test_a6_summary_intrinsic_units() -> None:
    """A.6 summary: 3 tiles with 1 H defender, 2 with H+T defenders, 2 with 1 H rebel,
    2 with H+T rebels, 12 with none."""
    kinds = Counter((t.militia, t.rebels) for t in D.LOCATION_TILES)
    none = ((0, 0), (0, 0))
    assert kinds == Counter(
        {
            ((1, 0), (0, 0)): 3,
            ((1, 1), (0, 0)): 2,
            ((0, 0), (1, 0)): 2,
            ((0, 0), (1, 1)): 2,
            none: 12,
        }
    )


def test_a8_locations_seven_per_turn() -> None:
    """A.8/B.3: 21 location tiles = 7 slots x 3 turns, so none are left after turn 3."""
    assert D.NUM_LOCATION_TILES == D.LOCATION_SLOTS * D.NUM_TURNS


# ---- A.7 special tiles ---------------------------------------------------------------------------


def test_a7_special_tiles() -> None:
    """A.7/A.8: 8 special tiles with their BGA ids; the influence-window three (E20) and the
    battle tiles per round type (D.5-D.8)."""
    assert D.NUM_SPECIALS == len(D.SPECIAL_NAMES) == 8
    assert set(D.SPECIAL_NAMES) == {
        "alkibiades",
        "brasidas",
        "perikles",
        "persianfleet",
        "phormio",
        "plague",
        "slaverevolt",
        "thessalianallies",
    }
    names = D.SPECIAL_NAMES
    assert {names[t] for t in D.INFLUENCE_SPECIALS} == {"perikles", "plague", "alkibiades"}
    hoplite, trireme = D.BATTLE_SPECIALS_FOR_TYPE
    assert {names[t] for t in hoplite} == {"brasidas", "thessalianallies"}
    assert {names[t] for t in trireme} == {"phormio", "persianfleet"}
    assert names[D.SLAVE_REVOLT] == "slaverevolt"
