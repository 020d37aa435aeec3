"""Phase 5 scenario tests: permission to defend as an interrupt (B.7.8, E22, E38, B.11) and
Slave Revolt (D.4, E35, E8, E11)."""

from __future__ import annotations

from collections import Counter

import pytest

from perikles_env.engine import Game, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.rng import Rng
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    ATTACK,
    CITY,
    DEFEND,
    at_box,
    battle_events,
    events_of,
    game_at_commit,
    klass,
    legal_by_is_legal,
    place,
    play,
    put,
    put_main,
    relate,
)

LOCS = ["megara", "mantinea", "sicily", "amphipolis", "plataea", "delium", "pylos"]
MEGARA_LOC, MANTINEA, SICILY, AMPHIPOLIS, PLATAEA, DELIUM, PYLOS = range(7)
MAIN, ALLIED = 0, 1
TH, TH2 = klass("thebes", "H", 1), klass("thebes", "H", 2)
AH, AH2 = klass("athens", "H", 1), klass("athens", "H", 2)
PH2, PH3 = klass("persia", "H", 2), klass("persia", "H", 3)
SPARTAN_H = [klass("sparta", "H", s) for s in (1, 2, 3, 4)]


def bits(*names: str) -> int:
    return sum(1 << CITY[n] for n in names)


def rejects(g, action) -> None:
    before, before_dict = g.clone(), g.to_dict()
    with pytest.raises(IllegalActionError) as err:
        g.apply_action_checked(action)
    assert g == before and g.to_dict() == before_dict
    assert (err.value.phase, err.value.player, err.value.action) == (
        g.phase.name,
        g.current_player,
        action,
    )


def defend_slots(g, counter: int) -> list[int]:
    """Slots where ``counter`` may be sent to defend now."""
    return [s for s in range(7) if place(counter, s, DEFEND) in g.legal_actions()]


def permission_game(first: int = 1):
    """4 players: 0 leads Athens, 1 Thebes and Argos, 2 Sparta; 3 is Persian. Everybody
    holds two 1-shard tiles and seat 1 a special tile (his step never closes by itself)."""
    return game_at_commit(
        leaders={"athens": 0, "thebes": 1, "argos": 1, "sparta": 2},
        tiles={p: (0, 2) for p in range(4)},
        locations=LOCS,
        first=first,
        specials={1: D.BRASIDAS},
    )


# ---- B.7.8 / E22 interrupt model ------------------------------------------------------------


