"""Setup (B.1), phase 1 (B.3) and phase 2 influence picks (B.4): order, the same-colour
rule and its exception, the four tile kinds, the cube supply (B.12/E5), skipped actions
(E14), cube-first (E15), assassinated candidates (E16) and an empty display (E17)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    clear_cubes,
    events_of,
    game_at_pick,
    influence_ids,
    new_game,
    seat_offset,
    set_candidate,
    set_cubes,
)

ATHENS_PLAIN, ATHENS_CAND, ATHENS_ASSN = (
    influence_ids("athens", "plain")[0],
    influence_ids("athens", "candidate")[0],
    influence_ids("athens", "assassin")[0],
)
SPARTA_PLAIN = influence_ids("sparta", "plain")[0]
SPARTA_CAND = influence_ids("sparta", "candidate")[0]
MEGARA_CAND = influence_ids("megara", "candidate")[0]
THEBES_ASSN = influence_ids("thebes", "assassin")[0]
ANY = influence_ids("any", "any")
PHASE2 = {
    Phase.INFLUENCE_PICK,
    Phase.ANY_CITY,
    Phase.CANDIDATE_TILE,
    Phase.ASSASSIN_TILE,
    Phase.POST_PICK_SPECIAL,
    Phase.ALKIBIADES_CUBE,
    Phase.ALKIBIADES_DEST,
}


def take(slot: int) -> int:
    return A.TAKE_TILE + slot


def propose(g: Game, city: int, nominee: int) -> int:
    return A.city_player(A.PROPOSE, city, seat_offset(g, nominee))


def board(g: Game, p: int) -> int:
    return sum(g.cubes[c * 5 + p] for c in range(D.NUM_CITIES))


def assert_rejected(g: Game, action: object, phase: str) -> IllegalActionError:
    """The action raises IllegalActionError naming phase, player and action; no change."""
    before = g.to_dict()
    with pytest.raises(IllegalActionError) as info:
        g.apply_action_checked(action)
    err = info.value
    assert err.phase == phase and err.player == g.current_player and err.action == action
    assert phase in str(err) and f"player {g.current_player}" in str(err)
    assert g.to_dict() == before
    return err


# ---- B.1 setup -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5])
def test_b1_initial_state(n: int) -> None:
    """B.1 steps 1-8, 10: 2 cubes per city each (18 left in supply), 10 distinct influence
    tiles face up and 26 in the deck, one special each and 8-N unseen, 7 of 21 locations,
    full city stacks and Persian shield, empty dead pool, no defeats, first player decides."""
    g = new_game(n, seed=11)
    assert g.turn == 1 and g.phase == Phase.SETUP_PLACE
    assert g.current_player == g.first_player and 0 <= g.first_player < n
    for p in range(n):
        assert [g.cubes[c * 5 + p] for c in range(6)] == [2] * 6
        assert g.supply[p] == 18
    assert g.cand == [-1] * 12  # "all twelve" candidate slots (A.8)
    assert len(g.display) == 10 and len(g.influence_deck) == 26
    assert sorted(g.display + g.influence_deck) == list(range(36))
    dealt = g.special[:n]
    assert all(t >= 0 for t in dealt) and g.special[n:] == [-1] * (5 - n)
    assert len(g.unseen_specials) == 8 - n
    assert sorted(dealt + g.unseen_specials) == list(range(8))
    assert g.special_played == [-1] * 8
    assert len(g.loc_display) == 7 and len(g.loc_deck) == 14
    assert sorted(g.loc_display + g.loc_deck) == list(range(21))
    assert g.stack == list(D.INITIAL_COUNTERS)
    assert not any(g.pool) and not any(g.dead) and not any(g.at)
    assert g.defeats == [0] * 6 and not any(g.statues) and g.leader == [-1] * 6
    g.check_invariants()


@pytest.mark.parametrize("n", [3, 4, 5])
def test_b1_step9_two_rounds_clockwise_then_phase2(n: int) -> None:
    """B.1 steps 9 and 11: two rounds of one cube each, clockwise from the first player,
    into the chosen city's main area; then 14 cubes on the board and 16 in supply, and
    turn 1 starts at phase 2 with the first player's pick (B.4)."""
    g = new_game(n, seed=5)
    first = g.first_player
    seats, chosen = [], []
    for i in range(2 * n):
        assert g.phase == Phase.SETUP_PLACE
        assert g.legal_actions() == [A.SETUP_CUBE + c for c in range(6)]
        city = (3 * i + 1) % 6
        seats.append(g.current_player)
        chosen.append((g.current_player, city))
        g.apply_action_checked(A.SETUP_CUBE + city)
    assert seats == [(first + i) % n for i in range(2 * n)]
    for p in range(n):
        expected = [2 + sum(1 for q, c in chosen if q == p and c == city) for city in range(6)]
        assert [g.cubes[c * 5 + p] for c in range(6)] == expected
        assert board(g, p) == 14 and g.supply[p] == 16
    assert g.phase == Phase.INFLUENCE_PICK and g.current_player == first
    assert ("phase", 1, "influence", first) in g.event_log


