"""Phase 5 scenario tests: taking control of forces (B.7.1, B.11 shared Persian pool), the
Spartan choice (B.7.2, E11) and dead-pool recovery (B.7.3, E6)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    ATTACK,
    events_of,
    game_before_military,
    klass,
    place,
    play,
    start_military,
)

LOCS = ["megara", "mantinea", "sicily", "amphipolis", "plataea", "delium", "pylos"]
SICILY, DELIUM = 2, 5
H, T = A.DEAD_POOL, A.DEAD_POOL + 1
PERSIAN_CLASSES = D.CLASSES_OF_CITY[D.PERSIA]


def city_counts(table: list[int], city: int) -> list[int]:
    return [table[k] for k in D.CLASSES_OF_CITY[city]]


def initial(city: int) -> list[int]:
    return [D.INITIAL_COUNTERS[k] for k in D.CLASSES_OF_CITY[city]]


# ---- B.7.1 taking control of forces --------------------------------------------------------


def test_B71_leaders_take_whole_stacks_leaderless_cities_keep_theirs() -> None:
    """B.7.1: each led city's whole stack goes to the pool; leaderless stacks stay put; the
    Persian leader (seat 3) takes all 10 Persian counters."""
    g = start_military(
        game_before_military(leaders={"athens": 0, "sparta": 1, "thebes": 2}, locations=LOCS)
    )
    for city in (D.ATHENS, D.SPARTA, D.THEBES, D.PERSIA):
        assert city_counts(g.pool, city) == initial(city)
        assert city_counts(g.stack, city) == [0] * 8
    for city in (D.ARGOS, D.CORINTH, D.MEGARA):
        assert city_counts(g.pool, city) == [0] * 8
        assert city_counts(g.stack, city) == initial(city)
    assert sum(g.pool[k] for k in PERSIAN_CLASSES) == 10
    assert (g.phase, g.current_player) == (Phase.SPARTA_CHOICE, 1)
    g.check_invariants()


def test_B71_dead_pool_counters_are_not_taken() -> None:
    """B.7.1: dead counters are not taken with the stack. Athens has two dead H1: the leader
    takes the rest of the stack, and recovery (B.7.3) gives back exactly one of them."""
    g = start_military(
        game_before_military(
            leaders={"athens": 0, "sparta": 1},
            locations=LOCS,
            dead={klass("athens", "H", 1): 2, klass("argos", "H", 1): 1},
        )
    )
    h1 = klass("athens", "H", 1)
    assert g.phase == Phase.SPARTA_CHOICE  # recovery comes after the Spartan choice
    assert g.pool[h1] == 0 and g.dead[h1] == 2 and g.stack[h1] == 0
    assert g.pool[klass("athens", "H", 2)] == 2
    play(g, A.SPARTA_FIRST)
    assert g.pool[h1] == 1 and g.dead[h1] == 1 and g.stack[h1] == 0
    assert g.dead[klass("argos", "H", 1)] == 1  # leaderless Argos: untouched
    assert g.stack[klass("argos", "H", 1)] == 1


def test_B71_B11_no_persian_leader_persians_sit_out() -> None:
    """B.7.1/B.11: when every player leads a city nobody takes the Persians; they stay on
    the shield and no Persian placement is ever legal."""
    g = start_military(
        game_before_military(n=3, leaders={"athens": 0, "sparta": 1, "argos": 2}, locations=LOCS)
    )
    assert g.persian == 0
    assert city_counts(g.pool, D.PERSIA) == [0] * 8
    assert city_counts(g.stack, D.PERSIA) == initial(D.PERSIA)
    play(g, A.SPARTA_FIRST)  # Sparta's leader names himself
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    legal = g.legal_actions()
    assert legal and not any(
        A.decode(a)[0] == "PLACE" and D.CLASS_CITY[A.decode(a)[1]] == D.PERSIA for a in legal
    )


def test_B11_persian_coleaders_share_one_pool() -> None:
    """B.11: two Persian leaders draw on one pool: after seat 2 sends both Persian T2
    counters, seat 3 can no longer send any T2, and the Persian pool is one counter short
    per placement, for both of them."""
    g = start_military(
        game_before_military(
            leaders={"athens": 0, "sparta": 1},
            locations=LOCS,
            tiles={0: (0, 0), 1: (0, 0), 2: (0, 1), 3: (0, 1)},
        )
    )
    assert g.persian == 0b1100
    play(g, A.SPARTA_FIRST + 1)  # Sparta (seat 1) names seat 2
    assert (g.phase, g.current_player) == (Phase.COMMIT, 2)
    t2 = klass("persia", "T", 2)
    assert g.pool[t2] == 2
    assert place(t2, SICILY, ATTACK) in g.legal_actions()
    play(g, place(t2, SICILY, ATTACK), place(t2, DELIUM, ATTACK), A.END_STEP)
    assert g.current_player == 3 and g.pool[t2] == 0
    assert sum(g.pool[k] for k in PERSIAN_CLASSES) == 8
    legal = g.legal_actions()
    assert not any(A.place(t2, s, side) in legal for s in range(7) for side in (0, 1))
    assert place(klass("persia", "T", 3), SICILY, ATTACK) in legal


# ---- B.7.2 Spartan choice, E11 --------------------------------------------------------------


def test_B72_sparta_leader_names_any_player_by_seat_offset() -> None:
    """B.7.2: Sparta's leader (seat 2) may name anyone, himself included; the argument is a
    seat offset, so +3 names seat 1; phase 5 then starts with seat 1."""
    g = start_military(
        game_before_military(
            leaders={"athens": 0, "sparta": 2, "argos": 1, "corinth": 3},
            locations=LOCS,
            first_player=0,
            specials={1: D.BRASIDAS},
        )
    )
    assert (g.phase, g.current_player) == (Phase.SPARTA_CHOICE, 2)
    assert g.legal_actions() == [A.SPARTA_FIRST + off for off in range(4)]
    play(g, A.SPARTA_FIRST + 3)
    assert g.commit_first == 1
    assert events_of(g, "sparta_first") == [("sparta_first", 2, 1)]
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    assert ("phase", 1, "commit", 1) in g.event_log


def test_B72_three_players_only_three_offsets_typed_error_otherwise() -> None:
    """B.7.2 with 3 players: offsets 3 and 4 name no seat; they raise IllegalActionError
    naming the phase and player, and change nothing."""
    g = start_military(game_before_military(n=3, leaders={"sparta": 0, "athens": 1, "argos": 2}))
    assert g.legal_actions() == [A.SPARTA_FIRST, A.SPARTA_FIRST + 1, A.SPARTA_FIRST + 2]
    before = g.clone()
    for bad in (A.SPARTA_FIRST + 3, A.SPARTA_FIRST + 4, A.DEAD_POOL, A.END_STEP):
        with pytest.raises(IllegalActionError) as err:
            g.apply_action_checked(bad)
        assert (err.value.phase, err.value.player, err.value.action) == (
            "SPARTA_CHOICE",
            0,
            bad,
        )
        assert g == before


def test_E11_leaderless_sparta_phase2_first_player_starts_phase5() -> None:
    """E11: without a Sparta leader there is no Spartan choice; the phase-2 first player
    (seat 2) is the phase-5 first player, for the dead pool and the commit order alike."""
    g = start_military(
        game_before_military(
            leaders={"athens": 0, "argos": 3},
            first_player=2,
            locations=LOCS,
            dead={
                klass("athens", "H", 1): 1,
                klass("athens", "T", 1): 1,
                klass("argos", "H", 1): 1,
                klass("argos", "T", 1): 1,
            },
        )
    )
    assert not events_of(g, "sparta_first")
    assert g.commit_first == 2
    # Dead pool clockwise from seat 2: Argos's leader (seat 3) before Athens's (seat 0).
    assert (g.phase, g.current_player) == (Phase.DEAD_POOL, 3)
    play(g, H)
    assert (g.phase, g.current_player) == (Phase.DEAD_POOL, 0)
    play(g, T)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 2)
    assert events_of(g, "recover") == [("recover", 3, "argos-H1"), ("recover", 0, "athens-T1")]


# ---- B.7.3 dead-pool recovery, E6 -------------------------------------------------------------


def test_B73_E6_one_type_is_recovered_automatically_lowest_strength() -> None:
    """B.7.3/E6: Sparta's dead pool holds only hoplites (H4 and H2): no decision, the H2
    (lowest strength) goes straight to the leader's pool; the H4 stays dead."""
    g = start_military(
        game_before_military(
            leaders={"sparta": 1, "athens": 0},
            locations=LOCS,
            dead={klass("sparta", "H", 4): 1, klass("sparta", "H", 2): 1},
        )
    )
    play(g, A.SPARTA_FIRST)
    assert g.phase == Phase.COMMIT  # no DEAD_POOL decision
    assert events_of(g, "recover") == [("recover", 1, "sparta-H2")]
    assert g.dead[klass("sparta", "H", 2)] == 0 and g.dead[klass("sparta", "H", 4)] == 1
    assert g.pool[klass("sparta", "H", 2)] == 3  # 2 never died + the recovered one
    assert g.pool[klass("sparta", "H", 4)] == 1