def test_B78_E22_request_pauses_the_step_for_the_owner_leader() -> None:
    """B.7.8 (1): Thebes wants to defend Amphipolis (Athens's); the engine pauses and gives
    Athens's leader (seat 0) exactly GRANT or DENY. Nothing is placed yet."""
    g = permission_game()
    assert g.current_player == 1
    play(g, place(TH, AMPHIPOLIS, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 0)
    assert g.legal_actions() == [A.GRANT, A.DENY]
    assert legal_by_is_legal(g) == [A.GRANT, A.DENY]
    assert events_of(g, "ask_permission") == [("ask_permission", 1, "thebes", AMPHIPOLIS)]
    assert at_box(g, AMPHIPOLIS, DEFEND, MAIN, TH) == 0 and g.pool[TH] == 2
    assert g.main[AMPHIPOLIS * 2 + DEFEND] == -1 and g.step_normal == 0
    rejects(g, place(TH, AMPHIPOLIS, DEFEND))
    rejects(g, A.END_STEP)


def test_B78_E22_E38_grant_places_and_holds_for_the_turn() -> None:
    """B.7.8 (2)/E38: GRANT makes the placement (seat 1 becomes main defender of an
    Athenian location), the permission (Thebes, Amphipolis) stays: another Theban counter
    there later in the step, or in his next step, needs no new request. The Athens leader's
    own counter then goes to the allied box."""
    g = permission_game()
    play(g, place(TH, AMPHIPOLIS, DEFEND), A.GRANT)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    assert events_of(g, "permission") == [("permission", 0, "thebes", AMPHIPOLIS, True)]
    assert g.perm[AMPHIPOLIS] == bits("thebes")
    assert g.main[AMPHIPOLIS * 2 + DEFEND] == 1
    assert at_box(g, AMPHIPOLIS, DEFEND, MAIN, TH) == 1
    assert g.ally[CITY["thebes"]] == bits("athens")
    assert g.step_normal == 1
    play(g, place(TH2, AMPHIPOLIS, DEFEND))
    assert g.phase == Phase.COMMIT and len(events_of(g, "ask_permission")) == 1
    play(g, A.END_STEP, A.END_STEP)  # seats 1 and 2
    assert g.current_player == 3
    play(g, A.END_STEP)
    assert g.current_player == 0
    play(g, place(AH, AMPHIPOLIS, DEFEND))  # the owner's leader: allied box
    assert at_box(g, AMPHIPOLIS, DEFEND, ALLIED, AH) == 1
    assert g.main[AMPHIPOLIS * 2 + DEFEND] == 1
    play(g, A.END_STEP)
    assert g.current_player == 1
    play(g, place(klass("thebes", "H", 3), AMPHIPOLIS, DEFEND))  # next step: no new request
    assert g.phase == Phase.COMMIT and len(events_of(g, "ask_permission")) == 1
    assert at_box(g, AMPHIPOLIS, DEFEND, MAIN, klass("thebes", "H", 3)) == 1


def test_B78_E22_deny_blocks_that_pair_for_the_rest_of_the_step_only() -> None:
    """B.7.8 (3): after DENY nothing is placed; the step continues; (Thebes, Amphipolis) can
    not be asked again in this step, with any Theban counter, even after a spent cube; other
    locations and other cities are unaffected; in his next step he may ask again."""
    g = permission_game()
    play(g, place(TH, AMPHIPOLIS, DEFEND), A.DENY)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    assert events_of(g, "permission") == [("permission", 0, "thebes", AMPHIPOLIS, False)]
    assert g.perm[AMPHIPOLIS] == 0 and g.step_normal == 0 and g.pool[TH] == 2
    assert g.main[AMPHIPOLIS * 2 + DEFEND] == -1
    assert AMPHIPOLIS not in defend_slots(g, TH) and AMPHIPOLIS not in defend_slots(g, TH2)
    rejects(g, place(TH2, AMPHIPOLIS, DEFEND))
    assert PLATAEA in defend_slots(g, TH)  # another Athenian location: still askable
    assert AMPHIPOLIS in defend_slots(g, klass("argos", "H", 1))  # another city: askable
    assert place(TH, AMPHIPOLIS, ATTACK) in g.legal_actions()
    play(g, place(TH, MANTINEA, DEFEND), A.SPEND_CUBE + D.THEBES)  # Argos's: he leads it
    assert AMPHIPOLIS not in defend_slots(g, TH2) and PLATAEA in defend_slots(g, TH2)
    play(g, A.END_STEP, A.END_STEP, A.END_STEP, A.END_STEP)  # seats 1, 2, 3, 0
    assert g.current_player == 1
    assert AMPHIPOLIS in defend_slots(g, TH2)
    play(g, place(TH2, AMPHIPOLIS, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 0)


def test_B78_permission_also_needed_for_the_allied_box() -> None:
    """B.7.8: Athens's leader defends Amphipolis first (main box); Thebes joining that
    defence still needs his permission; once granted, the Theban counter goes allied."""
    g = permission_game(first=0)
    play(g, place(AH, AMPHIPOLIS, DEFEND), A.END_STEP)
    play(g, place(TH, AMPHIPOLIS, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 0)
    play(g, A.GRANT)
    assert at_box(g, AMPHIPOLIS, DEFEND, ALLIED, TH) == 1
    assert g.main[AMPHIPOLIS * 2 + DEFEND] == 0


def test_B78_permission_is_per_city_and_location() -> None:
    """B.7.8: the (Thebes, Amphipolis) permission covers neither Argos at Amphipolis nor
    Thebes at Plataea: both ask again."""
    g = permission_game()
    play(g, place(TH, AMPHIPOLIS, DEFEND), A.GRANT)
    play(g, place(klass("argos", "H", 1), AMPHIPOLIS, DEFEND))
    assert g.phase == Phase.PERMISSION
    play(g, A.DENY, A.SPEND_CUBE + D.THEBES, place(TH2, PLATAEA, DEFEND))
    assert g.phase == Phase.PERMISSION
    assert [e[2:4] for e in events_of(g, "ask_permission")] == [
        ("thebes", AMPHIPOLIS),
        ("argos", AMPHIPOLIS),
        ("thebes", PLATAEA),
    ]


def test_B78_leaderless_owner_means_nobody_can_defend_there() -> None:
    """B.7.8: Megara has no leader this turn, so no placement may defend its location, for
    any player or city (Persia included)."""
    g = permission_game()
    assert MEGARA_LOC not in defend_slots(g, TH)
    assert MEGARA_LOC not in defend_slots(g, klass("argos", "T", 1))
    rejects(g, place(TH, MEGARA_LOC, DEFEND))
    play(g, A.END_STEP, A.END_STEP)  # seats 1 and 2
    assert g.current_player == 3
    assert MEGARA_LOC not in defend_slots(g, PH3)
    assert place(PH3, MEGARA_LOC, ATTACK) in g.legal_actions()


def test_B11_B78_persian_defence_always_needs_permission() -> None:
    """B.11: a Persian counter defending Sicily asks Sparta's leader (seat 2); once granted
    for (Persia, Sicily) a co-leader's Persian counter there needs no new request and shares
    the Persian main box (E39)."""
    g = game_at_commit(
        leaders={"athens": 0, "sparta": 1},
        tiles={p: (0, 1) for p in range(4)},
        locations=LOCS,
        first=2,
    )
    assert g.persian == 0b1100
    play(g, place(PH3, SICILY, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 1)
    assert events_of(g, "ask_permission") == [("ask_permission", 2, "persia", SICILY)]
    play(g, A.GRANT, A.END_STEP)
    assert g.current_player == 3 and g.main[SICILY * 2 + DEFEND] == 2
    play(g, place(PH2, SICILY, DEFEND))
    assert g.phase == Phase.COMMIT and len(events_of(g, "ask_permission")) == 1
    assert at_box(g, SICILY, DEFEND, MAIN, PH2) == 1 and at_box(g, SICILY, DEFEND, MAIN, PH3) == 1


def test_B78_E22_owner_never_asked_about_an_otherwise_illegal_placement() -> None:
    """B.7.8 (4): Thebes at war with Athens: no Theban defence of any Athenian location is
    legal, so it never reaches the owner; the attempt is a typed error."""
    g = permission_game()
    relate(g, "war", "thebes", "athens")
    assert AMPHIPOLIS not in defend_slots(g, TH) and PLATAEA not in defend_slots(g, TH)
    rejects(g, place(TH, AMPHIPOLIS, DEFEND))
    assert not events_of(g, "ask_permission")


def test_B78_grant_is_still_subject_to_step_limits() -> None:
    """B.7.8 (2) 'still subject to the other checks': a granted placement counts as one of
    the two normal placements; a request needing permission is legal as an extra too."""
    g = permission_game()
    play(g, place(TH, AMPHIPOLIS, DEFEND), A.GRANT, place(TH2, DELIUM, DEFEND))
    assert g.step_normal == 2
    assert not [a for a in g.legal_actions() if A.decode(a)[0] == "PLACE"]
    play(g, A.SPEND_CUBE + D.ARGOS, place(klass("argos", "H", 1), PLATAEA, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 0)
    play(g, A.GRANT)
    assert g.step_extra == 1 and at_box(g, PLATAEA, DEFEND, MAIN, klass("argos", "H", 1)) == 1


# ---- D.4 / E35 Slave Revolt ----------------------------------------------------------------------


def revolt_game(holder: int = 3, first: int = 3, **kw):
    """4 players: 0 Athens, 1 Sparta, 2 Argos; 3 is Persian and holds Slave Revolt."""
    return game_at_commit(
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        tiles=kw.pop("tiles", {p: (0, 1) for p in range(4)}),
        locations=LOCS,
        first=first,
        specials={holder: D.SLAVE_REVOLT},
        **kw,
    )


def keep_only(g, counters: dict[int, int]) -> None:
    """Sparta's pool holds exactly these hoplites (the rest back to Sparta's stack)."""
    for k in SPARTAN_H:
        want = counters.get(k, 0)
        g.stack[k] += g.pool[k] - want
        g.pool[k] = want


def test_D4_sources_offered_pool_and_locations_with_spartan_hoplites() -> None:
    """D.4: the sources are the Sparta leader's pool and every location with a Spartan
    hoplite (any side or box); a location with only Spartan triremes is not offered."""
    g = revolt_game()
    put_main(g, SICILY, DEFEND, 1, SPARTAN_H[3])
    put(g, DELIUM, ATTACK, ALLIED, SPARTAN_H[0])
    g.main[DELIUM * 2 + ATTACK] = 0
    put(g, DELIUM, ATTACK, MAIN, AH)
    put_main(g, MANTINEA, ATTACK, 1, klass("sparta", "H", 2))
    put_main(g, AMPHIPOLIS, ATTACK, 1, klass("sparta", "T", 2))
    revolts = [a for a in g.legal_actions() if A.decode(a)[0] == "SLAVE_REVOLT"]
    assert revolts == [A.SLAVE_REVOLT + s for s in (0, 1 + MANTINEA, 1 + SICILY, 1 + DELIUM)]
    assert legal_by_is_legal(g) == g.legal_actions()


def test_D4_E35_from_the_pool_goes_face_up_to_spartas_stack() -> None:
    """D.4: with one Spartan hoplite (an H3) in the pool, the revolt takes exactly it back to
    Sparta's stack; the strength is public in the event log; the tile is used up."""
    g = revolt_game()
    keep_only(g, {SPARTAN_H[2]: 1})
    stack = g.stack[SPARTAN_H[2]]
    play(g, A.SLAVE_REVOLT)
    assert g.pool[SPARTAN_H[2]] == 0 and g.stack[SPARTAN_H[2]] == stack + 1
    assert events_of(g, "special") == [("special", 3, "slaverevolt")]
    assert events_of(g, "slave_revolt") == [("slave_revolt", 3, "pool", "sparta-H3")]
    assert g.special[3] == -1 and g.special_played[D.SLAVE_REVOLT] == 3
    assert not [a for a in g.legal_actions() if A.decode(a)[0] == "SLAVE_REVOLT"]


def test_D4_E35_draw_is_uniform_over_counters_and_seeded() -> None:
    """D.4 step 2/E35: the hoplite is drawn at random with one chance per counter, not per
    strength class: from H1 x1, H3 x3, H4 x2, 1200 seeded draws give about 200/600/400
    (per class it would be 400 each). The draw comes from ``g.rng``: the same RNG state
    gives the same counter, and the RNG advances."""
    g = revolt_game()
    keep_only(g, {SPARTAN_H[0]: 1, SPARTAN_H[2]: 3, SPARTAN_H[3]: 2})
    counts: Counter[str] = Counter()
    for seed in range(1200):
        trial = g.clone()
        trial.rng = Rng(seed)
        trial.apply_action(A.SLAVE_REVOLT)
        counts[trial.events[-1][3]] += 1
        if seed < 3:
            again = g.clone()
            again.rng = Rng(seed)
            again.apply_action(A.SLAVE_REVOLT)
            assert again == trial and again.rng != Rng(seed)
    assert set(counts) == {"sparta-H1", "sparta-H3", "sparta-H4"}
    # Standard deviations are 13-17; 60 is about 4 of them.
    for name, expected in (("H1", 200), ("H3", 600), ("H4", 400)):
        assert abs(counts["sparta-" + name] - expected) < 60, counts


def test_D4_E35_from_a_location_any_box_marks_and_relationships_kept() -> None:
    """D.4/E35: from Sicily, where the only Spartan hoplite is the main defender's: it goes
    home, seat 1 keeps his main-defender mark, Sparta drops out of the side, and the
    relationships do not change. The event names the slot (1-based, like the action)."""
    g = revolt_game()
    put_main(g, SICILY, DEFEND, 1, SPARTAN_H[1])
    put_main(g, SICILY, ATTACK, 0, AH)
    relate(g, "war", "athens", "sparta")
    war, ally = g.war[:], g.ally[:]
    play(g, A.SLAVE_REVOLT + 1 + SICILY)
    assert at_box(g, SICILY, DEFEND, MAIN, SPARTAN_H[1]) == 0
    assert g.stack[SPARTAN_H[1]] == 1
    assert events_of(g, "slave_revolt") == [("slave_revolt", 3, "slot 3", "sparta-H2")]
    assert g.main[SICILY * 2 + DEFEND] == 1 and g.main[SICILY * 2 + ATTACK] == 0
    assert g.side_cities[SICILY * 2 + DEFEND] == 0
    assert (g.war, g.ally) == (war, ally)
    g.check_invariants()


def test_D4_E35_from_a_location_allied_box() -> None:
    """D.4: 'whatever their box': a Spartan hoplite in the allied attacker box at Delium
    is a valid source; the Athenian main box is untouched."""
    g = revolt_game()
    put_main(g, DELIUM, ATTACK, 0, AH)
    put(g, DELIUM, ATTACK, ALLIED, SPARTAN_H[3])
    relate(g, "ally", "athens", "sparta")
    play(g, A.SLAVE_REVOLT + 1 + DELIUM)
    assert at_box(g, DELIUM, ATTACK, ALLIED, SPARTAN_H[3]) == 0
    assert at_box(g, DELIUM, ATTACK, MAIN, AH) == 1
    assert g.side_cities[DELIUM * 2 + ATTACK] == bits("athens")
    assert events_of(g, "slave_revolt") == [("slave_revolt", 3, "slot 6", "sparta-H4")]


def test_D4_E11_not_playable_without_a_sparta_leader() -> None:
    """D.4/E11: with Sparta leaderless no source is offered, even with Spartan hoplites on
    the board; the action is a typed error."""
    g = game_at_commit(
        leaders={"athens": 0, "argos": 2},
        locations=LOCS,
        first=3,
        specials={3: D.SLAVE_REVOLT},
    )
    put_main(g, MANTINEA, ATTACK, 0, SPARTAN_H[0])  # hand-made: Spartans on the board
    assert g.current_player == 3
    assert not [a for a in g.legal_actions() if A.decode(a)[0] == "SLAVE_REVOLT"]
    rejects(g, A.SLAVE_REVOLT)
    rejects(g, A.SLAVE_REVOLT + 1 + MANTINEA)


def test_D4_not_playable_without_spartan_hoplites_in_the_source() -> None:
    """D.4: a Sparta pool of triremes only offers no pool source; a location with Spartan
    triremes only is no source either."""
    g = revolt_game()
    keep_only(g, {})
    put_main(g, MANTINEA, ATTACK, 1, klass("sparta", "T", 1))
    assert not [a for a in g.legal_actions() if A.decode(a)[0] == "SLAVE_REVOLT"]
    rejects(g, A.SLAVE_REVOLT)
    rejects(g, A.SLAVE_REVOLT + 1 + MANTINEA)


def test_D4_B75_at_the_start_of_the_step_placements_continue() -> None:
    """B.7.5 step 2: played before any placement, the step goes on with both normal
    placements and a spend available; the tile cannot be played twice."""
    g = revolt_game()
    play(g, A.SLAVE_REVOLT)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 3)
    play(g, place(PH3, MANTINEA, ATTACK))
    assert A.SPEND_CUBE + D.ATHENS in g.legal_actions()
    play(g, place(PH2, DELIUM, ATTACK), A.SPEND_CUBE + D.ATHENS, place(PH3, PYLOS, ATTACK))
    assert g.step_normal == 2 and g.step_extra == 1 and g.current_player == 3


@pytest.mark.parametrize("with_extras", [False, True])
def test_D4_B75_after_placements_it_closes_the_step(with_extras: bool) -> None:
    """B.7.5 step 2 'or after step 4, but not in between': played after a placement (or
    after the extras), it is the step's last act: the step ends at once and the next
    player (seat 0) is called."""
    g = revolt_game()
    play(g, place(PH3, MANTINEA, ATTACK))
    if with_extras:
        play(g, A.SPEND_CUBE + D.CORINTH, place(PH2, DELIUM, ATTACK))
    assert A.SLAVE_REVOLT in g.legal_actions()
    n_before = len(events_of(g, "place"))
    play(g, A.SLAVE_REVOLT)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 0)
    assert len(events_of(g, "place")) == n_before
    assert events_of(g, "slave_revolt")[0][:3] == ("slave_revolt", 3, "pool")
    assert g.event_log[-1][0] == "slave_revolt"  # no END_STEP was needed


def test_D4_only_in_the_owners_own_step() -> None:
    """D.4/B.7.9: the Sparta leader's step offers the holder (seat 3) nothing; the holder
    plays it in his own step."""
    g = revolt_game(first=1)
    assert g.current_player == 1
    assert not [a for a in g.legal_actions() if A.decode(a)[0] == "SLAVE_REVOLT"]
    play(g, A.END_STEP, A.END_STEP)  # seats 1 and 2
    assert g.current_player == 3
    assert A.SLAVE_REVOLT in g.legal_actions()


def test_E8_D4_holder_with_nothing_to_send_may_still_revolt() -> None:
    """E8: a Persian holder whose Persian counters are all committed still gets his step
    (not skipped: he holds a special tile): Slave Revolt from Sicily or END_STEP."""
    g = revolt_game()
    for k in D.CLASSES_OF_CITY[D.PERSIA]:
        g.stack[k] += g.pool[k]
        g.pool[k] = 0
    keep_only(g, {})
    put_main(g, SICILY, DEFEND, 1, SPARTAN_H[0])
    assert g.legal_actions() == [A.SLAVE_REVOLT + 1 + SICILY, A.END_STEP]
    play(g, A.SLAVE_REVOLT + 1 + SICILY)
    assert g.current_player == 0  # nothing else to do: the step ended by itself
    assert g.stack[SPARTAN_H[0]] == D.INITIAL_COUNTERS[SPARTAN_H[0]]


def revolt_at_commit() -> Game:
    """Commit at LOCS, seat 3 first with Slave Revolt in hand; seat 1 leads Sparta and
    Corinth, seat 0 Athens, seat 2 Argos; every seat holds tiles (0, 1)."""
    return game_at_commit(
        leaders={"athens": 0, "sparta": 1, "corinth": 1, "argos": 2},
        tiles={p: (0, 1) for p in range(4)},
        locations=LOCS,
        first=3,
        specials={3: D.SLAVE_REVOLT},
    )


def test_E35_main_mark_survives_so_he_may_not_join_the_other_side() -> None:
    """E35 + [ENGINE] note of B.7.6 (G18): Slave Revolt removes seat 1's only counter, the
    main attacker's, at Mantinea; he keeps the mark, so he still may not defend Mantinea
    with Corinth (his forces never face each other), though no counter of his is there.
    Corinth may defend Sicily, a location of his own city."""
    g = revolt_at_commit()
    put_main(g, MANTINEA, ATTACK, 1, SPARTAN_H[1])
    relate(g, "war", "sparta", "argos")
    play(g, A.SLAVE_REVOLT + 1 + MANTINEA, A.END_STEP, A.END_STEP)  # seats 3 and 0
    assert g.current_player == 1
    assert g.main[MANTINEA * 2 + ATTACK] == 1 and g.side_cities[MANTINEA * 2 + ATTACK] == 0
    ch = klass("corinth", "H", 2)
    assert MANTINEA not in defend_slots(g, ch)
    assert SICILY in defend_slots(g, ch)
    rejects(g, place(ch, MANTINEA, DEFEND))


# ---- additions: deny closing an idle step, E38 bonus, main marks after the revolt -------------


def test_B78_E22_deny_can_leave_the_step_idle_and_a_coleader_may_ask_again() -> None:
    """B.7.8 (3) + E8 engine note: Persia is allied with every city, so Persian counters can
    attack nowhere (B.7.6 attack 2) and may only defend Megara's location, with the Megara
    leader's permission. Seat 1 (Persian, no special) asks, seat 0 denies: nothing else is
    legal, so his step ends by itself. The denial binds only that step: co-leader seat 2
    asks again for (Persia, Megara) in his own step, and a grant places the counter."""
    g = game_at_commit(n=3, leaders={"megara": 0}, locations=LOCS, first=0)
    for city in D.CITY_NAMES:
        relate(g, "ally", "persia", city)
    play(g, A.END_STEP)
    assert g.current_player == 1
    assert g.legal_actions() == sorted(
        [place(k, MEGARA_LOC, DEFEND) for k in D.CLASSES_OF_CITY[D.PERSIA] if g.pool[k]]
        + [A.END_STEP]
    )
    play(g, place(PH3, MEGARA_LOC, DEFEND), A.DENY)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 2)
    assert events_of(g, "end_step") == [("end_step", 0)]  # seat 1's step closed by itself
    assert g.held1[:3] == [0, 0, 0] and g.pool[PH3] == 4
    assert place(PH3, MEGARA_LOC, DEFEND) in g.legal_actions()
    play(g, place(PH3, MEGARA_LOC, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 0)
    play(g, A.GRANT)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 2)
    assert g.main[MEGARA_LOC * 2 + DEFEND] == 2 and at_box(g, MEGARA_LOC, DEFEND, MAIN, PH3) == 1
    assert events_of(g, "permission") == [
        ("permission", 0, "persia", MEGARA_LOC, False),
        ("permission", 0, "persia", MEGARA_LOC, True),
    ]


def test_E38_permitted_first_defender_gets_the_unattacked_bonus() -> None:
    """E38/E29 and the hand-over to phase 6 (B.8): Thebes's leader (seat 1), permitted by
    Athens's leader, defends Amphipolis first and is its main defender; the Athens leader's
    own counter goes allied. Nobody attacks, so after the last step the battles give the 2
    Athenian cubes to seat 1, not to seat 0."""
    g = permission_game()
    play(g, place(TH, AMPHIPOLIS, DEFEND), A.GRANT, A.END_STEP)
    play(g, A.END_STEP, A.END_STEP)  # seats 2 and 3
    play(g, place(AH, AMPHIPOLIS, DEFEND), A.END_STEP)  # seat 0: allied box, no request
    cubes = [g.cubes[D.ATHENS * 5 + p] for p in range(4)]
    for _ in range(4):  # everybody's second tile
        assert g.phase == Phase.COMMIT
        play(g, A.END_STEP)
    assert ("phase", 1, "battles", 1) in g.event_log
    assert [e for e in battle_events(g) if e[0] == "cubes"] == [("cubes", 1, "athens", 2)]
    assert [g.cubes[D.ATHENS * 5 + p] for p in range(4)] == [
        cubes[0],
        cubes[1] + 2,
        cubes[2],
        cubes[3],
    ]
    assert g.turn == 2


def test_E35_main_defender_mark_survives_so_he_may_not_attack_there() -> None:
    """E35 + B.7.6 (the attack side of the main-mark rule): the Sparta leader (seat 1, also
    leading Corinth) is main defender of Amphipolis with Athens's permission; Slave Revolt
    takes his only counter there. He keeps the mark, so Corinth may not attack Amphipolis,
    though it may attack Delium; neutral Argos (seat 2) may attack Amphipolis."""
    g = revolt_at_commit()
    put_main(g, AMPHIPOLIS, DEFEND, 1, SPARTAN_H[2])
    g.perm[AMPHIPOLIS] |= bits("sparta")
    relate(g, "ally", "sparta", "athens")
    play(g, A.SLAVE_REVOLT + 1 + AMPHIPOLIS, A.END_STEP, A.END_STEP)  # seats 3 and 0
    assert g.current_player == 1
    assert g.main[AMPHIPOLIS * 2 + DEFEND] == 1 and g.side_cities[AMPHIPOLIS * 2 + DEFEND] == 0
    ch = klass("corinth", "H", 2)
    assert place(ch, AMPHIPOLIS, ATTACK) not in g.legal_actions()
    assert place(ch, DELIUM, ATTACK) in g.legal_actions()
    rejects(g, place(ch, AMPHIPOLIS, ATTACK))
    play(g, A.END_STEP)
    assert g.current_player == 2
    assert place(klass("argos", "H", 1), AMPHIPOLIS, ATTACK) in g.legal_actions()


def test_E35_main_mark_kept_so_his_later_counters_still_go_to_the_main_box() -> None:
    """E35/C.1: after Slave Revolt empties seat 1's main attacker box at Mantinea, his next
    Spartan counter there goes back into the main box, not the allied one."""
    g = game_at_commit(
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        tiles={p: (0, 1) for p in range(4)},
        locations=LOCS,
        first=3,
        specials={3: D.SLAVE_REVOLT},
    )
    put_main(g, MANTINEA, ATTACK, 1, SPARTAN_H[1])
    relate(g, "war", "sparta", "argos")
    play(g, A.SLAVE_REVOLT + 1 + MANTINEA, A.END_STEP, A.END_STEP)  # seats 3 and 0
    assert g.current_player == 1 and g.side_cities[MANTINEA * 2 + ATTACK] == 0
    play(g, place(SPARTAN_H[3], MANTINEA, ATTACK))
    assert at_box(g, MANTINEA, ATTACK, MAIN, SPARTAN_H[3]) == 1
    assert at_box(g, MANTINEA, ATTACK, ALLIED, SPARTAN_H[3]) == 0
    assert events_of(g, "place")[-1] == ("place", 1, "sparta", "H", MANTINEA, "attack", "main")


def test_D4_E35_location_draw_is_uniform_over_its_counters() -> None:
    """D.4 step 2 from a location: Sicily holds one Spartan H1 and three H2 (main defender
    box); 800 seeded draws give about 200 H1 and 600 H2 (sd about 12), and the same RNG
    state always draws the same counter."""
    g = revolt_game()
    put_main(g, SICILY, DEFEND, 1, SPARTAN_H[0])
    put(g, SICILY, DEFEND, MAIN, SPARTAN_H[1], 3)
    counts: Counter[str] = Counter()
    for seed in range(800):
        trial = g.clone()
        trial.rng = Rng(seed)
        trial.apply_action_checked(A.SLAVE_REVOLT + 1 + SICILY)
        name = events_of(trial, "slave_revolt")[-1][3]
        counts[name] += 1
        if seed < 3:
            again = g.clone()
            again.rng = Rng(seed)
            again.apply_action_checked(A.SLAVE_REVOLT + 1 + SICILY)
            assert again == trial
        left = at_box(trial, SICILY, DEFEND, MAIN, SPARTAN_H[0]) + at_box(
            trial, SICILY, DEFEND, MAIN, SPARTAN_H[1]
        )
        assert left == 3
    assert set(counts) == {"sparta-H1", "sparta-H2"}
    assert abs(counts["sparta-H1"] - 200) < 50 and abs(counts["sparta-H2"] - 600) < 50, counts
