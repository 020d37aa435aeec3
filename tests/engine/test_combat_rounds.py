"""Phase 6 scenario tests, part 1: classifying a location (C.2), the round table (C.3),
strength (C.4), the CRT column (C.5), the token race (C.6), slot order (B.8) and survivors
going home after each round (C.3). Boxes are hand-built and the dice are scripted.

Seats used throughout (4 players): athens leader 0, sparta leader 1, argos leader 2 and
player 3 a Persian leader, unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from perikles_env.engine import Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from tests.engine.builders import (
    battle_events,
    game_at_battles,
    klass,
    prepare_battles,
    reference_crt_column,
    rolls,
    start_battles,
)

ATT, DEF = 0, 1
MAIN, ALLIED = 0, 1
LEADERS = {"athens": 0, "sparta": 1, "argos": 2}


def tile_id(name: str) -> int:
    return D.LOCATION_IDS[name]


SLOTTED = ("battle", "unclaimed", "claim", "round", "dice_round", "roll", "casualty")


def kinds(g, kind: str, slot: int | None = 0) -> list[tuple]:
    """Phase-6 events of one kind; those tied to a location only for ``slot`` (or all)."""
    return [
        e
        for e in battle_events(g)
        if e[0] == kind and (slot is None or kind not in SLOTTED or e[1] == slot)
    ]


def cubes(g, city: str, player: int) -> int:
    return g.cubes[D.CITY_NAMES.index(city) * 5 + player]


# ---- C.2: classifying a location -------------------------------------------------------


def test_C2_both_mains_fight_the_rounds_in_tile_order():
    """C.2 row 1: MA and MD both exist -> dice rounds in tile order (Pylos is T->H)."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((8, 2), (8, 2), (8, 2)),
    )
    assert [e[2] for e in kinds(g, "dice_round")] == ["T", "H"]
    assert g.is_terminal and g.forced_dice == []
    assert g.loc_claim[tile_id("pylos")] == 1 << 0


def test_C2_E26_attacker_alone_fights_the_militia_and_wins():
    """C.2 row 2 / E26: only MA, tile with an intrinsic defender -> dice vs the militia;
    the attacker wins, takes the tile, O gets a defeat; militia cannot be casualties (C.7)."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["plataea"],  # Athens, H only, 1 H militia
        mains={(0, ATT): 1},
        counters=[(0, ATT, MAIN, klass("sparta", "H", 2), 1)],
        dice=rolls((6, 8), (7, 2)),  # 2:1: attacker needs 6, defender 9
    )
    assert kinds(g, "dice_round") == [("dice_round", 0, "H", 2, 1, "2:1", 0, 0)]
    assert g.loc_claim[tile_id("plataea")] == 1 << 1
    assert g.defeats[D.ATHENS] == 1
    assert kinds(g, "casualty") == []


def test_C2_E27_militia_beating_a_lone_attacker_leave_the_tile_unclaimed():
    """E27/C.8 row 3: militia win with no MD -> nobody claims, no defeat, no cubes; the
    attacker's casualty goes to the dead pool (C.7)."""
    g = prepare_battles(
        leaders=LEADERS,
        locations=["plataea"],
        mains={(0, ATT): 1},
        counters=[(0, ATT, MAIN, klass("sparta", "H", 2), 1)],
        dice=rolls((2, 9), (2, 9)),
    )
    supply_before = g.supply[:]
    start_battles(g)
    assert g.loc_claim[tile_id("plataea")] == 0 and g.loc_done[tile_id("plataea")] == 1
    assert g.defeats == [0] * D.NUM_CITIES
    assert kinds(g, "unclaimed") == [("unclaimed", 0, "plataea", "militia held")]
    assert kinds(g, "cubes") == [] and g.supply == supply_before
    assert kinds(g, "casualty") == [("casualty", 0, "attack", "sparta-H2")]
    assert g.dead[klass("sparta", "H", 2)] == 1


