"""Phase 6 scenario tests, part 2: casualties (C.7, E30, E31), battle outcomes (C.8, B.11,
E38, E39) and the rulebook's worked Sicily example end to end (C.9)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    battle_events,
    game_at_battles,
    klass,
    prepare_battles,
    rolls,
    start_battles,
)

ATT, DEF = 0, 1
MAIN, ALLIED = 0, 1
ALL_LEAD = {"athens": 0, "sparta": 1, "argos": 2, "corinth": 3}  # no Persian leader

ATTACKER_WINS = rolls((12, 2), (12, 2))
DEFENDER_WINS = rolls((2, 12), (2, 12))


def tile_id(name: str) -> int:
    return D.LOCATION_IDS[name]


def slot0(g, kind: str) -> list[tuple]:
    return [e for e in battle_events(g) if e[0] == kind and e[1] == 0]


def mantinea(counters, dice, leaders=None, mains=None, n=4):
    """One H-only battle at Mantinea (Argos, no militia); default MA 0, MD 1."""
    return game_at_battles(
        n=n,
        leaders=leaders or ALL_LEAD,
        locations=["mantinea"],
        mains=mains or {(0, ATT): 0, (0, DEF): 1},
        counters=counters,
        dice=dice,
    )


# ---- C.7 casualties --------------------------------------------------------------------------


def test_C7_E30_main_box_loses_before_allied_box():
    """C.7 step 1: the main box's counters are the candidates even when the allied box holds
    a weaker counter."""
    g = mantinea(
        [
            (0, ATT, MAIN, klass("athens", "H", 3), 1),
            (0, ATT, ALLIED, klass("argos", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 1),
        ],
        DEFENDER_WINS,
    )
    assert slot0(g, "casualty") == [("casualty", 0, "attack", "athens-H3")]
    assert g.dead[klass("athens", "H", 3)] == 1 and g.dead[klass("argos", "H", 1)] == 0
    assert g.stack[klass("argos", "H", 1)] == D.INITIAL_COUNTERS[klass("argos", "H", 1)]


def test_C7_E30_allied_box_loses_when_main_box_has_none_of_the_type():
    """C.7 step 1: no hoplite in the main box (only a trireme) -> the allied box's lowest
    hoplite dies. Cephallenia H->T: the attacker then wins the T round automatically and MA
    claims the tile although only his allies fought hoplites (C.8 row 1)."""
    g = game_at_battles(
        leaders=ALL_LEAD,
        locations=["cephallenia"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 3), 1),
            (0, ATT, ALLIED, klass("argos", "H", 2), 1),
            (0, ATT, ALLIED, klass("argos", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 3), 1),
        ],
        dice=DEFENDER_WINS,
    )
    assert slot0(g, "casualty") == [("casualty", 0, "attack", "argos-H1")]
    assert g.dead[klass("argos", "H", 1)] == 1
    assert ("round", 0, "T", "attack", "automatic") in battle_events(g)
    assert g.loc_claim[tile_id("cephallenia")] == 1 << 0 and g.defeats[D.SPARTA] == 1


def test_C7_lowest_printed_strength_same_city_needs_no_choice():
    """C.7 steps 2-3: the lowest counter of a single city dies with no decision."""
    g = mantinea(
        [
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 3), 1),
            (0, DEF, MAIN, klass("sparta", "H", 1), 2),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        ATTACKER_WINS,
    )
    assert g.is_terminal
    assert slot0(g, "casualty") == [("casualty", 0, "defend", "sparta-H1")]
    assert g.dead[klass("sparta", "H", 1)] == 1


def tied_main_box_game():
    """Player 0 leads Athens and Argos (E9) and loses with athens-H1 and argos-H1 tied lowest
    in his main box (plus a stronger Argive H2)."""
    return mantinea(
        [
            (0, ATT, MAIN, klass("athens", "H", 1), 1),
            (0, ATT, MAIN, klass("argos", "H", 1), 1),
            (0, ATT, MAIN, klass("argos", "H", 2), 1),
            (0, ATT, ALLIED, klass("corinth", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 2),
        ],
        DEFENDER_WINS,
        leaders={"athens": 0, "argos": 0, "sparta": 1, "corinth": 3},
    )


def test_C7_tie_across_cities_is_a_casualty_decision_of_the_losing_main_player():
    """C.7 step 3 / E30: lowest counters of two cities tied -> CASUALTY decision for the
    losing side's main player, with exactly the tied cities legal."""
    g = tied_main_box_game()
    assert g.phase == Phase.CASUALTY and g.current_player == 0
    assert g.legal_actions() == [A.CASUALTY + D.ATHENS, A.CASUALTY + D.ARGOS]
    assert slot0(g, "casualty") == []
    g.apply_action_checked(A.CASUALTY + D.ARGOS)
    assert slot0(g, "casualty") == [("casualty", 0, "attack", "argos-H1")]
    assert g.dead[klass("argos", "H", 1)] == 1 and g.dead[klass("athens", "H", 1)] == 0
    assert g.is_terminal and g.loc_claim[tile_id("mantinea")] == 1 << 1