@pytest.mark.parametrize("n", [3, 4, 5])
def test_b1_step7_first_player_is_drawn_from_every_seat(n: int) -> None:
    """B.1 step 7: the first player is random, so over 60 seeds every seat gets it."""
    assert {new_game(n, seed=s).first_player for s in range(60)} == set(range(n))


def test_b1_same_seed_same_game_different_seed_different_deal() -> None:
    """B.1 / determinism: the shuffles and the first player come from the seeded RNG."""
    assert new_game(4, seed=3) == new_game(4, seed=3)
    assert new_game(4, seed=3).to_dict() == new_game(4, seed=3).to_dict()
    a, b = new_game(4, seed=3), new_game(4, seed=4)
    assert (a.display, a.loc_display, a.special) != (b.display, b.loc_display, b.special)


def test_b1_illegal_setup_actions_are_rejected_unchanged() -> None:
    """B.1 step 9: only SETUP_CUBE ids are legal; anything else raises, state unchanged."""
    g = new_game(4, seed=2)
    assert_rejected(g, take(0), "SETUP_PLACE")
    assert_rejected(g, A.PLAY_PERIKLES, "SETUP_PLACE")
    assert_rejected(g, -1, "SETUP_PLACE")
    assert_rejected(g, A.NUM_ACTIONS, "SETUP_PLACE")
    assert_rejected(g, True, "SETUP_PLACE")
    assert_rejected(g, "3", "SETUP_PLACE")


# ---- B.3 phase 1 -----------------------------------------------------------------------------


def test_b3_phase1_redeals_all_36_and_next_seven_locations() -> None:
    """B.3: at a new turn all 36 influence tiles are reshuffled and 10 dealt; the next 7
    location tiles come from the top of the location deck; colours taken are reset. After
    turn 2's draw the location deck is empty (21 = 3 x 7)."""
    g = new_game(4, seed=9)
    g.colours_taken = [0b1011, 0b1, 0, 0b1000000, 0]
    old_deck = g.loc_display[:], g.loc_deck[:]
    g._end_turn()
    assert g.turn == 2 and g.phase == Phase.INFLUENCE_PICK
    assert len(g.display) == 10 and len(set(g.display)) == 10
    assert sorted(g.display + g.influence_deck) == list(range(36))
    assert g.loc_display == old_deck[1][::-1][:7]  # popped from the top (end) of the deck
    assert g.loc_deck == old_deck[1][:7]
    assert g.colours_taken == [0] * 5
    g._end_turn()
    assert g.turn == 3 and g.loc_deck == [] and len(g.loc_display) == 7
    assert sorted(g.loc_display) == sorted(old_deck[1][:7])


# ---- B.4 order --------------------------------------------------------------------------------