@pytest.mark.parametrize(
    "location, counters, claimed",
    [
        ("naupactus", [("persia", "H", 2), ("persia", "T", 2)], True),  # T->H: H is final
        ("naupactus", [("persia", "T", 2), ("persia", "T", 3)], False),  # no final type
        ("cephallenia", [("persia", "H", 3)], False),  # H->T: T is final
        ("cephallenia", [("persia", "T", 2)], True),
        ("attica", [("persia", "H", 2)], True),  # H only
    ],
)
def test_C2_E27_uncontested_attack_needs_final_round_type(location, counters, claimed):
    """C.2 row 3 / E27: only MA and no militia -> no dice at all; MA claims (and O gets a
    defeat) only with an attacking counter of the final-round type, else nobody claims."""
    g = prepare_battles(
        leaders=LEADERS,
        locations=[location],
        mains={(0, ATT): 3},
        counters=[(0, ATT, MAIN, klass(*c), 1) for c in counters],
        dice=[6, 6, 6, 6],
    )
    supply_before = g.supply[:]
    start_battles(g)
    owner = D.LOCATION_TILES[tile_id(location)].city
    assert g.forced_dice == [6, 6, 6, 6]  # no dice rolled
    assert kinds(g, "round") == [] and kinds(g, "dice_round") == []
    assert g.loc_done[tile_id(location)] == 1
    assert g.loc_claim[tile_id(location)] == (1 << 3 if claimed else 0)
    assert g.defeats[owner] == (1 if claimed else 0)
    assert sum(g.defeats) == g.defeats[owner]
    assert g.supply == supply_before  # the defender gets no cubes (E27)


def test_C2_E29_not_attacked_main_defender_adds_two_cubes_to_owner_city():
    """C.2 row 4 / E29: only MD -> unclaimed, out of the game; MD adds 2 cubes to O's main
    area; allies get nothing; no dice, no defeat, rebels never rise (Lesbos has rebels)."""
    g = prepare_battles(
        leaders=LEADERS,
        locations=["lesbos"],  # Athens, rebels H + T
        mains={(0, DEF): 0},
        counters=[
            (0, DEF, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, ALLIED, klass("argos", "H", 1), 1),  # placed by the argos leader (2)
        ],
        dice=[6, 6, 6, 6],
    )
    before = [cubes(g, "athens", p) for p in range(4)]
    supply_before = g.supply[:]
    start_battles(g)
    assert g.forced_dice == [6, 6, 6, 6]
    assert g.loc_claim[tile_id("lesbos")] == 0 and g.loc_done[tile_id("lesbos")] == 1
    assert kinds(g, "unclaimed") == [("unclaimed", 0, "lesbos", "not attacked")]
    assert [cubes(g, "athens", p) - before[p] for p in range(4)] == [2, 0, 0, 0]
    assert g.supply[0] == supply_before[0] - 2
    assert g.supply[1:4] == supply_before[1:4]
    assert g.defeats == [0] * D.NUM_CITIES


def test_C2_E38_E29_non_owner_main_defender_gets_cubes_in_the_owner_city():
    """E38 + C.2: a permitted non-owner MD (argos leader at Spartan Pylos) gets the 2 cubes
    in the owner city Sparta, not in his own city."""
    g = prepare_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, DEF): 2},
        counters=[(0, DEF, MAIN, klass("argos", "T", 1), 1)],
    )
    sparta_before, argos_before = cubes(g, "sparta", 2), cubes(g, "argos", 2)
    start_battles(g)
    assert cubes(g, "sparta", 2) == sparta_before + 2
    assert cubes(g, "argos", 2) == argos_before


def test_C2_E29_E39_each_persian_leader_gets_cubes_supply_limited():
    """E29/E39/B.11/B.12: Persians defend an unattacked tile -> EACH Persian leader adds 2
    cubes to the owner city, limited by his supply."""
    g = prepare_battles(
        leaders={"athens": 0, "sparta": 1},  # players 2 and 3 are Persian co-leaders
        locations=["pylos"],
        mains={(0, DEF): 2},
        counters=[(0, DEF, MAIN, klass("persia", "H", 3), 1)],
    )
    g.supply[3] = 1
    before = [cubes(g, "sparta", p) for p in range(4)]
    supply2 = g.supply[2]
    start_battles(g)
    assert [cubes(g, "sparta", p) - before[p] for p in range(4)] == [0, 0, 2, 1]
    assert g.supply[2] == supply2 - 2 and g.supply[3] == 0
    assert g.loc_claim[tile_id("pylos")] == 0