@pytest.mark.parametrize(
    ("choice", "recovered", "still_dead"),
    [
        (H, "athens-H2", ["athens-H3", "athens-T1", "athens-T3"]),
        (T, "athens-T1", ["athens-H2", "athens-H3", "athens-T3"]),
    ],
)
def test_B73_E6_both_types_the_leader_chooses_the_type(choice, recovered, still_dead) -> None:
    """B.7.3/E6: with hoplites and triremes dead, Athens's leader chooses the type (H or T,
    his only two actions) and gets the lowest counter of that type."""
    dead = {
        klass("athens", "H", 2): 1,
        klass("athens", "H", 3): 1,
        klass("athens", "T", 1): 1,
        klass("athens", "T", 3): 1,
    }
    g = start_military(
        game_before_military(leaders={"athens": 0, "sparta": 1}, locations=LOCS, dead=dead)
    )
    play(g, A.SPARTA_FIRST + 2)  # seat 1 names seat 3 (a Persian leader)
    assert (g.phase, g.current_player) == (Phase.DEAD_POOL, 0)
    assert g.legal_actions() == [H, T]
    play(g, choice)
    assert events_of(g, "recover") == [("recover", 0, recovered)]
    assert sorted(D.class_name(k) for k in range(D.NUM_CLASSES) if g.dead[k]) == still_dead
    assert (g.phase, g.current_player) == (Phase.COMMIT, 3)