def first_legal_until_phase3(g: Game) -> None:
    while g.phase in PHASE2:
        g.apply_action_checked(g.legal_actions()[0])


@pytest.mark.parametrize(("n", "first"), [(3, 2), (4, 1), (5, 3)])
def test_b4_k_rounds_clockwise_from_first_player(n: int, first: int) -> None:
    """B.4 order: k rounds (5 with 3-4 players, 4 with 5) of one pick each, clockwise from
    the first player; the phase ends with k tiles held each, then phase 3 starts (B.5)."""
    g = game_at_pick(n=n, first=first, seed=n)
    first_legal_until_phase3(g)
    k = D.TILES_PER_PLAYER[n]
    pickers = [e[1] for e in events_of(g, "take_tile")]
    assert pickers == [(first + i) % n for i in range(k * n)]
    assert [g.held1[p] + g.held2[p] for p in range(n)] == [k] * n
    assert ("phase", 1, "proposals", first) in g.event_log


def test_b4_step2_no_pass_in_a_pick() -> None:
    """B.4 step 2: passing is not allowed; a pick offers only display tiles."""
    g = game_at_pick(first=0)
    assert g.legal_actions() == [take(s) for s in range(10)]
    assert_rejected(g, A.END_PICK, "INFLUENCE_PICK")


# ---- B.4 same-colour rule ------------------------------------------------------------------------


def test_b4_same_colour_rule_brown_is_a_colour() -> None:
    """B.4 step 2: no tile of a colour already taken this turn; brown "Any City" is a colour
    of its own. Empty display slots are never offered."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN, ATHENS_CAND, SPARTA_PLAIN, ANY[0], ANY[1]])
    g.colours_taken[0] = 1 << D.ATHENS | 1 << D.BROWN
    assert g.legal_actions() == [take(2)]
    assert_rejected(g, take(0), "INFLUENCE_PICK")
    assert_rejected(g, take(3), "INFLUENCE_PICK")
    assert_rejected(g, take(7), "INFLUENCE_PICK")  # empty slot


def test_b4_same_colour_exception_when_every_colour_is_held() -> None:
    """B.4 step 2 exception: if every displayed tile has a colour he holds, any tile."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN, ATHENS_CAND, SPARTA_PLAIN, ANY[0]])
    g.colours_taken[0] = 1 << D.ATHENS | 1 << D.SPARTA | 1 << D.BROWN
    assert g.legal_actions() == [take(0), take(1), take(2), take(3)]
    g.apply_action_checked(take(1))  # a second Athens tile
    assert events_of(g, "take_tile") == [("take_tile", 0, "athens-candidate")]


def test_b4_taken_colour_is_remembered_for_later_picks() -> None:
    """B.4 step 2: a taken tile's colour (brown included) blocks that colour afterwards."""
    g = game_at_pick(n=3, first=0, display=[ANY[0], ANY[1], SPARTA_PLAIN, ATHENS_PLAIN])
    g.influence_deck = [THEBES_ASSN, SPARTA_CAND, ANY[2]]  # refills, top last
    g.apply_action_checked(take(0))
    assert g.phase == Phase.ANY_CITY
    g.apply_action_checked(A.ANY_CITY + D.MEGARA)
    assert g.colours_taken[0] == 1 << D.BROWN
    g.apply_action_checked(take(2))  # player 1: sparta
    g.apply_action_checked(take(3))  # player 2: athens
    assert g.current_player == 0
    assert g.display[:4] == [ANY[2], ANY[1], SPARTA_CAND, THEBES_ASSN]
    assert g.legal_actions() == [take(2), take(3)]  # both brown tiles are blocked


# ---- B.4 step 3: the four tile kinds ------------------------------------------------------------


