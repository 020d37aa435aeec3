"""The influence-window specials Perikles, Plague and Alkibiades (docs/rules.md D.1-D.3, E18-E20):
their effects, their windows (own pick, before the tile inside INFLUENCE_PICK or after it in
POST_PICK_SPECIAL; never in setup, in a tile's sub-decision or in phase 3), once per game,
kept across turns, and the leak-free after-tile offer (section F; engine/influence.py)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.game import PHASE_ACTION_RANGES
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
    set_specials,
)

ATHENS_PLAIN = influence_ids("athens", "plain")[0]
SPARTA_PLAIN = influence_ids("sparta", "plain")[0]
ARGOS_PLAIN = influence_ids("argos", "plain")[0]
ATHENS_CAND = influence_ids("athens", "candidate")[0]
ATHENS_ASSN = influence_ids("athens", "assassin")[0]
ANY = influence_ids("any", "any")
TAKES = [A.TAKE_TILE + s for s in range(10)]
PLAGUE_ACTIONS = [A.PLAY_PLAGUE + c for c in range(6)]


def take(slot: int) -> int:
    return A.TAKE_TILE + slot


def alki(g: Game, city: int, owner: int) -> int:
    return A.city_player(A.ALKIBIADES_CUBE, city, seat_offset(g, owner))


def cubes_in(g: Game, city: int) -> list[int]:
    return [g.cubes[city * 5 + p] for p in range(g.n)]


def assert_rejected(g: Game, action: int) -> None:
    """IllegalActionError naming phase, player and action; the state is unchanged."""
    before = g.to_dict()
    with pytest.raises(IllegalActionError) as info:
        g.apply_action_checked(action)
    err = info.value
    assert (err.phase, err.player, err.action) == (g.phase.name, g.current_player, action)
    assert g.phase.name in str(err) and g.action_to_str(action) in str(err)
    assert g.to_dict() == before


def first_legal_until(g: Game, player: int, phase: Phase) -> None:
    """Play the first legal action until ``player`` decides in ``phase``."""
    while not (g.current_player == player and g.phase == phase):
        g.apply_action_checked(g.legal_actions()[0])


# ---- D.1 Perikles ------------------------------------------------------------------------------


def test_d1_perikles_before_the_tile() -> None:
    """D.1/B.4 step 1: played inside the pick decision; 2 cubes to Athens; the pick then
    continues with the tile choice only, and no after-tile window follows (step 5)."""
    g = game_at_pick(first=0, display=[SPARTA_PLAIN, ARGOS_PLAIN], specials={0: D.PERIKLES})
    assert g.legal_actions() == sorted([take(0), take(1), A.PLAY_PERIKLES])
    g.apply_action_checked(A.PLAY_PERIKLES)
    assert cubes_in(g, D.ATHENS) == [4, 2, 2, 2] and g.supply[0] == 16
    assert g.special[0] == -1 and g.special_played[D.PERIKLES] == 0
    assert events_of(g, "special") == [("special", 0, "perikles")]
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 0)
    assert g.legal_actions() == [take(0), take(1)]
    g.apply_action_checked(take(0))
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)
    g.check_invariants()


def test_d1_perikles_after_the_tile() -> None:
    """D.1/B.4 step 5: after resolving his tile the owner may play it; then the pick ends."""
    g = game_at_pick(first=2, display=[SPARTA_PLAIN], specials={2: D.PERIKLES})
    g.apply_action_checked(take(0))
    assert (g.phase, g.current_player) == (Phase.POST_PICK_SPECIAL, 2)
    assert g.legal_actions() == sorted([A.END_PICK, A.PLAY_PERIKLES])
    g.apply_action_checked(A.PLAY_PERIKLES)
    assert cubes_in(g, D.ATHENS) == [2, 2, 4, 2] and cubes_in(g, D.SPARTA) == [2, 2, 4, 2]
    assert g.supply[2] == 14 and g.special_played[D.PERIKLES] == 2
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 3)
    assert g.display[0] >= 0  # refilled once the pick is over (B.4 step 6)


@pytest.mark.parametrize(("supply", "added"), [(1, 1), (0, 0)])
def test_d1_b12_perikles_limited_by_supply(supply: int, added: int) -> None:
    """D.1/B.12: Perikles adds min(2, supply) cubes; the tile is used up anyway."""
    g = game_at_pick(first=0, specials={0: D.PERIKLES})
    set_cubes(g, "megara", 0, 2 + 18 - supply)
    g.apply_action_checked(A.PLAY_PERIKLES)
    assert g.cubes[D.ATHENS * 5] == 2 + added and g.supply[0] == supply - added
    assert g.special[0] == -1
    g.check_invariants()


def test_e20_declined_perikles_is_offered_again_on_the_next_pick() -> None:
    """E20: optional; END_PICK keeps the tile, and the owner's next pick offers it again."""
    g = game_at_pick(n=3, first=0, specials={0: D.PERIKLES})
    g.apply_action_checked(g.legal_actions()[0])
    first_legal_until(g, 0, Phase.POST_PICK_SPECIAL)
    g.apply_action_checked(A.END_PICK)
    assert g.special[0] == D.PERIKLES and g.special_played[D.PERIKLES] == -1
    first_legal_until(g, 0, Phase.INFLUENCE_PICK)
    assert A.PLAY_PERIKLES in g.legal_actions()
    assert len(events_of(g, "take_tile")) == 3  # his second pick