@pytest.mark.parametrize("city", [D.SPARTA, D.CORINTH, D.PERSIA, D.THEBES])
def test_C7_casualty_choice_outside_the_tie_is_rejected(city):
    """C.7 step 3: a city not among the tied lowest counters is illegal; the typed error
    leaves the state unchanged."""
    g = tied_main_box_game()
    before = g.clone()
    with pytest.raises(IllegalActionError) as err:
        g.apply_action_checked(A.CASUALTY + city)
    assert err.value.phase == "CASUALTY" and err.value.player == 0
    assert g == before


def test_C7_tie_in_the_allied_box_is_decided_by_the_main_player():
    """C.7 step 3: the main box has no hoplite; argos-H1 (player 2) and corinth-H1 (player
    3) tie in the allied box -> the main attacker (player 0) chooses."""
    g = mantinea(
        [
            (0, ATT, ALLIED, klass("argos", "H", 1), 1),
            (0, ATT, ALLIED, klass("corinth", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 1),
        ],
        DEFENDER_WINS,
    )
    assert g.phase == Phase.CASUALTY and g.current_player == 0
    assert g.legal_actions() == [A.CASUALTY + D.ARGOS, A.CASUALTY + D.CORINTH]
    g.apply_action_checked(A.CASUALTY + D.CORINTH)
    assert g.dead[klass("corinth", "H", 1)] == 1 and g.dead[klass("argos", "H", 1)] == 0


def test_C7_militia_only_loss_has_no_casualty():
    """C.7 step 1 / E30: the losing side had only militia -> no casualty at all."""
    g = game_at_battles(
        leaders=ALL_LEAD,
        locations=["plataea"],
        mains={(0, ATT): 1},
        counters=[(0, ATT, MAIN, klass("sparta", "H", 1), 1)],
        dice=rolls((8, 2), (8, 2)),  # 1:1 vs the militia
    )
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)
    assert slot0(g, "casualty") == [] and sum(g.dead) == 0


def test_C7_greek_casualty_goes_to_the_dead_pool():
    """C.7 step 4: a Greek casualty is in the dead pool, not in its city stack."""
    k = klass("athens", "H", 2)
    g = mantinea(
        [(0, ATT, MAIN, k, 1), (0, DEF, MAIN, klass("sparta", "H", 3), 1)],
        DEFENDER_WINS,
    )
    assert g.dead[k] == 1 and g.stack[k] == D.INITIAL_COUNTERS[k] - 1
    assert sum(g.dead) == 1