def test_b4_plain_tile_adds_two_cubes_and_refills_from_deck_top() -> None:
    """B.4 step 3 (plain: +2 cubes in its city), step 4 (kept: a 2-shard tile held) and
    step 6 (the slot is refilled from the top of the deck); then the next player picks."""
    g = game_at_pick(first=0, display=[SPARTA_PLAIN, ATHENS_PLAIN, ANY[0]])
    deck = g.influence_deck[:]
    g.apply_action_checked(take(1))
    assert g.cubes[D.ATHENS * 5 + 0] == 4 and g.supply[0] == 16
    assert (g.held2[0], g.held1[0]) == (1, 0)
    assert g.colours_taken[0] == 1 << D.ATHENS
    assert g.display[1] == deck[-1] and g.influence_deck == deck[:-1]
    assert ATHENS_PLAIN not in g.display + g.influence_deck
    assert g.phase == Phase.INFLUENCE_PICK and g.current_player == 1
    assert events_of(g, "take_tile") == [("take_tile", 0, "athens-plain")]
    g.check_invariants()


def test_b4_any_city_tile_adds_one_cube_where_chosen() -> None:
    """A.5/B.4 step 3: an Any City tile asks for a city and adds 1 cube there."""
    g = game_at_pick(first=2, display=[ANY[2]])
    g.apply_action_checked(take(0))
    assert g.phase == Phase.ANY_CITY and g.current_player == 2
    assert g.legal_actions() == [A.ANY_CITY + c for c in range(6)]
    g.apply_action_checked(A.ANY_CITY + D.THEBES)
    assert g.cubes[D.THEBES * 5 + 2] == 3 and g.supply[2] == 17
    assert (g.held2[2], g.held1[2]) == (0, 1)
    assert g.phase == Phase.INFLUENCE_PICK and g.current_player == 3


def test_b4_candidate_tile_cube_then_proposal_exact_choices() -> None:
    """B.4 step 3 (candidate): +1 cube in the tile's city, then one proposal anywhere under
    B.5: the proposer needs a cube in C, the nominee a main-area cube in C."""
    g = game_at_pick(first=0, display=[SPARTA_CAND])
    clear_cubes(g)
    set_cubes(g, "athens", 0, 1)
    set_cubes(g, "athens", 1, 2)
    set_cubes(g, "sparta", 2, 1)
    set_cubes(g, "corinth", 3, 4)  # player 0 has no cube in Corinth: no proposal there
    g.apply_action_checked(take(0))
    assert g.cubes[D.SPARTA * 5 + 0] == 1  # cube first (E15)
    assert g.phase == Phase.CANDIDATE_TILE and g.current_player == 0
    assert sorted(g.legal_actions()) == sorted(
        [
            propose(g, D.ATHENS, 0),
            propose(g, D.ATHENS, 1),
            propose(g, D.SPARTA, 0),
            propose(g, D.SPARTA, 2),
        ]
    )
    g.apply_action_checked(propose(g, D.ATHENS, 1))
    assert g.cand[D.ATHENS * 2] == 1 and g.cubes[D.ATHENS * 5 + 1] == 1
    assert g.phase == Phase.INFLUENCE_PICK and g.current_player == 1
    g.check_invariants()


def test_e15_cube_first_makes_the_proposal_legal() -> None:
    """E15: the Candidate tile's cube is placed before the proposal, so a player with no
    cube anywhere can propose in the tile's city (himself included) right after."""
    g = game_at_pick(first=0, display=[MEGARA_CAND])
    clear_cubes(g)
    set_cubes(g, "megara", 2, 3)
    set_cubes(g, "athens", 1, 3)
    assert g._proposals(0) == []  # nothing before the cube
    g.apply_action_checked(take(0))
    assert g.phase == Phase.CANDIDATE_TILE
    assert sorted(g.legal_actions()) == sorted([propose(g, D.MEGARA, 0), propose(g, D.MEGARA, 2)])
    g.apply_action_checked(propose(g, D.MEGARA, 0))
    assert g.cand[D.MEGARA * 2] == 0 and g.cubes[D.MEGARA * 5 + 0] == 0