def test_e20_unused_special_is_kept_into_the_next_turn() -> None:
    """E20: an unused influence special survives phase 7 and is offered in turn 2."""
    g = new_game(4, seed=1)
    set_specials(g, {g.first_player: D.PLAGUE})
    g._end_turn()
    assert g.turn == 2 and g.special[g.first_player] == D.PLAGUE
    assert g.phase == Phase.INFLUENCE_PICK
    assert set(PLAGUE_ACTIONS) <= set(g.legal_actions())


def test_e20_once_per_game() -> None:
    """A.7/E20: once played the tile is gone for good: no play and no window later, also
    in the next turn."""
    g = game_at_pick(n=3, first=0, specials={0: D.PERIKLES})
    g.apply_action_checked(A.PLAY_PERIKLES)
    g.apply_action_checked(g.legal_actions()[0])
    first_legal_until(g, 0, Phase.INFLUENCE_PICK)
    assert A.PLAY_PERIKLES not in g.legal_actions()
    g._end_turn()
    assert g.special_played[D.PERIKLES] == 0 and g.special[0] == -1
    first_legal_until(g, 0, Phase.INFLUENCE_PICK)
    assert all(a in TAKES for a in g.legal_actions())
    while g.current_player == 0:  # the whole pick, sub-decisions included: no window
        assert g.phase != Phase.POST_PICK_SPECIAL
        g.apply_action_checked(g.legal_actions()[0])
    assert len(events_of(g, "take_tile")) == 4  # 3 in turn 1, then his turn-2 pick


# ---- E20 windows -------------------------------------------------------------------------------


def test_e20_influence_specials_exist_only_in_the_pick_phases() -> None:
    """E20/D.1-D.3: PLAY_PERIKLES / PLAY_PLAGUE / the first Alkibiades cube are accepted only
    by INFLUENCE_PICK and POST_PICK_SPECIAL (the second cube by ALKIBIADES_CUBE): never in
    setup, in phase 3 or later."""
    for phase, kinds in PHASE_ACTION_RANGES.items():
        has = {k for k in ("PLAY_PERIKLES", "PLAY_PLAGUE", "ALKIBIADES_CUBE") if k in kinds}
        if phase in (Phase.INFLUENCE_PICK, Phase.POST_PICK_SPECIAL):
            assert has == {"PLAY_PERIKLES", "PLAY_PLAGUE", "ALKIBIADES_CUBE"}
        elif phase == Phase.ALKIBIADES_CUBE:
            assert has == {"ALKIBIADES_CUBE"}
        else:
            assert not has, phase


def test_e20_not_during_setup_placement() -> None:
    """E20: the holder's setup placements offer only setup cubes."""
    g = new_game(4, seed=3)
    set_specials(g, {g.first_player: D.PERIKLES})
    assert g.legal_actions() == [A.SETUP_CUBE + c for c in range(6)]
    assert_rejected(g, A.PLAY_PERIKLES)


def test_e20_not_during_phase3() -> None:
    """E20: a phase-3 proposer holding Plague may only propose."""
    g = game_at_pick(first=0, specials={0: D.PLAGUE})
    g._begin_proposals()
    assert (g.phase, g.current_player) == (Phase.PROPOSE, 0)
    assert all(A.decode(a)[0] == "PROPOSE" for a in g.legal_actions())
    assert_rejected(g, A.PLAY_PLAGUE + D.ATHENS)


@pytest.mark.parametrize(
    ("tile", "phase"),
    [
        (ANY[0], Phase.ANY_CITY),
        (ATHENS_CAND, Phase.CANDIDATE_TILE),
        (ATHENS_ASSN, Phase.ASSASSIN_TILE),
    ],
)
def test_e20_not_between_taking_and_resolving_the_tile(tile: int, phase: Phase) -> None:
    """B.4 steps 1/5: the window is before the tile or after it is resolved, never during
    the tile's own decision (Any City city, candidate proposal, assassination)."""
    g = game_at_pick(first=1, display=[tile], specials={1: D.PERIKLES})
    g.apply_action_checked(take(0))
    assert g.phase == phase
    assert_rejected(g, A.PLAY_PERIKLES)
    g.apply_action_checked(g.legal_actions()[0])
    assert g.phase == Phase.POST_PICK_SPECIAL and A.PLAY_PERIKLES in g.legal_actions()


