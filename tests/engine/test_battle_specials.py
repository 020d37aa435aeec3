"""Phase 6 scenario tests, part 3: the battle special tiles (D.5-D.9, E32-E34, C.4).

Offers follow the engine's leak-free version of D.9 (combat.py docstring): before each DICE
round, every holder of an unused special is asked in clockwise order from the phase-5 first
player, as long as a tile eligible for that round is not yet known to be played; holders of
a non-eligible tile can only pass.
"""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    battle_events,
    klass,
    prepare_battles,
    rolls,
    settle_history,
    start_battles,
)

ATT, DEF = 0, 1
MAIN, ALLIED = 0, 1
ALL_LEAD = {"athens": 0, "sparta": 1, "argos": 2, "corinth": 3}
PASS, DOUBLE = A.BATTLE_PASS, A.BATTLE_DOUBLE
TOKEN_ATT, TOKEN_DEF = A.BATTLE_TOKEN + ATT, A.BATTLE_TOKEN + DEF


def battle(
    location,
    counters,
    specials,
    dice=(),
    mains=None,
    leaders=None,
    first=0,
    played=(),
):
    """Start phase 6 with one battle in slot 1; ``played`` marks special tiles as already
    played earlier in the game (by player 0's seat offset, irrelevant here)."""
    g = prepare_battles(
        leaders=leaders or ALL_LEAD,
        locations=[location],
        mains=mains or {(0, ATT): 1, (0, DEF): 2},
        counters=counters,
        dice=list(dice),
        specials=specials,
        first=first,
    )
    for tile in played:
        g.special_played[tile] = 0
        if tile in g.unseen_specials:
            g.unseen_specials.remove(tile)
    return start_battles(g)


def ev(g, kind):
    return [e for e in battle_events(g) if e[0] == kind]


SPARTA_VS_ARGOS_H = [
    (0, ATT, MAIN, klass("sparta", "H", 2), 1),
    (0, DEF, MAIN, klass("argos", "H", 2), 1),
]
ATHENS_MAINS = {(0, ATT): 0, (0, DEF): 2}
ATHENS_VS_ARGOS_H = [
    (0, ATT, MAIN, klass("athens", "H", 2), 1),
    (0, DEF, MAIN, klass("argos", "H", 2), 1),
]


# ---- D.9 order and leak-free offers -----------------------------------------------------------


def test_D9_holders_asked_one_at_a_time_clockwise_from_phase5_first_player():
    """D.9: first player 3 -> holders asked 3, 0, 1 (player 2 holds nothing); each sees only
    his own legal choices; passing on all rolls the dice."""
    g = battle(
        "mantinea",
        SPARTA_VS_ARGOS_H,
        {0: D.BRASIDAS, 1: D.PERIKLES, 3: D.THESSALIAN},
        dice=rolls((8, 2), (8, 2)),
        first=3,
    )
    asked = []
    expected_legal = {3: [PASS, TOKEN_ATT, TOKEN_DEF], 0: [PASS, DOUBLE], 1: [PASS]}
    while g.phase == Phase.BATTLE_SPECIAL:
        p = g.current_player
        asked.append(p)
        assert g.legal_actions() == expected_legal[p]
        g.apply_action_checked(PASS)
    assert asked == [3, 0, 1]
    assert g.is_terminal and ev(g, "special") == []
    assert ev(g, "dice_round") == [("dice_round", 0, "H", 2, 2, "1:1", 0, 0)]


def test_D9_later_holders_see_earlier_plays_and_offers_stop_when_nothing_is_left():
    """D.9/E33: player 3 gives the defender a token, player 0 then plays Brasidas; with both
    eligible tiles played, player 1 is not asked. Strengths and column are computed after
    all decisions (Spartan H2 doubled: 4 vs 2 -> 2:1), and the log shows both plays."""
    g = battle(
        "mantinea",
        SPARTA_VS_ARGOS_H,
        {0: D.BRASIDAS, 1: D.PERIKLES, 3: D.THESSALIAN},
        dice=rolls((6, 2), (6, 2)),
        first=3,
    )
    assert g.current_player == 3
    g.apply_action_checked(TOKEN_DEF)
    assert g.current_player == 0 and g.legal_actions() == [PASS, DOUBLE]
    g.apply_action_checked(DOUBLE)
    assert g.is_terminal  # player 1 was never asked
    assert ev(g, "special") == [
        ("special", 3, "thessalianallies", 0, "defend"),
        ("special", 0, "brasidas", 0),
    ]
    assert ev(g, "dice_round") == [("dice_round", 0, "H", 4, 2, "2:1", 0, 1)]
    assert g.special[3] == -1 and g.special[0] == -1 and g.special[1] == D.PERIKLES
    assert g.special_played[D.THESSALIAN] == 3 and g.special_played[D.BRASIDAS] == 0