def test_C2_B12_unattacked_bonus_limited_by_supply():
    """B.12 + C.2 row 4: a main defender with 1 cube left in supply adds only 1."""
    g = prepare_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, DEF): 1},
        counters=[(0, DEF, MAIN, klass("sparta", "H", 1), 1)],
    )
    g.supply[1] = 1
    before = cubes(g, "sparta", 1)
    start_battles(g)
    assert cubes(g, "sparta", 1) == before + 1 and g.supply[1] == 0
    assert kinds(g, "cubes") == [("cubes", 1, "sparta", 1)]


def test_C2_neither_main_exists_nothing_happens():
    """C.2 row 5: neither MA nor MD -> unclaimed, nobody gets cubes, no defeat."""
    g = prepare_battles(leaders=LEADERS, locations=["sicily"])
    supply_before = g.supply[:]
    start_battles(g)
    assert g.loc_claim[tile_id("sicily")] == 0 and g.loc_done[tile_id("sicily")] == 1
    assert ("unclaimed", 0, "sicily", "no forces") in battle_events(g)
    assert g.supply == supply_before and g.defeats == [0] * D.NUM_CITIES


# ---- C.3: the round table ----------------------------------------------------------------


def test_C3_empty_first_round_gives_no_head_start():
    """C.3 row 1: neither side has triremes -> empty T round, the H round starts 0:0."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["pylos"],  # T->H
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((8, 2), (8, 2)),
    )
    events = battle_events(g)
    assert ("round", 0, "T", "empty") in events
    assert kinds(g, "dice_round") == [("dice_round", 0, "H", 2, 2, "1:1", 0, 0)]


def test_C3_E28_empty_final_round_unclaimed_even_if_round_one_won_by_dice():
    """E28: the attacker wins the T round by dice, nobody has hoplites -> the final round is
    empty: nobody claims the tile and there is no defeat."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 2), 1),
        ],
        dice=rolls((8, 2), (8, 2)),
    )
    assert ("round", 0, "T", "attack", "dice") in battle_events(g)
    assert ("round", 0, "H", "empty") in battle_events(g)
    assert kinds(g, "unclaimed") == [("unclaimed", 0, "pylos", "final round empty")]
    assert g.loc_claim[tile_id("pylos")] == 0 and g.defeats == [0] * D.NUM_CITIES


def test_C3_E28_empty_final_round_after_automatic_win():
    """E28 with an automatic round 1: MD keeps only his mark (C.1), the attacker wins the T
    round automatically, the H round is empty -> unclaimed, no defeat."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[(0, ATT, MAIN, klass("athens", "T", 2), 1)],
    )
    assert ("round", 0, "T", "attack", "automatic") in battle_events(g)
    assert ("round", 0, "H", "empty") in battle_events(g)
    assert g.loc_claim[tile_id("pylos")] == 0 and g.defeats == [0] * D.NUM_CITIES


def test_C3_C8_attacker_wins_final_round_automatically_after_losing_round_one():
    """C.3 row 3 + C.8 row 1: Cephallenia (H->T): the defender wins the H round by dice,
    has no triremes -> the attacker wins the T round automatically (no militia), claims the
    tile and Sparta gets a defeat. No casualty in an automatic round."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["cephallenia"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((2, 12), (2, 12)),
    )
    assert ("round", 0, "H", "defend", "dice") in battle_events(g)
    assert ("round", 0, "T", "attack", "automatic") in battle_events(g)
    assert len(kinds(g, "dice_round")) == 1
    assert kinds(g, "casualty") == [("casualty", 0, "attack", "athens-H2")]
    assert g.loc_claim[tile_id("cephallenia")] == 1 << 0
    assert g.defeats[D.SPARTA] == 1