def test_e20_only_on_the_owners_own_pick() -> None:
    """D.1/E20: another player's pick never opens the owner's window."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN], specials={1: D.PERIKLES})
    assert A.PLAY_PERIKLES not in g.legal_actions()
    g.apply_action_checked(take(0))
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)
    assert A.PLAY_PERIKLES in g.legal_actions()


# ---- leak-free after-tile offer (section F, engine decision) ----------------------------------


def test_leak_free_any_unused_special_gets_the_after_tile_window() -> None:
    """Section F / engine decision: a holder of a battle special is asked after his tile
    too (END_PICK only), so being asked reveals nothing; before the tile he sees takes."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN, SPARTA_PLAIN], specials={0: D.BRASIDAS})
    assert g.legal_actions() == [take(0), take(1)]
    g.apply_action_checked(take(1))
    assert (g.phase, g.current_player) == (Phase.POST_PICK_SPECIAL, 0)
    assert g.legal_actions() == [A.END_PICK]
    assert_rejected(g, A.PLAY_PERIKLES)
    g.apply_action_checked(A.END_PICK)
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)
    assert g.special[0] == D.BRASIDAS


def test_leak_free_no_window_without_an_unused_special() -> None:
    """Engine decision: a picker with no unused special goes straight to the next pick."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN], specials={1: D.PERIKLES})
    g.apply_action_checked(take(0))
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)


def test_leak_free_window_while_one_influence_special_may_be_unplayed() -> None:
    """Engine decision: the window stays while any of Perikles/Plague/Alkibiades is not known
    to be played, even if that tile was never dealt (hidden); it closes once all three are."""
    g = game_at_pick(first=0, display=[ATHENS_PLAIN], specials={0: D.PHORMIO})
    g.special_played[D.PERIKLES] = 2
    g.special_played[D.PLAGUE] = 3
    g.unseen_specials = [t for t in g.unseen_specials if t not in (D.PERIKLES, D.PLAGUE)]
    assert D.ALKIBIADES in g.unseen_specials
    g.apply_action_checked(take(0))
    assert g.phase == Phase.POST_PICK_SPECIAL and g.legal_actions() == [A.END_PICK]

    g = game_at_pick(first=0, display=[ATHENS_PLAIN], specials={0: D.PHORMIO})
    for t, p in ((D.PERIKLES, 1), (D.PLAGUE, 2), (D.ALKIBIADES, 3)):
        g.special_played[t] = p
    g.unseen_specials = [t for t in g.unseen_specials if t not in D.INFLUENCE_SPECIALS]
    g.check_invariants()
    g.apply_action_checked(take(0))
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)


# ---- D.2 Plague ----------------------------------------------------------------------------------


def test_d2_e19_plague_halves_everyone_counting_own_candidate() -> None:
    """D.2/E19: in the named city each player (owner included) returns floor(n/2) main-area
    cubes, n = main cubes + 1 if he is a candidate there; candidates stay. RB examples:
    5 cubes lose 2; 4 cubes plus a candidate lose 2."""
    g = game_at_pick(first=0, specials={0: D.PLAGUE})
    clear_cubes(g)
    for p, count in enumerate((3, 5, 4, 1)):
        set_cubes(g, "athens", p, count)
    set_cubes(g, "sparta", 1, 6)
    set_candidate(g, "athens", "alpha", 2)
    set_candidate(g, "athens", "beta", 3)
    assert set(PLAGUE_ACTIONS) <= set(g.legal_actions())
    supply = g.supply[:]
    g.apply_action_checked(A.PLAY_PLAGUE + D.ATHENS)
    assert cubes_in(g, D.ATHENS) == [2, 3, 2, 0]
    assert [g.supply[p] - supply[p] for p in range(4)] == [1, 2, 2, 1]
    assert g.cand[D.ATHENS * 2 : D.ATHENS * 2 + 2] == [2, 3]
    assert cubes_in(g, D.SPARTA) == [0, 6, 0, 0]  # other cities untouched
    assert [e for e in events_of(g, "plague_loss")] == [
        ("plague_loss", 0, "athens", 1),
        ("plague_loss", 1, "athens", 2),
        ("plague_loss", 2, "athens", 2),
        ("plague_loss", 3, "athens", 1),
    ]
    assert g.special_played[D.PLAGUE] == 0 and (g.phase, g.current) == (Phase.INFLUENCE_PICK, 0)
    g.check_invariants()


def test_d2_plague_candidate_with_no_main_cube_loses_nothing() -> None:
    """D.2: a lone candidate cube (n = 1) and a single main cube (n = 1) lose nothing; the
    candidate cube itself is never removed. Played after the tile it ends the pick."""
    g = game_at_pick(n=3, first=1, display=[ATHENS_PLAIN], specials={1: D.PLAGUE})
    clear_cubes(g)
    set_cubes(g, "megara", 0, 1)
    set_cubes(g, "megara", 2, 7)
    set_candidate(g, "megara", "alpha", 1)
    g.apply_action_checked(take(0))
    assert g.phase == Phase.POST_PICK_SPECIAL
    assert g.legal_actions() == sorted([A.END_PICK] + PLAGUE_ACTIONS)
    g.apply_action_checked(A.PLAY_PLAGUE + D.MEGARA)
    assert cubes_in(g, D.MEGARA) == [1, 0, 4] and g.cand[D.MEGARA * 2] == 1
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 2)


# ---- D.3 Alkibiades ------------------------------------------------------------------------------


def alkibiades_game(after_tile: bool = False) -> Game:
    """Player 0 holds Alkibiades. Main cubes: Athens p0 1, p1 2; Sparta p2 1; Thebes p3 1.
    p2's only Corinth cube is the alpha candidate."""
    g = game_at_pick(first=0, display=[ARGOS_PLAIN], specials={0: D.ALKIBIADES})
    clear_cubes(g)
    set_cubes(g, "athens", 0, 1)
    set_cubes(g, "athens", 1, 2)
    set_cubes(g, "sparta", 2, 1)
    set_cubes(g, "thebes", 3, 1)
    set_candidate(g, "corinth", "alpha", 2)
    if after_tile:
        g.apply_action_checked(take(0))
        assert g.phase == Phase.POST_PICK_SPECIAL
    return g