def test_D9_leak_free_non_eligible_holder_is_asked_while_an_eligible_tile_may_be_unplayed():
    """D.9 [ENGINE leak-free]: Thessalian Allies was never dealt (unseen), so it may still be
    unplayed as far as anyone knows: the Perikles holder is asked and can only pass."""
    g = battle(
        "mantinea",
        ATHENS_VS_ARGOS_H,
        mains=ATHENS_MAINS,
        specials={2: D.PERIKLES},
        dice=rolls((8, 2), (8, 2)),
    )
    assert D.THESSALIAN in g.unseen_specials
    assert g.phase == Phase.BATTLE_SPECIAL and g.current_player == 2
    assert g.legal_actions() == [PASS]


def test_D9_no_offer_once_every_eligible_tile_is_known_played():
    """D.9: no Spartan hoplite (Brasidas ineligible) and Thessalian Allies already played ->
    nobody is asked, even a holder of another unused tile."""
    g = battle(
        "mantinea",
        ATHENS_VS_ARGOS_H,
        mains=ATHENS_MAINS,
        specials={2: D.PERIKLES, 3: D.BRASIDAS},
        dice=rolls((8, 2), (8, 2)),
        played=(D.THESSALIAN,),
    )
    assert g.is_terminal and ev(g, "dice_round")


def test_D5_D9_spartan_hoplites_make_brasidas_eligible_for_a_leak_free_offer():
    """D.5/D.9: with Thessalian played but a Spartan hoplite in the round, Brasidas may be
    unplayed, so the holder of an unrelated tile is asked (pass only)."""
    g = battle(
        "mantinea",
        SPARTA_VS_ARGOS_H,
        {0: D.PLAGUE},
        dice=rolls((8, 2), (8, 2)),
        played=(D.THESSALIAN,),
    )
    assert g.phase == Phase.BATTLE_SPECIAL and g.current_player == 0
    assert g.legal_actions() == [PASS]


def test_D5_E34_no_offer_in_an_automatic_round():
    """D.5/E34: Cephallenia (H->T): the attacker has no hoplites -> the H round is an
    automatic defender win and the Brasidas holder is not asked; he is asked (pass only,
    Phormio/Persian Fleet unseen) before the T dice round."""
    g = battle(
        "cephallenia",
        [
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
        ],
        {3: D.BRASIDAS},
        dice=rolls((8, 2), (8, 2)),
        mains={(0, ATT): 0, (0, DEF): 1},
    )
    assert ("round", 0, "H", "defend", "automatic") in battle_events(g)
    assert g.phase == Phase.BATTLE_SPECIAL and g.b_round == 1 and g.current_player == 3
    assert g.legal_actions() == [PASS]


def test_D5_E34_no_offer_in_an_automatic_round_when_t_tiles_are_played():
    """E34: same battle with Phormio and Persian Fleet already played: no offer at all."""
    g = battle(
        "cephallenia",
        [
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
        ],
        {3: D.BRASIDAS},
        dice=rolls((8, 2), (8, 2)),
        mains={(0, ATT): 0, (0, DEF): 1},
        played=(D.PHORMIO, D.PERSIAN_FLEET),
    )
    assert g.is_terminal and g.special[3] == D.BRASIDAS


def test_D6_E34_no_offer_in_an_empty_round():
    """D.6/E34: Pylos (T->H) with no triremes: the T round is empty and the Phormio holder is
    not asked then; he is asked only before the H dice round (pass only)."""
    g = battle(
        "pylos",
        [
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 3), 1),
        ],
        {3: D.PHORMIO},
        dice=rolls((8, 2), (8, 2)),
        mains={(0, ATT): 0, (0, DEF): 1},
    )
    assert ("round", 0, "T", "empty") in battle_events(g)
    assert g.phase == Phase.BATTLE_SPECIAL and g.b_round == 1
    assert g.legal_actions() == [PASS]
    g.apply_action_checked(PASS)
    assert g.is_terminal