def test_C3_C8_defender_wins_final_round_automatically():
    """C.3 row 2 + C.8 row 2: the attacker has no counters of the final type -> the defender
    wins that round automatically and MD takes the tile, no defeat."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["cephallenia"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 3), 1),
            (0, DEF, MAIN, klass("sparta", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
        ],
        dice=rolls((12, 2), (12, 2)),
    )
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)
    assert ("round", 0, "T", "defend", "automatic") in battle_events(g)
    assert g.loc_claim[tile_id("cephallenia")] == 1 << 1
    assert g.defeats == [0] * D.NUM_CITIES


@pytest.mark.parametrize("auto_winner", [ATT, DEF])
def test_C3_automatic_round_one_winner_gets_head_start(auto_winner):
    """C.3: the winner of round 1, even automatically, starts round 2 with 1 token."""
    t_counter = klass("athens", "T", 2) if auto_winner == ATT else klass("sparta", "T", 2)
    g = game_at_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, auto_winner, MAIN, t_counter, 1),
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((8, 7)),
    )
    side = A.SIDE_NAMES[auto_winner]
    assert ("round", 0, "T", side, "automatic") in battle_events(g)
    tokens = (1, 0) if auto_winner == ATT else (0, 1)
    assert kinds(g, "dice_round") == [("dice_round", 0, "H", 2, 2, "1:1", *tokens)]
    # One roll where both hit: the head-start side reaches 2 alone and wins.
    assert ("round", 0, "H", side, "dice") in battle_events(g)
    assert len(kinds(g, "roll")) == 1


@pytest.mark.parametrize("round_one_winner", [ATT, DEF])
def test_C3_dice_round_one_winner_gets_head_start(round_one_winner):
    """C.3: the dice winner of round 1 starts round 2 holding 1 token."""
    first = (8, 2) if round_one_winner == ATT else (2, 12)
    g = game_at_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls(first, first, (2, 2), (2, 2), (8, 7)),
    )
    tokens = (1, 0) if round_one_winner == ATT else (0, 1)
    rounds = kinds(g, "dice_round")
    assert rounds[0][-2:] == (0, 0)
    assert rounds[1] == ("dice_round", 0, "H", 2, 2, "1:1", *tokens)


def test_C3_E25_rebels_ignored_without_attackers_of_their_type():
    """E25: Lesbos (H->T, rebels H + T). The attacker has no hoplites -> the defender wins the
    H round automatically (no dice, the H rebel does not fight); in the T round the T rebel
    adds 1 to the attacker, and the defender holds the head start."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["lesbos"],
        mains={(0, ATT): 1, (0, DEF): 0},
        counters=[
            (0, ATT, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("athens", "H", 1), 1),
            (0, DEF, MAIN, klass("athens", "T", 1), 1),
        ],
        dice=rolls((6, 2), (6, 2)),
    )
    assert ("round", 0, "H", "defend", "automatic") in battle_events(g)
    assert kinds(g, "dice_round") == [("dice_round", 0, "T", 2, 1, "2:1", 0, 1)]
    assert g.loc_claim[tile_id("lesbos")] == 1 << 1 and g.defeats[D.ATHENS] == 1


def test_C3_E25_E26_rebels_do_not_turn_an_empty_round_into_a_win():
    """E25/E26: nobody sent hoplites to Lesbos -> the H round is empty despite the H rebel;
    the T round starts 0:0 with the T rebel on the attacker's side."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["lesbos"],
        mains={(0, ATT): 1, (0, DEF): 0},
        counters=[
            (0, ATT, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("athens", "T", 1), 1),
        ],
        dice=rolls((6, 2), (6, 2)),
    )
    assert ("round", 0, "H", "empty") in battle_events(g)
    assert kinds(g, "dice_round") == [("dice_round", 0, "T", 2, 1, "2:1", 0, 0)]


def test_C3_E26_militia_ignored_in_an_empty_round():
    """E26: Melos (H->T, militia H + T): no hoplites on either side -> the H round is empty
    (the H militia do not win it); the T militia add 1 to the defender in the T round."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["melos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
        ],
        dice=rolls((8, 2), (8, 2)),
    )
    assert ("round", 0, "H", "empty") in battle_events(g)
    assert kinds(g, "dice_round") == [("dice_round", 0, "T", 2, 2, "1:1", 0, 0)]
    assert g.loc_claim[tile_id("melos")] == 1 << 0 and g.defeats[D.SPARTA] == 1