def test_C7_E31_B11_persian_casualty_returns_to_the_shield_greek_allies_lose_nothing():
    """E31/B.11: a losing Persian-led side loses its lowest Persian counter from the main box,
    which goes back to the shield; the Greek ally's weaker hoplite is not touched."""
    g = mantinea(
        [
            (0, ATT, MAIN, klass("persia", "H", 2), 1),
            (0, ATT, MAIN, klass("persia", "H", 3), 1),
            (0, ATT, ALLIED, klass("athens", "H", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 2),
        ],
        DEFENDER_WINS,
        leaders={"athens": 0, "sparta": 1},
        mains={(0, ATT): 2, (0, DEF): 1},
    )
    assert slot0(g, "casualty") == [("casualty", 0, "attack", "persia-H2")]
    assert sum(g.dead) == 0
    for k in D.CLASSES_OF_CITY[D.PERSIA]:
        assert g.stack[k] == D.INITIAL_COUNTERS[k]  # the whole shield is back
    assert g.stack[klass("athens", "H", 1)] == D.INITIAL_COUNTERS[klass("athens", "H", 1)]


# ---- C.8 outcomes ----------------------------------------------------------------------------


def test_C8_attacker_win_gives_the_tile_and_a_defeat_on_the_owner_track():
    """C.8 row 1: MA takes the tile; one defeat on the owner's track lowers the statue value
    (Sparta 5 -> 4) and the winner's location VP rise by the tile's VP."""
    g = game_at_battles(
        leaders=ALL_LEAD,
        locations=["pylos"],  # Sparta, 4 VP, T->H
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "H", 3), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=ATTACKER_WINS,
    )
    assert g.loc_claim[tile_id("pylos")] == 1 << 0
    assert g.defeats == [0, 1, 0, 0, 0, 0]
    assert D.statue_value(D.SPARTA, g.defeats[D.SPARTA]) == 4
    assert g.location_vp(0) == 4 and g.location_vp(1) == 0
    assert slot0(g, "claim") == [("claim", 0, "pylos", [0], True)]


def test_C8_E38_defeat_goes_to_the_owner_even_when_another_city_defends():
    """C.8 row 1 / E38 / B.11: the owner city (Corinth) gets the defeat, not the main
    defender's city (Athens)."""
    g = game_at_battles(
        leaders=ALL_LEAD,
        locations=["leucas"],  # Corinth, H->T; the T round is an automatic attacker win
        mains={(0, ATT): 1, (0, DEF): 0},
        counters=[
            (0, ATT, MAIN, klass("sparta", "H", 3), 1),
            (0, ATT, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("athens", "H", 2), 1),
        ],
        dice=ATTACKER_WINS,
    )
    assert g.loc_claim[tile_id("leucas")] == 1 << 1
    assert g.defeats == [0, 0, 0, 1, 0, 0]


def test_C8_defender_win_main_defender_takes_the_tile_without_defeat():
    """C.8 row 2: the defending side wins the final round -> MD takes the tile, no defeat."""
    g = mantinea(
        [
            (0, ATT, MAIN, klass("athens", "H", 3), 1),
            (0, DEF, MAIN, klass("argos", "H", 2), 1),
        ],
        DEFENDER_WINS,
        mains={(0, ATT): 0, (0, DEF): 2},
    )
    assert g.loc_claim[tile_id("mantinea")] == 1 << 2 and g.location_vp(2) == 5
    assert g.defeats == [0] * D.NUM_CITIES
    assert slot0(g, "claim") == [("claim", 0, "mantinea", [2], False)]


def test_C8_main_defender_claims_even_when_only_allies_fought():
    """C.8: the defending side's allied box wins; the main defender (no hoplites of his own)
    takes the tile."""
    g = mantinea(
        [
            (0, ATT, MAIN, klass("athens", "H", 1), 1),
            (0, DEF, ALLIED, klass("corinth", "H", 2), 1),
        ],
        DEFENDER_WINS,
        mains={(0, ATT): 0, (0, DEF): 2},
    )
    assert g.loc_claim[tile_id("mantinea")] == 1 << 2
    assert g.location_vp(2) == 5 and g.location_vp(3) == 0


def test_C8_B11_E39_persian_co_leaders_share_a_won_tile_at_full_value():
    """B.11/E39: with two Persian leaders, a Persian win gives the tile to both, each scoring
    its full VP (also in the location-VP tie-break)."""
    g = game_at_battles(
        leaders={"athens": 0, "sparta": 1},  # players 2 and 3 are Persian co-leaders
        locations=["plataea"],  # Athens, 4 VP, H militia
        mains={(0, ATT): 3},
        counters=[(0, ATT, MAIN, klass("persia", "H", 3), 1)],
        dice=rolls((5, 2), (5, 2)),  # 3:1 vs the militia
    )
    assert g.loc_claim[tile_id("plataea")] == (1 << 2) | (1 << 3)
    assert g.location_vp(2) == g.location_vp(3) == 4 and g.location_vp(0) == 0
    assert g.defeats[D.ATHENS] == 1
    assert slot0(g, "claim") == [("claim", 0, "plataea", [2, 3], True)]