def test_D9_no_offer_without_dice_rounds():
    """D.9: uncontested, unattacked and empty locations have no dice rounds -> no offers."""
    g = prepare_battles(
        leaders=ALL_LEAD,
        locations=["attica", "pylos", "mantinea"],
        mains={(0, ATT): 1, (1, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("sparta", "H", 2), 1),
            (1, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        specials={0: D.BRASIDAS, 2: D.THESSALIAN},
    )
    start_battles(g)
    assert g.is_terminal and ev(g, "special") == []


# ---- D.5 / D.6 requirements and doubling (C.4, E32) ------------------------------------------


def test_D5_brasidas_requires_spartan_hoplites_in_the_round():
    """D.5/E34: no Spartan hoplite in the round -> the Brasidas holder may only pass; the
    play raises a typed error and changes nothing."""
    g = battle(
        "mantinea",
        ATHENS_VS_ARGOS_H,
        mains=ATHENS_MAINS,
        specials={1: D.BRASIDAS},
        dice=rolls((8, 2), (8, 2)),
    )
    assert g.current_player == 1 and g.legal_actions() == [PASS]
    before = g.clone()
    with pytest.raises(IllegalActionError) as err:
        g.apply_action_checked(DOUBLE)
    assert err.value.phase == "BATTLE_SPECIAL" and err.value.player == 1
    assert g == before


def test_D6_phormio_requires_athenian_triremes_in_the_round():
    """D.6/E34: a trireme round without Athenian triremes -> Phormio cannot be played."""
    g = battle(
        "pylos",
        [
            (0, ATT, MAIN, klass("corinth", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
        ],
        {0: D.PHORMIO},
        dice=rolls((8, 2), (8, 2)),
        mains={(0, ATT): 3, (0, DEF): 1},
    )
    assert g.current_player == 0 and g.b_round == 0 and g.legal_actions() == [PASS]
    with pytest.raises(IllegalActionError):
        g.apply_action_checked(DOUBLE)


def test_C4_D5_brasidas_doubles_spartan_hoplites_on_both_sides():
    """C.4/D.5: every Spartan hoplite on EITHER side counts double (hand-built box with a
    Spartan H1 allied to the defender): 2 x 3 = 6 vs 2 + 2 x 1 = 4 -> +2 (3 vs 3 at 1:1
    without the tile)."""
    g = battle(
        "mantinea",
        [
            (0, ATT, MAIN, klass("sparta", "H", 3), 1),
            (0, DEF, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, ALLIED, klass("sparta", "H", 1), 1),
        ],
        {1: D.BRASIDAS},
        dice=rolls((7, 2), (7, 2)),
        mains={(0, ATT): 1, (0, DEF): 0},
    )
    g.apply_action_checked(DOUBLE)
    assert ev(g, "dice_round") == [("dice_round", 0, "H", 6, 4, "+2", 0, 0)]


def test_C4_D5_militia_are_never_doubled():
    """C.4/D.5: Plataea's H militia stay at 1: Spartan H2 doubled = 4 vs 1 -> 3:1."""
    g = battle(
        "plataea",
        [(0, ATT, MAIN, klass("sparta", "H", 2), 1)],
        {1: D.BRASIDAS},
        dice=rolls((5, 2), (5, 2)),
        mains={(0, ATT): 1},
    )
    g.apply_action_checked(DOUBLE)
    assert ev(g, "dice_round") == [("dice_round", 0, "H", 4, 1, "3:1", 0, 0)]


def test_E32_brasidas_doubling_lasts_for_its_round_only():
    """E32: Brasidas played in the H round of Cephallenia (H->T) does not double anything in
    the T round (BGA would double Athenian triremes there): T round 1 vs 2 at 1:2."""
    g = battle(
        "cephallenia",
        [
            (0, ATT, MAIN, klass("sparta", "H", 2), 1),
            (0, ATT, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("athens", "T", 2), 1),
        ],
        {1: D.BRASIDAS},
        dice=rolls((6, 2), (6, 2), (10, 2)),
        mains={(0, ATT): 1, (0, DEF): 0},
    )
    assert g.b_round == 0
    g.apply_action_checked(DOUBLE)
    assert g.is_terminal  # the only holder has used his tile: no offer before the T round
    assert ev(g, "dice_round") == [
        ("dice_round", 0, "H", 4, 2, "2:1", 0, 0),
        ("dice_round", 0, "T", 1, 2, "1:2", 1, 0),
    ]


def test_E32_phormio_doubling_lasts_for_its_round_only():
    """D.6/E32: Phormio doubles Athenian triremes (2 x 2 = 4 vs 2 -> 2:1) in the T round of
    Pylos; the following H round is not doubled for anyone (2 vs 2 at 1:1)."""
    g = battle(
        "pylos",
        [
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        {0: D.PHORMIO},
        dice=rolls((6, 2), (6, 2), (8, 2)),
        mains={(0, ATT): 0, (0, DEF): 1},
    )
    g.apply_action_checked(DOUBLE)
    assert ev(g, "special") == [("special", 0, "phormio", 0)]
    assert ev(g, "dice_round") == [
        ("dice_round", 0, "T", 4, 2, "2:1", 0, 0),
        ("dice_round", 0, "H", 2, 2, "1:1", 1, 0),
    ]


def test_C7_D5_casualty_ignores_doubling():
    """C.7 step 2: the lowest PRINTED strength dies: doubled sparta-H1 (worth 2) and argos-H2
    are not a tie; sparta-H1 dies with no casualty decision."""
    g = battle(
        "mantinea",
        [
            (0, ATT, MAIN, klass("sparta", "H", 1), 1),
            (0, ATT, MAIN, klass("argos", "H", 2), 1),
            (0, DEF, MAIN, klass("athens", "H", 3), 2),
        ],
        {1: D.BRASIDAS},
        dice=rolls((2, 12), (2, 12)),
        leaders={"athens": 0, "sparta": 1, "argos": 1},
        mains={(0, ATT): 1, (0, DEF): 0},
    )
    g.apply_action_checked(DOUBLE)
    assert ev(g, "dice_round") == [("dice_round", 0, "H", 4, 6, "-2", 0, 0)]
    assert g.is_terminal
    assert ev(g, "casualty") == [("casualty", 0, "attack", "sparta-H1")]


# ---- D.7 / D.8 token tiles (E34) -----------------------------------------------------------


def pylos_head_start(specials, dice):
    """Pylos (T->H): Athens wins the T round by dice, so it holds the head start in the H
    round; Spartan hoplites are in that round."""
    return battle(
        "pylos",
        [
            (0, ATT, MAIN, klass("athens", "T", 2), 1),
            (0, ATT, MAIN, klass("athens", "H", 2), 1),
            (0, DEF, MAIN, klass("sparta", "T", 2), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
        specials,
        dice=rolls((8, 2), (8, 2)) + dice,
        mains={(0, ATT): 0, (0, DEF): 1},
    )


def test_D7_E34_thessalian_only_for_a_side_holding_no_token():
    """D.7/E34: the attacker holds the head start -> Thessalian Allies may only go to the
    defender (1:1); giving the attacker a second token is illegal."""
    g = pylos_head_start({2: D.THESSALIAN}, rolls((2, 7)))
    # Before the T round: Phormio / Persian Fleet unseen -> asked, pass only.
    assert g.b_round == 0 and g.current_player == 2 and g.legal_actions() == [PASS]
    g.apply_action_checked(PASS)
    assert g.b_round == 1 and g.current_player == 2
    assert g.legal_actions() == [PASS, TOKEN_DEF]
    before = g.clone()
    with pytest.raises(IllegalActionError):
        g.apply_action_checked(TOKEN_ATT)
    assert g == before
    g.apply_action_checked(TOKEN_DEF)
    assert ev(g, "special") == [("special", 2, "thessalianallies", 0, "defend")]
    assert ev(g, "dice_round")[1] == ("dice_round", 0, "H", 2, 2, "1:1", 1, 1)
    # One defender hit now wins the round (and the tile) for Sparta.
    assert len(ev(g, "roll")) == 3
    assert g.loc_claim[D.LOCATION_IDS["pylos"]] == 1 << 1


def test_D7_token_in_round_one_for_either_side():
    """D.7: at 0:0 both sides may receive the token; the attacker then needs one hit."""
    g = battle(
        "mantinea",
        SPARTA_VS_ARGOS_H,
        {3: D.THESSALIAN},
        dice=rolls((8, 7)),
        played=(D.BRASIDAS,),
    )
    assert g.legal_actions() == [PASS, TOKEN_ATT, TOKEN_DEF]
    g.apply_action_checked(TOKEN_ATT)
    assert ev(g, "dice_round") == [("dice_round", 0, "H", 2, 2, "1:1", 1, 0)]
    assert ("round", 0, "H", "attack", "dice") in battle_events(g)
    assert g.forced_dice == []


def test_D8_persian_fleet_in_a_trireme_round_not_a_hoplite_round():
    """D.8: Persian Fleet gives a token before a T dice round; before an H dice round its
    holder may only pass."""
    g = battle(
        "naupactus",  # T->H
        [
            (0, ATT, MAIN, klass("sparta", "T", 1), 1),
            (0, ATT, MAIN, klass("sparta", "H", 2), 1),
            (0, DEF, MAIN, klass("athens", "T", 1), 1),
            (0, DEF, MAIN, klass("athens", "H", 2), 1),
        ],
        {3: D.PERSIAN_FLEET, 2: D.PERIKLES},
        dice=rolls((2, 7), (8, 2), (8, 2)),
        mains={(0, ATT): 1, (0, DEF): 0},
    )
    assert g.b_round == 0 and g.current_player == 2 and g.legal_actions() == [PASS]
    g.apply_action_checked(PASS)
    assert g.current_player == 3 and g.legal_actions() == [PASS, TOKEN_ATT, TOKEN_DEF]
    g.apply_action_checked(TOKEN_DEF)
    assert ev(g, "special") == [("special", 3, "persianfleet", 0, "defend")]
    assert ev(g, "dice_round")[0] == ("dice_round", 0, "T", 1, 1, "1:1", 0, 1)
    # H round: Brasidas/Thessalian unseen -> player 2 asked again, pass only; 3 no longer.
    assert g.b_round == 1 and g.current_player == 2 and g.legal_actions() == [PASS]
    g.apply_action_checked(PASS)
    assert g.is_terminal
    assert ev(g, "dice_round")[1] == ("dice_round", 0, "H", 2, 2, "1:1", 0, 1)


def test_D8_persian_fleet_holder_only_passes_before_a_hoplite_round():
    """D.8: the Persian Fleet holder cannot use it in an H round."""
    g = battle(
        "mantinea",
        ATHENS_VS_ARGOS_H,
        mains=ATHENS_MAINS,
        specials={3: D.PERSIAN_FLEET},
        dice=rolls((8, 2), (8, 2)),
    )
    assert g.current_player == 3 and g.legal_actions() == [PASS]
    with pytest.raises(IllegalActionError):
        g.apply_action_checked(TOKEN_ATT)


def test_D_battle_specials_are_used_once_per_game():
    """D (general): a played tile is gone: at the next location (also Spartan hoplites, H
    dice round) nobody is asked and no doubling or token carries over."""
    g = prepare_battles(
        leaders=ALL_LEAD,
        locations=["mantinea", "attica"],
        mains={(0, ATT): 1, (0, DEF): 2, (1, ATT): 1, (1, DEF): 0},
        counters=SPARTA_VS_ARGOS_H
        + [
            (1, ATT, MAIN, klass("sparta", "H", 3), 1),
            (1, DEF, MAIN, klass("athens", "H", 3), 1),
        ],
        specials={0: D.THESSALIAN, 1: D.BRASIDAS},
        dice=rolls((6, 2), (6, 2), (8, 7), (8, 2)),
    )
    start_battles(g)
    assert g.current_player == 0
    g.apply_action_checked(TOKEN_DEF)
    assert g.current_player == 1
    g.apply_action_checked(DOUBLE)
    assert g.is_terminal
    assert [e[1] for e in ev(g, "special")] == [0, 1]
    assert ev(g, "dice_round") == [
        ("dice_round", 0, "H", 4, 2, "2:1", 0, 1),
        ("dice_round", 1, "H", 3, 3, "1:1", 0, 0),
    ]
    assert g.special[0] == g.special[1] == -1


def test_D9_pending_offer_survives_a_state_round_trip():
    """D.9 offers interrupt the battle state machine: a game saved at a pending offer and
    restored (to_dict/from_dict, clone) resumes identically, dice included."""
    g = battle(
        "mantinea",
        SPARTA_VS_ARGOS_H,
        {0: D.BRASIDAS, 3: D.THESSALIAN},
        first=3,
    )
    restored = Game.from_dict(settle_history(g).to_dict())
    twin = g.clone()
    assert restored == g == twin
    for game in (g, restored, twin):
        game.apply_action_checked(TOKEN_ATT)
        game.apply_action_checked(DOUBLE)
    assert g.is_terminal and restored == g == twin
    assert ev(restored, "dice_round") == [("dice_round", 0, "H", 4, 2, "2:1", 1, 0)]