def test_B73_leaderless_cities_recover_nothing() -> None:
    """B.7.3: Argos and Megara have no leader, so their dead counters stay dead, and no
    Persian leader recovers anything for them."""
    dead = {klass("argos", "H", 1): 1, klass("argos", "T", 1): 1, klass("megara", "T", 2): 1}
    g = start_military(
        game_before_military(leaders={"athens": 0, "sparta": 1}, locations=LOCS, dead=dead)
    )
    play(g, A.SPARTA_FIRST)
    assert g.phase == Phase.COMMIT
    assert not events_of(g, "recover")
    assert {k: g.dead[k] for k in dead} == dead
    assert all(g.pool[k] == 0 for k in dead)


def test_B73_E6_E9_clockwise_from_phase5_first_player_each_led_city() -> None:
    """B.7.3/E6/E9: Sparta (seat 1) names seat 3. Recovery then goes seat 3 (Corinth, then
    Thebes: one counter per led city, city-index order), seat 0 (Athens), seat 1 (Sparta,
    automatic since only triremes are dead). Seat 2 is Persian and recovers nothing."""
    dead = {}
    for city in ("athens", "corinth", "thebes"):
        dead[klass(city, "H", 1)] = 1
        dead[klass(city, "T", 1)] = 1
    dead[klass("sparta", "T", 2)] = 1
    g = start_military(
        game_before_military(
            leaders={"athens": 0, "sparta": 1, "corinth": 3, "thebes": 3},
            locations=LOCS,
            dead=dead,
        )
    )
    play(g, A.SPARTA_FIRST + 2)
    decisions = []
    for choice in (T, H, T):
        assert g.phase == Phase.DEAD_POOL
        decisions.append(g.current_player)
        play(g, choice)
    assert decisions == [3, 3, 0]
    assert events_of(g, "recover") == [
        ("recover", 3, "corinth-T1"),
        ("recover", 3, "thebes-H1"),
        ("recover", 0, "athens-T1"),
        ("recover", 1, "sparta-T2"),
    ]
    assert g.phase == Phase.COMMIT and g.current_player == 3
    g.check_invariants()


def test_B73_recovered_counter_can_be_committed_this_turn() -> None:
    """B.7.3: the recovered counter joins the pool at once. Every Athenian counter is dead;
    the leader picks T and the T1 he gets back is his only placeable Athenian counter."""
    dead = {k: D.INITIAL_COUNTERS[k] for k in D.CLASSES_OF_CITY[D.ATHENS] if D.INITIAL_COUNTERS[k]}
    g = start_military(
        game_before_military(
            n=3,
            leaders={"athens": 0, "sparta": 1, "argos": 2},
            locations=LOCS,
            dead=dead,
            tiles={0: (0, 1), 1: (0, 0), 2: (0, 0)},
            specials={0: D.BRASIDAS},  # keeps the step open after the placement
        )
    )
    play(g, A.SPARTA_FIRST + 2, T)  # seat 1 names seat 0; seat 0 takes a trireme
    t1 = klass("athens", "T", 1)
    assert city_counts(g.pool, D.ATHENS) == [0, 0, 0, 0, 1, 0, 0, 0]
    athens_places = [
        a
        for a in g.legal_actions()
        if A.decode(a)[0] == "PLACE" and D.CLASS_CITY[A.decode(a)[1]] == D.ATHENS
    ]
    assert athens_places and {A.decode(a)[1] for a in athens_places} == {t1}
    play(g, place(t1, SICILY, ATTACK))
    assert g.phase == Phase.COMMIT
    assert g.at[((SICILY * 2 + ATTACK) * 2) * D.NUM_CLASSES + t1] == 1
    assert g.dead[t1] == 1  # the other T1 is still dead


def test_B73_dead_pool_typed_error_leaves_state_unchanged() -> None:
    """B.7.3: in the DEAD_POOL decision only H/T are accepted."""
    g = start_military(
        game_before_military(
            leaders={"athens": 0},
            locations=LOCS,
            dead={klass("athens", "H", 1): 1, klass("athens", "T", 1): 1},
        )
    )
    assert g.phase == Phase.DEAD_POOL
    before = g.clone()
    with pytest.raises(IllegalActionError) as err:
        g.apply_action_checked(A.END_STEP)
    assert (err.value.phase, err.value.player) == ("DEAD_POOL", 0)
    assert g == before