def test_e14_candidate_tile_with_all_slots_full_skips_the_proposal() -> None:
    """E14: no legal proposal (all 12 slots full): the proposal is skipped, the cube is not."""
    g = game_at_pick(n=3, first=1, display=[ATHENS_CAND])
    for c in D.CITY_NAMES:
        set_candidate(g, c, "alpha", 0)
        set_candidate(g, c, "beta", 2)
    g.apply_action_checked(take(0))
    assert g.cubes[D.ATHENS * 5 + 1] == 3
    assert ("action_skipped", 1, "candidate") in g.event_log
    assert g.phase == Phase.INFLUENCE_PICK and g.current_player == 2
    g.check_invariants()


def test_b4_assassin_tile_cube_then_removal_exact_choices() -> None:
    """B.4 step 3 (assassin): +1 cube, then remove exactly one cube of any colour (own
    allowed) from any main area or candidate slot; it goes to its owner's supply."""
    g = game_at_pick(n=3, first=0, display=[THEBES_ASSN])
    clear_cubes(g)
    set_cubes(g, "athens", 1, 2)
    set_cubes(g, "sparta", 2, 1)
    set_candidate(g, "sparta", "alpha", 1)
    g.apply_action_checked(take(0))
    assert g.cubes[D.THEBES * 5 + 0] == 1 and g.phase == Phase.ASSASSIN_TILE
    assert sorted(g.legal_actions()) == sorted(
        [
            A.assassinate(D.ATHENS, 1),
            A.assassinate(D.SPARTA, 2),
            A.assassinate(D.SPARTA, A.ASSASSIN_ALPHA),
            A.assassinate(D.THEBES, 0),  # his own new cube
        ]
    )
    assert_rejected(g, A.assassinate(D.SPARTA, A.ASSASSIN_BETA), "ASSASSIN_TILE")
    supply = g.supply[:]
    g.apply_action_checked(A.assassinate(D.ATHENS, 1))
    assert g.cubes[D.ATHENS * 5 + 1] == 1 and g.supply[1] == supply[1] + 1
    assert ("assassinate", 0, "athens", 1, "main") in g.event_log
    assert g.current_player == 1 and g.phase == Phase.INFLUENCE_PICK
    g.check_invariants()


def assassin_pick_with_candidates() -> Game:
    """Player 0 picks an Athens assassin; Sparta has alpha = player 1, beta = player 2."""
    g = game_at_pick(first=0, display=[ATHENS_ASSN])
    set_candidate(g, "sparta", "alpha", 1)
    set_candidate(g, "sparta", "beta", 2)
    g.apply_action_checked(take(0))
    assert g.phase == Phase.ASSASSIN_TILE
    return g


def test_e16_assassinated_alpha_is_replaced_by_beta() -> None:
    """E16: removing the alpha candidate moves beta up to alpha; the cube goes home."""
    g = assassin_pick_with_candidates()
    supply1 = g.supply[1]
    g.apply_action_checked(A.assassinate(D.SPARTA, A.ASSASSIN_ALPHA))
    assert g.cand[D.SPARTA * 2 : D.SPARTA * 2 + 2] == [2, -1]
    assert g.supply[1] == supply1 + 1
    assert ("assassinate", 0, "sparta", 1, "alpha") in g.event_log
    # The freed slot is filled normally in phase 3: beta proposals exist in Sparta again.
    assert any(A.decode(a)[1] == D.SPARTA for a in g._proposals(g.current))
    g.check_invariants()


def test_e16_assassinated_beta_leaves_alpha() -> None:
    """E16 / B.4 step 3: removing beta empties beta and leaves alpha in place."""
    g = assassin_pick_with_candidates()
    supply2 = g.supply[2]
    g.apply_action_checked(A.assassinate(D.SPARTA, A.ASSASSIN_BETA))
    assert g.cand[D.SPARTA * 2 : D.SPARTA * 2 + 2] == [1, -1]
    assert g.supply[2] == supply2 + 1