def test_C3_E26_E28_militia_fight_alone_then_empty_final_round():
    """E26 + E28: Melos with only an attacker holding hoplites: the H militia fight alone
    (and lose); the T round is empty -> unclaimed, no defeat."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["melos"],
        mains={(0, ATT): 0},
        counters=[(0, ATT, MAIN, klass("athens", "H", 2), 1)],
        dice=rolls((6, 2), (6, 2)),
    )
    assert kinds(g, "dice_round") == [("dice_round", 0, "H", 2, 1, "2:1", 0, 0)]
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)
    assert ("round", 0, "T", "empty") in battle_events(g)
    assert g.loc_claim[tile_id("melos")] == 0 and g.defeats == [0] * D.NUM_CITIES


def test_C3_E26_defender_without_counters_of_the_type_still_has_militia():
    """C.3 row 4: D_X empty but I_X = 1 -> dice against the militia, not an automatic win."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["sicily"],  # T->H, militia H + T
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 1), 1),
        ],
        dice=rolls((8, 2), (8, 2), (2, 12), (2, 12)),
    )
    assert [e[1:6] for e in kinds(g, "dice_round")] == [(0, "T", 1, 1, "1:1")]
    # H round: the attacker has no hoplites -> the defender wins automatically.
    assert ("round", 0, "H", "defend", "automatic") in battle_events(g)
    assert g.forced_dice == rolls((2, 12), (2, 12))


# ---- C.4: strength --------------------------------------------------------------------------


def test_C4_strength_sums_main_and_allied_boxes_plus_rebels():
    """C.4: attacker = all attacking counters (main + allied) + rebels; Spartolus (T->H) has
    an H rebel: A = 2 + 1 (allied) + 1 (rebel) = 4 vs D = 3 + 2 (allied) = 5."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["spartolus"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, ATT, ALLIED, klass("argos", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 3), 1),
            (0, DEF, ALLIED, klass("persia", "H", 2), 1),
        ],
        dice=rolls((8, 2), (8, 2)),
    )
    assert kinds(g, "dice_round") == [("dice_round", 0, "H", 4, 5, "1:1", 0, 0)]


def test_C4_militia_add_one_to_the_defender():
    """C.4: defender = counters + intrinsic defenders (Plataea H militia)."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["plataea"],
        mains={(0, ATT): 1, (0, DEF): 0},
        counters=[
            (0, ATT, MAIN, klass("sparta", "H", 4), 1),
            (0, ATT, MAIN, klass("sparta", "H", 3), 1),
            (0, DEF, MAIN, klass("athens", "H", 2), 1),
        ],
        dice=rolls((6, 2), (6, 2)),
    )
    assert kinds(g, "dice_round") == [("dice_round", 0, "H", 7, 3, "2:1", 0, 0)]


# ---- C.5: the CRT column ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, d, column",
    [
        (2, 1, "2:1"),
        (5, 3, "+2"),
        (3, 4, "1:1"),
        (7, 12, "-2"),
        (2, 4, "1:2"),
        (7, 5, "+2"),
        (3, 7, "1:2"),
    ],
)
def test_C5_crt_column_rulebook_examples(a, d, column):
    """C.5 RB examples table."""
    assert D.CRT_COLUMNS[D.crt_column(a, d)] == column


def test_C5_crt_column_matches_reference_pseudocode_exhaustively():
    """C.5: data.crt_column equals the reference pseudo-code for every A, D in 1..79."""
    bad = [
        (a, d)
        for a in range(1, 80)
        for d in range(1, 80)
        if D.CRT_COLUMNS[D.crt_column(a, d)] != reference_crt_column(a, d)
    ]
    assert bad == []