def test_C8_B11_persian_co_leaders_share_a_successful_defence():
    """B.11: Persians as main defender win -> every co-leader takes the tile."""
    g = mantinea(
        [
            (0, ATT, MAIN, klass("athens", "H", 1), 1),
            (0, DEF, MAIN, klass("persia", "H", 3), 1),
        ],
        DEFENDER_WINS,
        leaders={"athens": 0, "sparta": 1},
        mains={(0, ATT): 0, (0, DEF): 2},
    )
    assert g.loc_claim[tile_id("mantinea")] == (1 << 2) | (1 << 3)
    assert g.defeats == [0] * D.NUM_CITIES


def test_C8_B11_single_persian_leader_takes_the_tile_alone():
    """B.11: with one Persian leader he takes a won tile like any player."""
    g = game_at_battles(
        leaders={"athens": 0, "sparta": 1, "argos": 2},  # player 3 alone is Persian
        locations=["plataea"],
        mains={(0, ATT): 3},
        counters=[(0, ATT, MAIN, klass("persia", "H", 3), 1)],
        dice=rolls((5, 2), (5, 2)),
    )
    assert g.loc_claim[tile_id("plataea")] == 1 << 3


def test_C8_all_counters_go_home_after_the_battle():
    """C.8: after the outcome every counter left at L returns home (Persians to the shield);
    the only missing counter is the Greek casualty in the dead pool."""
    g = game_at_battles(
        leaders={"athens": 0, "sparta": 1},
        locations=["pylos"],
        mains={(0, ATT): 2, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("persia", "T", 2), 2),
            (0, ATT, MAIN, klass("persia", "H", 3), 2),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 1),
        ],
        dice=ATTACKER_WINS + DEFENDER_WINS,
    )
    assert sum(g.at) == 0
    assert g.dead[klass("sparta", "T", 1)] == 1 and g.dead[klass("persia", "H", 3)] == 0
    for k in range(D.NUM_CLASSES):
        assert g.stack[k] + g.dead[k] == D.INITIAL_COUNTERS[k]


# ---- C.9 the rulebook's worked example -----------------------------------------------------


def test_C9_worked_sicily_example_end_to_end():
    """C.9: Athens (player 0) attacks Spartan Sicily (T->H, militia H + T) held by Sparta
    (player 1). T round 7 vs 5 at +2, rolls 9/6 and 7/11, Athens wins and Sparta loses T1;
    H round 3 vs 7 at 1:2 with Athens' head start, rolls 7/6 and 10/8, roll-off 6/7, Sparta
    wins and Athens loses its lowest hoplite; Sparta keeps Sicily, no defeat."""
    g = prepare_battles(
        leaders={"athens": 0, "sparta": 1},
        locations=["sicily"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 4), 1),
            (0, ATT, MAIN, klass("athens", "T", 3), 1),
            (0, ATT, MAIN, klass("athens", "H", 3), 1),
            (0, DEF, MAIN, klass("sparta", "T", 3), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        dice=rolls((9, 6), (7, 11), (7, 6), (10, 8), (6, 7)),
    )
    start_battles(g)
    fight = [e for e in battle_events(g) if e[0] != "battle" and e[1] == 0]
    assert fight == [
        ("dice_round", 0, "T", 7, 5, "+2", 0, 0),
        ("roll", 0, 9, 6),
        ("roll", 0, 7, 11),
        ("casualty", 0, "defend", "sparta-T1"),
        ("round", 0, "T", "attack", "dice"),
        ("dice_round", 0, "H", 3, 7, "1:2", 1, 0),
        ("roll", 0, 7, 6),
        ("roll", 0, 10, 8),
        ("roll", 0, 6, 7),
        ("casualty", 0, "attack", "athens-H3"),
        ("round", 0, "H", "defend", "dice"),
        ("claim", 0, "sicily", [1], False),
    ]
    assert g.forced_dice == []
    assert g.loc_claim[tile_id("sicily")] == 1 << 1 and g.location_vp(1) == 7
    assert g.defeats == [0] * D.NUM_CITIES
    assert g.dead[klass("sparta", "T", 1)] == 1 and g.dead[klass("athens", "H", 3)] == 1
    assert sum(g.dead) == 2 and sum(g.at) == 0