def test_e16_assassinated_lone_alpha_empties_the_city() -> None:
    """E16: a lone alpha candidate removed leaves both slots empty."""
    g = game_at_pick(first=0, display=[ATHENS_ASSN])
    set_candidate(g, "argos", "alpha", 3)
    g.apply_action_checked(take(0))
    g.apply_action_checked(A.assassinate(D.ARGOS, A.ASSASSIN_ALPHA))
    assert g.cand[D.ARGOS * 2 : D.ARGOS * 2 + 2] == [-1, -1]
    assert g.supply[3] == 18
    g.check_invariants()


# ---- B.12 / E5 cube supply ----------------------------------------------------------------------


@pytest.mark.parametrize(("supply", "added"), [(1, 1), (0, 0), (2, 2)])
def test_b12_plain_tile_adds_only_what_the_supply_holds(supply: int, added: int) -> None:
    """B.12/E5: an addition places min(required, supply); the rest is lost, no overshoot."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN])
    set_cubes(g, "corinth", 0, 2 + 18 - supply)
    g.apply_action_checked(take(0))
    assert g.cubes[D.ATHENS * 5 + 0] == 2 + added and g.supply[0] == supply - added
    assert ("cubes", 0, "athens", added) in g.event_log
    g.check_invariants()


def test_b12_empty_supply_candidate_and_any_city_tiles_add_nothing() -> None:
    """B.12: with an empty supply the Candidate tile's cube is lost but its proposal still
    happens; an Any City tile adds nothing either."""
    g = game_at_pick(n=3, first=0, display=[SPARTA_CAND, ANY[0]])
    set_cubes(g, "corinth", 0, 20)
    assert g.supply[0] == 0
    g.apply_action_checked(take(0))
    assert g.cubes[D.SPARTA * 5 + 0] == 2 and g.phase == Phase.CANDIDATE_TILE
    g.apply_action_checked(propose(g, D.SPARTA, 1))
    assert g.cand[D.SPARTA * 2] == 1
    g.apply_action_checked(take(1))  # player 1 takes the Any City tile: has supply
    g.apply_action_checked(A.ANY_CITY + D.ARGOS)
    assert g.cubes[D.ARGOS * 5 + 1] == 3
    g.check_invariants()


def test_b12_any_city_tile_with_empty_supply_adds_nothing() -> None:
    """B.12: an Any City tile taken with an empty supply places no cube anywhere."""
    g = game_at_pick(n=3, first=0, display=[ANY[0]])
    set_cubes(g, "corinth", 0, 20)
    cubes = g.cubes[:]
    g.apply_action_checked(take(0))
    while g.current_player == 0:  # whatever the engine still asks, it changes no cube
        g.apply_action_checked(g.legal_actions()[0])
    assert g.cubes == cubes and g.supply[0] == 0
    assert (g.held1[0], g.colours_taken[0]) == (1, 1 << D.BROWN)


# ---- B.4 step 6 / E17 ----------------------------------------------------------------------------


def test_e17_empty_deck_leaves_slot_empty_and_empty_display_skips_picks() -> None:
    """B.4 step 6/E17: with an empty deck the taken tile's slot stays empty; once the display
    is empty the remaining picks are skipped and phase 3 begins."""
    g = game_at_pick(n=3, first=0, display=[ANY[0], SPARTA_PLAIN])
    g.influence_deck = []
    g.apply_action_checked(take(1))
    assert g.display[1] == -1 and g.current_player == 1
    g.apply_action_checked(take(0))
    g.apply_action_checked(A.ANY_CITY + D.MEGARA)
    assert g.display == [-1] * 10
    assert [e[1] for e in events_of(g, "pick_skipped")] == [(2 + i) % 3 for i in range(13)]
    assert g.phase not in PHASE2
    assert ("phase", 1, "proposals", 0) in g.event_log