def test_C5_crt_needs_table():
    """C.5: the 2d6 number each side needs per column."""
    table = {
        "1:2": (10, 5),
        "-2": (9, 6),
        "1:1": (8, 7),
        "+2": (7, 8),
        "2:1": (6, 9),
        "3:1": (5, 10),
    }
    for i, name in enumerate(D.CRT_COLUMNS):
        assert (D.CRT_ATTACKER_NEEDS[i], D.CRT_DEFENDER_NEEDS[i]) == table[name]


def test_C5_engine_uses_the_column_needs_in_a_round():
    """C.5/C.6: at 1:2 the attacker needs 10 and the defender 5: a 9 does not hit for the
    attacker, a 5 hits for the defender."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["mantinea"],  # H only, no militia
        mains={(0, ATT): 0, (0, DEF): 2},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 1), 1),
            (0, DEF, MAIN, klass("argos", "H", 2), 1),
        ],
        dice=rolls((9, 4), (10, 4), (10, 5)),
    )
    assert kinds(g, "dice_round")[0][5] == "1:2"
    # roll 1: nobody; roll 2: attacker 1 token; roll 3: attacker 2, defender 1 -> attacker.
    assert len(kinds(g, "roll")) == 3
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)


# ---- C.6: the token race ---------------------------------------------------------------------


def mantinea_1v1(dice: list[int]):
    """Athens H2 attacks argos H2 at Mantinea (1:1: attacker needs 8, defender 7)."""
    return game_at_battles(
        leaders=LEADERS,
        locations=["mantinea"],
        mains={(0, ATT): 0, (0, DEF): 2},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("argos", "H", 2), 1),
        ],
        dice=dice,
    )


def test_C6_simultaneous_rolls_both_take_tokens():
    """C.6 step 2: both sides hit on one roll -> both take a token (1:1); then only the
    attacker hits -> he alone reaches 2 and wins. Exactly two rolls are consumed."""
    extra = [6, 6, 6, 6]
    g = mantinea_1v1(rolls((8, 7), (8, 6)) + extra)
    assert [e[2:] for e in kinds(g, "roll")] == [(8, 7), (8, 6)]
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)
    assert g.forced_dice == extra
    assert g.loc_claim[tile_id("mantinea")] == 1 << 0 and g.defeats[D.ARGOS] == 1


def test_C6_both_reach_two_then_roll_offs_repeat_until_one_side_hits():
    """C.6 step 3: both reach 2 on the same roll -> roll-offs with the same numbers; rolls
    where both hit or both miss are repeated; the first lone hit decides."""
    extra = [1, 1]
    g = mantinea_1v1(rolls((8, 7), (9, 12), (8, 7), (2, 3), (12, 12), (7, 7)) + extra)
    assert len(kinds(g, "roll")) == 6
    assert ("round", 0, "H", "defend", "dice") in battle_events(g)
    assert g.forced_dice == extra
    assert g.loc_claim[tile_id("mantinea")] == 1 << 2 and g.defeats == [0] * D.NUM_CITIES
    assert kinds(g, "casualty") == [("casualty", 0, "attack", "athens-H2")]


def test_C6_roll_off_won_by_attacker():
    """C.6 step 3: a roll-off roll where only the attacker hits gives him the round."""
    g = mantinea_1v1(rolls((8, 7), (8, 7), (8, 6)))
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)
    assert g.forced_dice == []


def test_C6_misses_give_no_tokens():
    """C.6: rolls below both numbers change nothing; the race continues."""
    g = mantinea_1v1(rolls((7, 6), (7, 6), (7, 6), (2, 7), (2, 7)))
    assert len(kinds(g, "roll")) == 5
    assert ("round", 0, "H", "defend", "dice") in battle_events(g)


# ---- B.8 slot order and C.3 survivors ----------------------------------------------------


def test_B8_locations_resolve_in_slot_order_one_to_seven():
    """B.8: battles resolve top to bottom; the scripted dice are consumed slot by slot."""
    names = ["mantinea", "attica", "plataea", "naupactus", "pylos", "sicily", "delium"]
    g = game_at_battles(
        leaders=LEADERS,
        locations=names,
        mains={(0, ATT): 0, (0, DEF): 2, (4, ATT): 0, (4, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("argos", "H", 2), 1),
            (4, ATT, MAIN, klass("athens", "H", 3), 1),
            (4, DEF, MAIN, klass("sparta", "H", 3), 1),
        ],
        # slot 1: attacker wins in two rolls; slot 5: defender wins in two rolls.
        dice=rolls((8, 2), (8, 2), (2, 7), (2, 7)),
    )
    assert [e[1:3] for e in kinds(g, "battle", None)] == list(enumerate(names))
    assert [e[1] for e in kinds(g, "roll", None)] == [0, 0, 4, 4]
    assert g.loc_claim[tile_id("mantinea")] == 1 << 0
    assert g.loc_claim[tile_id("pylos")] == 1 << 1
    assert all(g.loc_done[tile_id(name)] for name in names)


def test_C3_survivors_of_round_one_go_home_before_round_two():
    """C.3: after round 1 (casualty included) its surviving counters return to their home
    city stacks, not to pools; they are gone from the location before round 2 starts.
    A battle-special offer (D.9) pauses the game right before round 2 to look."""
    g = prepare_battles(
        leaders=LEADERS,
        locations=["pylos"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 4), 1),
            (0, ATT, MAIN, klass("athens", "T", 1), 1),
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((12, 2), (12, 2), (8, 2), (8, 2)),
        specials={3: D.PERIKLES},  # leak-free offer: player 3 may only pass
    )
    # Phormio / Persian Fleet already played: no offer before the T round.
    g.special_played[D.PHORMIO] = 2
    g.special_played[D.PERSIAN_FLEET] = 2
    stack_before = g.stack[:]
    pool_before = g.pool[:]
    start_battles(g)
    assert g.phase == Phase.BATTLE_SPECIAL and g.b_round == 1 and g.current_player == 3
    slot_boxes = g.at[: 4 * D.NUM_CLASSES]
    trireme_left = [
        k
        for k in range(D.NUM_CLASSES)
        if D.CLASS_TYPE[k] == D.TRIREME and any(slot_boxes[b * D.NUM_CLASSES + k] for b in range(4))
    ]
    assert trireme_left == []
    for name, back in (("athens", 4), ("athens", 1), ("sparta", 2)):
        assert g.stack[klass(name, "T", back)] == stack_before[klass(name, "T", back)] + 1
    assert g.dead[klass("sparta", "T", 1)] == 1  # the casualty, not a survivor
    assert g.pool == pool_before
    # Hoplites are still at the location for round 2.
    assert g.at[0 * D.NUM_CLASSES + klass("athens", "H", 2)] == 1
    assert g.at[2 * D.NUM_CLASSES + klass("sparta", "H", 2)] == 1
    g.apply_action_checked(A.BATTLE_PASS)
    assert g.is_terminal and sum(g.at) == 0
    for k in range(D.NUM_CLASSES):  # every counter is home or dead (C.8)
        assert g.stack[k] + g.dead[k] == D.INITIAL_COUNTERS[k]


def test_E29_unattacked_bonus_is_paid_when_its_slot_comes_up():
    """E29/B.8: the 2-cube bonus of an unattacked location in slot 2 is logged after slot 1's
    battle is resolved and before slot 3 starts."""
    g = game_at_battles(
        leaders=LEADERS,
        locations=["mantinea", "pylos", "attica"],
        mains={(0, ATT): 0, (0, DEF): 2, (1, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("argos", "H", 2), 1),
            (1, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((8, 2), (8, 2)),
    )
    order = [e[:3] for e in battle_events(g) if e[0] in ("claim", "cubes", "battle")]
    assert order[:5] == [
        ("battle", 0, "mantinea"),
        ("claim", 0, "mantinea"),
        ("battle", 1, "pylos"),
        ("cubes", 1, "sparta"),
        ("battle", 2, "attica"),
    ]
