"""Phase 3 proposals (docs/rules.md B.5, E12, E13) and phase 4 elections (B.6, E36), Persian
leaders (B.6, B.11) and the phase-5 first player when Sparta has no leader (E11)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, Phase
from perikles_env.engine import actions as A
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    clear_cubes,
    events_of,
    new_game,
    seat_offset,
    set_candidate,
    set_cubes,
    set_specials,
)

ATHENS, SPARTA, ARGOS, CORINTH, THEBES, MEGARA = range(6)


def board(n: int = 4, first: int = 0, keep_cubes: bool = False) -> Game:
    """A turn-1 game before phase 3: no specials, every player holds one 1-shard tile (so
    phase 5 stops at a decision), and an empty board unless ``keep_cubes``."""
    g = new_game(n, seed=21)
    g.first_player = g.commit_first = first
    set_specials(g, {})
    if not keep_cubes:
        clear_cubes(g)
    g.held1 = [1] * n + [0] * (5 - n)
    return g


def propose(g: Game, city: int, nominee: int) -> int:
    return A.city_player(A.PROPOSE, city, seat_offset(g, nominee))


def proposals(g: Game, player: int) -> set[tuple[int, int]]:
    """(city, nominee seat) pairs the player may propose, decoded from action ids."""
    out = set()
    for a in g._proposals(player):
        _, city, offset, _ = A.decode(a)
        out.add((city, (player + offset) % g.n))
    return out


def slots(g: Game, city: int) -> list[int]:
    return g.cand[city * 2 : city * 2 + 2]


def elect(g: Game) -> None:
    """Run phase 4 on the hand-made candidates; phase 5 then waits at its first decision."""
    g._elections()
    assert g.phase in (Phase.SPARTA_CHOICE, Phase.COMMIT)
    g.check_invariants()


# ---- B.5 who may propose (E12) ---------------------------------------------------------------


def test_b5_proposer_needs_own_cube_nominee_needs_main_cube() -> None:
    """B.5: (C, Q) is legal when P has a cube in C and Q has a main-area cube in C (Q = P
    allowed); nobody with no main cube in C can be nominated there."""
    g = board()
    set_cubes(g, "athens", 0, 1)
    set_cubes(g, "athens", 1, 2)
    set_cubes(g, "corinth", 2, 3)  # player 0 has no Corinth cube
    assert proposals(g, 0) == {(ATHENS, 0), (ATHENS, 1)}
    assert proposals(g, 2) == {(CORINTH, 2)}
    assert proposals(g, 3) == set()


def test_e12_own_candidate_cube_counts_for_the_proposer() -> None:
    """E12: the proposer's own candidate cube counts as his cube in C; he cannot nominate
    himself again (two candidates of one colour are never allowed)."""
    g = board()
    set_candidate(g, "athens", "alpha", 0)
    set_cubes(g, "athens", 1, 2)
    assert proposals(g, 0) == {(ATHENS, 1)}


def test_e12_alpha_candidate_alone_cannot_propose() -> None:
    """E12: the alpha candidate in a city where no other player has a main-area cube has no
    proposal there, even with main cubes of his own."""
    g = board()
    set_candidate(g, "argos", "alpha", 0)
    set_cubes(g, "argos", 0, 3)
    set_cubes(g, "megara", 0, 1)
    set_cubes(g, "megara", 3, 1)
    assert proposals(g, 0) == {(MEGARA, 0), (MEGARA, 3)}
    # With Argos as his only city he has nothing: phase 3 passes everyone, B.6 follows.
    set_cubes(g, "megara", 0, 0)
    set_cubes(g, "megara", 3, 0)
    g._begin_proposals()
    assert [e[1] for e in events_of(g, "propose_pass")] == [0, 1, 2, 3]
    assert g.leader[ARGOS] == 0 and g.cubes[ARGOS * 5] == 3


def test_b5_full_city_offers_nothing_and_alpha_is_filled_before_beta() -> None:
    """B.5: a proposal fills alpha if empty, else beta, moving one of Q's main cubes to
    the slot; with both slots full the city is closed."""
    g = board(n=3, first=1)
    for p in range(3):
        set_cubes(g, "thebes", p, 2)
    g._begin_proposals()
    assert (g.phase, g.current_player) == (Phase.PROPOSE, 1)
    g.apply_action_checked(propose(g, THEBES, 2))
    assert slots(g, THEBES) == [2, -1] and g.cubes[THEBES * 5 + 2] == 1
    assert g.current_player == 2
    g.apply_action_checked(propose(g, THEBES, 0))  # beta; the 2-slot city is now full
    assert events_of(g, "propose") == [
        ("propose", 1, "thebes", 2, "a"),
        ("propose", 2, "thebes", 0, "b"),
    ]
    # Only Thebes had cubes and it is full: nobody can propose, elections follow.
    assert [e[1] for e in events_of(g, "propose_pass")] == [0, 1, 2]
    # B.6 tie 1 v 1: alpha (2) wins, returns 1 cube; beta keeps his main cube.
    assert g.leader[THEBES] == 2
    assert [g.cubes[THEBES * 5 + p] for p in range(3)] == [1, 2, 0]


# ---- B.5 order, duty, end (E13) -----------------------------------------------------------------


def test_b5_order_from_first_player_until_all_12_slots_are_full() -> None:
    """B.5: start with the phase-2 first player, clockwise, round after round; the phase
    ends when all 12 slots are filled (then B.6 runs)."""
    g = board(first=2, keep_cubes=True)  # 2 cubes each in every city (B.1 step 8)
    g._begin_proposals()
    proposers = []
    while g.phase == Phase.PROPOSE:
        proposers.append(g.current_player)
        g.apply_action_checked(g.legal_actions()[0])  # lowest id: first city, himself
    assert proposers == [(2 + i) % 4 for i in range(12)]
    # Each proposer took the first open city and named himself: alpha, then beta.
    cand = [e[3] for e in events_of(g, "propose")]
    assert cand == proposers
    # B.6 tie (1 v 1 main cubes): alpha wins each city.
    assert g.leader == [2, 0, 2, 0, 2, 0]
    assert g.persian == 1 << 1 | 1 << 3
    assert (g.phase, g.current_player) == (Phase.SPARTA_CHOICE, 0)


def test_b5_proposal_is_mandatory() -> None:
    """B.5 duty: a player with a legal proposal must propose: no pass action exists."""
    g = board(keep_cubes=True)
    g._begin_proposals()
    legal = g.legal_actions()
    assert legal and all(A.decode(a)[0] == "PROPOSE" for a in legal)
    before = g.to_dict()
    for bad in (A.END_PICK, A.END_STEP, A.BATTLE_PASS):
        with pytest.raises(IllegalActionError) as info:
            g.apply_action_checked(bad)
        assert info.value.phase == "PROPOSE" and info.value.player == 0
        assert info.value.action == bad
    assert g.to_dict() == before


def test_b5_illegal_proposal_is_rejected_and_changes_nothing() -> None:
    """B.5: nominating a player with no main cube in C raises IllegalActionError naming
    phase, player and action; the state is unchanged."""
    g = board()
    set_cubes(g, "athens", 0, 1)
    set_cubes(g, "athens", 1, 1)
    g._begin_proposals()
    bad = propose(g, ATHENS, 2)
    before = g.to_dict()
    with pytest.raises(IllegalActionError) as info:
        g.apply_action_checked(bad)
    text = str(info.value)
    assert "PROPOSE" in text and "player 0" in text and "propose(athens, +2=p2)" in text
    assert g.to_dict() == before


def test_e13_strict_clockwise_with_automatic_passes() -> None:
    """E13: every player is checked in turn (BGA skipped the one after a passer). A player
    with no legal proposal passes automatically and is never asked."""
    g = board(first=0)
    for p in (0, 2, 3):
        for city in ("athens", "sparta", "argos"):
            set_cubes(g, city, p, 2)
    g._begin_proposals()
    seen = []
    while g.phase == Phase.PROPOSE:
        seen.append(g.current_player)
        g.apply_action_checked(g.legal_actions()[0])
    assert seen == [0, 2, 3, 0, 2, 3]
    # Player 1 (no cube anywhere) is checked each time his turn comes; once the three
    # cities are full everyone passes in turn and the elections follow.
    passes = [e[1] for e in events_of(g, "propose_pass")]
    assert passes == [1, 1, 0, 1, 2, 3]
    assert [g.leader[c] for c in (ATHENS, SPARTA, ARGOS)] == [0, 3, 2]


def test_b5_phase_ends_when_nobody_can_propose() -> None:
    """B.5: once no player has a legal proposal the phase ends, even with open slots."""
    g = board(n=3, first=1)
    set_cubes(g, "corinth", 0, 1)
    g._begin_proposals()
    assert (g.phase, g.current_player) == (Phase.PROPOSE, 0)
    assert events_of(g, "propose_pass") == [("propose_pass", 1), ("propose_pass", 2)]
    assert g.legal_actions() == [propose(g, CORINTH, 0)]
    g.apply_action_checked(propose(g, CORINTH, 0))
    # Player 0, alpha alone in Corinth, has nothing left; 1 and 2 never had anything.
    assert [e[1] for e in events_of(g, "propose_pass")] == [1, 2, 1, 2, 0]
    assert g.leader[CORINTH] == 0 and g.supply[0] == 30  # elected; candidate cube home


# ---- B.6 elections -------------------------------------------------------------------------------


def test_b6_no_candidate_no_leader() -> None:
    """B.6: a city with no candidate has no leader this turn."""
    g = board()
    set_candidate(g, "sparta", "alpha", 1)
    elect(g)
    assert g.leader == [-1, 1, -1, -1, -1, -1]
    assert ("election", "argos", -1, 0) in g.event_log


def test_b6_single_candidate_becomes_leader_nothing_else_changes() -> None:
    """B.6: one candidate leads; his candidate cube goes home; main cubes are unchanged."""
    g = board()
    set_cubes(g, "sparta", 2, 4)
    set_cubes(g, "sparta", 3, 7)
    set_candidate(g, "sparta", "alpha", 2)
    elect(g)
    assert g.leader[SPARTA] == 2
    assert [g.cubes[SPARTA * 5 + p] for p in range(4)] == [0, 0, 4, 7]
    assert g.supply[2] == 26 and g.supply[3] == 23
    assert ("election", "sparta", 2, 0) in g.event_log


def test_b6_rb_worked_example_red_wins_green_has_three() -> None:
    """B.6 worked example (RB): red wins, green has 3 cubes. Both candidate cubes go home,
    then red removes 3 more of his own main-area cubes (E36: green's candidate cube is
    not counted)."""
    red, green = 0, 1
    g = board()
    set_cubes(g, "sparta", red, 5)
    set_cubes(g, "sparta", green, 3)
    set_candidate(g, "sparta", "alpha", green)
    set_candidate(g, "sparta", "beta", red)
    supply = g.supply[:]
    elect(g)
    assert g.leader[SPARTA] == red
    assert g.cubes[SPARTA * 5 + red] == 2 and g.cubes[SPARTA * 5 + green] == 3
    assert g.supply[red] == supply[red] + 1 + 3
    assert g.supply[green] == supply[green] + 1
    assert slots(g, SPARTA) == [-1, -1]
    assert ("election", "sparta", red, 3) in g.event_log


@pytest.mark.parametrize("count", [0, 1, 4])
def test_b6_tie_goes_to_alpha(count: int) -> None:
    """B.6: equal main-area counts (candidate cubes left out): alpha wins and returns as
    many of his own main cubes as beta has there."""
    g = board()
    set_cubes(g, "corinth", 3, count)
    set_cubes(g, "corinth", 1, count)
    set_candidate(g, "corinth", "alpha", 3)
    set_candidate(g, "corinth", "beta", 1)
    elect(g)
    assert g.leader[CORINTH] == 3
    assert g.cubes[CORINTH * 5 + 3] == 0 and g.cubes[CORINTH * 5 + 1] == count
    assert g.supply[3] == 30 and g.supply[1] == 30 - count


def test_b6_e36_beta_wins_with_more_cubes_and_pays_losers_main_count() -> None:
    """B.6/E36: beta with more main cubes wins; he returns the loser's main-area count."""
    g = board()
    set_cubes(g, "megara", 0, 2)
    set_cubes(g, "megara", 2, 6)
    set_cubes(g, "megara", 3, 9)  # a non-candidate's cubes play no part
    set_candidate(g, "megara", "alpha", 0)
    set_candidate(g, "megara", "beta", 2)
    elect(g)
    assert g.leader[MEGARA] == 2
    assert [g.cubes[MEGARA * 5 + p] for p in range(4)] == [2, 0, 4, 9]
    assert g.supply[0] == 28 and g.supply[2] == 26