def test_d3_e18_alkibiades_before_the_tile() -> None:
    """D.3/E18: two main-area cubes of any owners from one or two cities move to one
    destination that differs from both sources; owners and counts are kept; candidate
    slots are never sources; then the pick continues with the tile only."""
    g = alkibiades_game()
    first_cubes = [
        alki(g, D.ATHENS, 0),
        alki(g, D.ATHENS, 1),
        alki(g, D.SPARTA, 2),
        alki(g, D.THEBES, 3),
    ]
    assert g.legal_actions() == sorted(first_cubes + [take(0)])  # no Corinth (candidate)
    supply = g.supply[:]
    g.apply_action_checked(alki(g, D.ATHENS, 0))
    assert g.phase == Phase.ALKIBIADES_CUBE and g.special_played[D.ALKIBIADES] == 0
    # p0 has a single Athens cube: it cannot be chosen twice.
    assert g.legal_actions() == sorted(first_cubes[1:])
    g.apply_action_checked(alki(g, D.SPARTA, 2))
    assert g.phase == Phase.ALKIBIADES_DEST
    dests = [D.ARGOS, D.CORINTH, D.THEBES, D.MEGARA]
    assert g.legal_actions() == [A.ALKIBIADES_DEST + c for c in dests]
    assert_rejected(g, A.ALKIBIADES_DEST + D.SPARTA)
    g.apply_action_checked(A.ALKIBIADES_DEST + D.CORINTH)
    assert cubes_in(g, D.ATHENS) == [0, 2, 0, 0]
    assert cubes_in(g, D.SPARTA) == [0, 0, 0, 0]
    assert cubes_in(g, D.CORINTH) == [1, 0, 1, 0]
    assert g.cand[D.CORINTH * 2] == 2 and g.supply == supply
    assert events_of(g, "alkibiades_move") == [
        ("alkibiades_move", 0, "athens", "corinth"),
        ("alkibiades_move", 2, "sparta", "corinth"),
    ]
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 0)
    assert g.legal_actions() == [take(0)]
    g.apply_action_checked(take(0))
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)
    g.check_invariants()


def test_d3_alkibiades_two_cubes_of_one_owner_and_city_after_the_tile() -> None:
    """D.3: both cubes may share owner and city if he has 2 there; only that city is barred
    as destination. Played after the tile (B.4 step 5) it ends the pick."""
    g = alkibiades_game(after_tile=True)
    g.apply_action_checked(alki(g, D.ATHENS, 1))
    assert alki(g, D.ATHENS, 1) in g.legal_actions()
    g.apply_action_checked(alki(g, D.ATHENS, 1))
    assert g.legal_actions() == [A.ALKIBIADES_DEST + c for c in range(6) if c != D.ATHENS]
    g.apply_action_checked(A.ALKIBIADES_DEST + D.MEGARA)
    assert cubes_in(g, D.ATHENS) == [1, 0, 0, 0]
    assert cubes_in(g, D.MEGARA) == [0, 2, 0, 0]
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 1)
    g.check_invariants()