def test_b6_persian_leaders_are_players_leading_no_city() -> None:
    """B.6/B.11: every player who leads no city is a Persian leader (0, 1 or several); one
    player may lead several cities."""
    g = board(n=5)
    for city in ("athens", "sparta", "thebes"):
        set_candidate(g, city, "alpha", 4)
    set_candidate(g, "argos", "alpha", 1)
    elect(g)
    assert g.leader == [4, 4, 1, -1, 4, -1]
    assert g.persian == 1 << 0 | 1 << 2 | 1 << 3
    assert events_of(g, "persian_leaders") == [("persian_leaders", [0, 2, 3])]


def test_b6_no_persian_leader_when_everyone_leads() -> None:
    """B.6: with every player leading a city there is no Persian leader."""
    g = board(n=3)
    for p, city in enumerate(("sparta", "argos", "megara")):
        set_candidate(g, city, "alpha", p)
    elect(g)
    assert g.persian == 0 and g.leader[SPARTA] == 0


# ---- E11 / B.7.2 phase-5 first player ------------------------------------------------------------


def test_e11_no_sparta_leader_phase2_first_player_starts_phase5() -> None:
    """E11: without a Sparta leader the phase-2 first player is also phase-5 first player."""
    g = board(first=3)
    g.commit_first = 0
    set_candidate(g, "athens", "alpha", 1)
    elect(g)
    assert g.leader[SPARTA] == -1
    assert g.commit_first == 3
    assert (g.phase, g.current_player) == (Phase.COMMIT, 3)


def test_b72_sparta_leader_names_the_phase5_first_player() -> None:
    """B.7.2 (contrast with E11): the Sparta leader decides, any seat allowed."""
    g = board(first=3)
    set_candidate(g, "sparta", "alpha", 1)
    elect(g)
    assert (g.phase, g.current_player) == (Phase.SPARTA_CHOICE, 1)
    assert g.legal_actions() == [A.SPARTA_FIRST + off for off in range(4)]
    g.apply_action_checked(A.SPARTA_FIRST + seat_offset(g, 2))
    assert g.commit_first == 2 and ("sparta_first", 1, 2) in g.event_log
