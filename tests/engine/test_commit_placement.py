"""Phase 5 scenario tests: one commit step as micro-actions (B.7.5, E21), where a placed
counter goes (main/allied box, B.11/E39 Persian co-leaders), placement legality rule by rule
(B.7.6, E24), and city relationships (B.7.7, E23, E9). Illegal placements raise a typed
error and change nothing."""

from __future__ import annotations

import pytest

from perikles_env.engine import Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    ATTACK,
    CITY,
    DEFEND,
    at_box,
    begin_commit,
    events_of,
    game_at_commit,
    game_before_commit,
    klass,
    legal_by_is_legal,
    place,
    play,
    put,
    put_main,
    relate,
    set_cubes,
)

LOCS = ["megara", "mantinea", "sicily", "amphipolis", "plataea", "delium", "pylos"]
MEGARA_LOC, MANTINEA, SICILY, AMPHIPOLIS, PLATAEA, DELIUM, PYLOS = range(7)
MAIN, ALLIED = 0, 1
SPEND = {name: A.SPEND_CUBE + i for i, name in enumerate(D.CITY_NAMES)}


def bits(*names: str) -> int:
    return sum(1 << CITY[n] for n in names)


def can(g, counter: int, slot: int, side: int) -> bool:
    """Whether a placement is legal now; ``is_legal`` and ``legal_actions`` must agree."""
    a = place(counter, slot, side)
    legal = a in g.legal_actions()
    assert g.is_legal(a) == legal
    return legal


def rejects(g, action) -> IllegalActionError:
    """The action raises IllegalActionError naming phase, player and action; no change."""
    before, before_dict = g.clone(), g.to_dict()
    with pytest.raises(IllegalActionError) as err:
        g.apply_action_checked(action)
    assert g == before and g.to_dict() == before_dict
    assert err.value.phase == g.phase.name and err.value.player == g.current_player
    assert err.value.action == action
    return err.value


def spends(g) -> list[str]:
    return [
        D.CITY_NAMES[a - A.SPEND_CUBE] for a in g.legal_actions() if A.decode(a)[0] == "SPEND_CUBE"
    ]


def places(g) -> list[int]:
    return [a for a in g.legal_actions() if A.decode(a)[0] == "PLACE"]


def placeable_cities(g) -> set[str]:
    return {D.MILITARY_CITY_NAMES[D.CLASS_CITY[A.decode(a)[1]]] for a in places(g)}


def megara_game():
    """3 players: seat 0 leads only Megara, seats 1 and 2 are Persian leaders; every other
    city is leaderless, so nobody can give permission to defend its locations."""
    return game_at_commit(n=3, leaders={"megara": 0}, locations=LOCS, first=0)


MEG_H = [klass("megara", "H", s) for s in (1, 2)]
MEG_ALL = MEG_H + [klass("megara", "T", s) for s in (1, 2, 3)]


# ---- exact legal sets -------------------------------------------------------------------------


def test_B76_E24_exact_legal_set_of_a_single_city_leader() -> None:
    """B.7.6: the Megara leader may attack every location except Megara's own (attack 1),
    hoplites only at H-only Mantinea and Plataea (E24); he may defend Megara without
    permission, and nothing else (the other owners are leaderless, B.7.8). No spend before
    a placement (E21), no Slave Revolt, END_STEP always."""
    g = megara_game()
    assert (g.phase, g.current_player) == (Phase.COMMIT, 0)
    expected = [place(k, MEGARA_LOC, DEFEND) for k in MEG_ALL]
    for slot in (SICILY, AMPHIPOLIS, DELIUM, PYLOS):
        expected += [place(k, slot, ATTACK) for k in MEG_ALL]
    for slot in (MANTINEA, PLATAEA):
        expected += [place(k, slot, ATTACK) for k in MEG_H]
    assert g.legal_actions() == sorted(expected + [A.END_STEP])
    assert legal_by_is_legal(g) == g.legal_actions()


def test_B75_at_most_two_normal_placements_then_spend_or_end() -> None:
    """B.7.5 step 3/B.7.9: after two normal placements no third one is legal; what is left
    is spending a Megara cube (seat 0 has 2 there) or ending the step."""
    g = megara_game()
    play(g, place(MEG_H[0], SICILY, ATTACK))
    assert g.step_normal == 1 and len(places(g)) > 0
    play(g, place(klass("megara", "T", 3), AMPHIPOLIS, ATTACK))
    assert g.legal_actions() == [SPEND["megara"], A.END_STEP]
    assert legal_by_is_legal(g) == g.legal_actions()
    err = rejects(g, place(MEG_H[1], DELIUM, ATTACK))
    assert err.phase == "COMMIT" and "place(megara-H2, slot 6, attack)" in str(err)
    assert events_of(g, "place") == [
        ("place", 0, "megara", "H", SICILY, "attack", "main"),
        ("place", 0, "megara", "T", AMPHIPOLIS, "attack", "main"),
    ]
    assert at_box(g, SICILY, ATTACK, MAIN, MEG_H[0]) == 1
    assert g.pool[MEG_H[0]] == 0 and g.main[SICILY * 2 + ATTACK] == 0


def test_B75_E21_spend_cube_only_after_a_placement() -> None:
    """E21: SPEND_CUBE is illegal before the first normal placement and legal after one,
    while the second normal placement is still available."""
    g = megara_game()
    assert spends(g) == []
    rejects(g, SPEND["megara"])
    play(g, place(MEG_H[0], SICILY, ATTACK))
    assert spends(g) == ["megara"]
    assert can(g, MEG_H[1], DELIUM, ATTACK)


def test_B75_E9_spend_pays_a_cube_and_allows_two_extras_from_that_city_only() -> None:
    """B.7.5 step 4, E9, E21: a leader of Athens and Megara mixes cities in the normal
    allotment; he may spend a cube only in a city he leads (not in Sparta or Argos, where
    he also has cubes); the cube goes to his supply at once; then only Athenian counters,
    at most two, after which the step ends by itself (no special tile)."""
    g = game_at_commit(
        n=3, leaders={"athens": 0, "megara": 0, "sparta": 1}, locations=LOCS, first=0
    )
    play(g, place(MEG_H[0], SICILY, ATTACK), place(klass("athens", "T", 1), DELIUM, ATTACK))
    assert spends(g) == ["athens", "megara"]
    supply, cubes = g.supply[0], g.cubes[D.ATHENS * 5 + 0]
    play(g, SPEND["athens"])
    assert (g.supply[0], g.cubes[D.ATHENS * 5 + 0]) == (supply + 1, cubes - 1)
    assert events_of(g, "spend_cube") == [("spend_cube", 0, "athens")]
    assert placeable_cities(g) == {"athens"} and spends(g) == []
    rejects(g, place(MEG_H[1], MANTINEA, ATTACK))  # not the cube's city
    rejects(g, SPEND["megara"])  # one cube per step
    play(g, place(klass("athens", "H", 1), MANTINEA, ATTACK))
    assert g.step_extra == 1 and g.current_player == 0
    play(g, place(klass("athens", "T", 2), DELIUM, ATTACK))
    # Four counters placed: the step closed itself and seat 1 (Sparta) is next.
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    assert [e[2:4] for e in events_of(g, "place")] == [
        ("megara", "H"),
        ("athens", "T"),
        ("athens", "H"),
        ("athens", "T"),
    ]
    assert at_box(g, DELIUM, ATTACK, MAIN, klass("athens", "T", 1)) == 1
    assert at_box(g, DELIUM, ATTACK, MAIN, klass("athens", "T", 2)) == 1


def test_B75_B11_persian_leader_spends_a_cube_from_any_city() -> None:
    """B.7.5/B.11: a Persian leader may pay with one of his cubes from any city (here not
    Corinth or Megara, where he has none) and then places up to 2 more Persian counters."""
    g = game_before_commit(leaders={"athens": 0, "sparta": 1, "argos": 2}, locations=LOCS, first=3)
    set_cubes(g, "corinth", 3, 0)
    set_cubes(g, "megara", 3, 0)
    begin_commit(g)
    assert g.current_player == 3 and g.persian == 1 << 3
    play(g, place(klass("persia", "H", 3), SICILY, ATTACK))
    assert spends(g) == ["athens", "sparta", "argos", "thebes"]
    play(g, SPEND["thebes"])
    assert g.cubes[D.THEBES * 5 + 3] == 1
    assert placeable_cities(g) == {"persia"}
    play(g, place(klass("persia", "H", 2), DELIUM, ATTACK))
    play(g, place(klass("persia", "T", 2), AMPHIPOLIS, ATTACK))
    assert g.current_player == 0  # 1 normal + 2 extras: nothing left in this step
    assert sum(g.pool[k] for k in D.CLASSES_OF_CITY[D.PERSIA]) == 7


def test_E21_no_spend_for_a_city_with_no_counter_left() -> None:
    """E21: spend_cube(C) needs an uncommitted counter of C. Megara's last counter is
    placed, so only Athens can pay; with no Athenian cube of his either, no spend at all."""
    g = game_before_commit(
        n=3, leaders={"athens": 0, "megara": 0, "sparta": 1}, locations=LOCS, first=0
    )
    for k in MEG_ALL[1:]:
        g.stack[k], g.pool[k] = g.pool[k], 0
    begin_commit(g)
    play(g, place(MEG_H[0], SICILY, ATTACK))
    assert spends(g) == ["athens"]
    rejects(g, SPEND["megara"])
    set_cubes(g, "athens", 0, 0)
    assert spends(g) == []


def test_E21_no_spend_when_the_remaining_counters_fit_nowhere() -> None:
    """E21 ([ENGINE] 'could be placed legally somewhere'): Athens's remaining counters are
    triremes; Athens's own locations are H-only, and Athens is allied with every other
    owner (no attack) whose locations are leaderless (no permission). So no spend, and the
    only action left is END_STEP (kept open because he holds a special tile)."""
    g = game_before_commit(
        n=3,
        leaders={"athens": 0, "megara": 1},
        locations=["plataea", "attica", "mantinea", "pylos", "delium", "corcyra", "solygeia"],
        first=0,
        specials={0: D.BRASIDAS},
    )
    for k in D.CLASSES_OF_CITY[D.ATHENS]:
        g.stack[k], g.pool[k] = g.pool[k], 0
    g.stack[klass("athens", "H", 1)] -= 1
    g.pool[klass("athens", "H", 1)] = 1
    g.stack[klass("athens", "T", 4)] -= 2
    g.pool[klass("athens", "T", 4)] = 2
    for other in ("sparta", "argos", "thebes", "corinth"):
        relate(g, "ally", "athens", other)
    begin_commit(g)
    assert places(g) == [place(klass("athens", "H", 1), s, DEFEND) for s in (0, 1)]
    play(g, place(klass("athens", "H", 1), 0, DEFEND))
    assert g.legal_actions() == [A.END_STEP]


# ---- B.7.5 boxes, B.11/E39 -----------------------------------------------------------------


def test_B75_E9_first_placer_is_main_his_other_cities_join_main_others_allied() -> None:
    """B.7.5: the first attacker at Sicily (seat 0) becomes main attacker; his Theban
    counter also goes in the main box (E9: main force = all counters of the main player);
    Argos (seat 2) and a Persian counter (seat 3) under a Greek main player go allied."""
    g = game_at_commit(
        leaders={"athens": 0, "thebes": 0, "sparta": 1, "argos": 2},
        tiles={0: (0, 1), 1: (0, 1), 2: (0, 1), 3: (0, 1)},
        locations=LOCS,
        first=0,
    )
    ah, th = klass("athens", "H", 2), klass("thebes", "H", 1)
    arg, per = klass("argos", "H", 3), klass("persia", "H", 3)
    play(g, place(ah, SICILY, ATTACK), place(th, SICILY, ATTACK), A.END_STEP)
    play(g, A.END_STEP)  # seat 1, Sparta, owns Sicily
    play(g, place(arg, SICILY, ATTACK), A.END_STEP)
    play(g, place(per, SICILY, ATTACK))  # seat 3's step still open (he may spend)
    assert g.main[SICILY * 2 + ATTACK] == 0 and g.main[SICILY * 2 + DEFEND] == -1
    assert [at_box(g, SICILY, ATTACK, MAIN, k) for k in (ah, th, arg, per)] == [1, 1, 0, 0]
    assert [at_box(g, SICILY, ATTACK, ALLIED, k) for k in (ah, th, arg, per)] == [0, 0, 1, 1]
    assert [e[1:] for e in events_of(g, "place")] == [
        (0, "athens", "H", SICILY, "attack", "main"),
        (0, "thebes", "H", SICILY, "attack", "main"),
        (2, "argos", "H", SICILY, "attack", "allied"),
        (3, "persia", "H", SICILY, "attack", "allied"),
    ]
    assert g.side_cities[SICILY * 2 + ATTACK] == bits("athens", "thebes", "argos", "persia")
    g.check_invariants()


def test_B11_E39_persian_coleaders_share_the_main_box() -> None:
    """B.11/E39: seat 2 (Persian) is main attacker at Delium; co-leader seat 3's Persian
    counter goes into the same main box (the main mark stays with seat 2). At Mantinea the
    main attacker is Greek (seat 0), so seat 2's Persian counter goes allied."""
    g = game_at_commit(
        leaders={"athens": 0, "sparta": 1},
        tiles={p: (0, 1) for p in range(4)},
        locations=LOCS,
        first=0,
    )
    h2, h3 = klass("persia", "H", 2), klass("persia", "H", 3)
    play(g, place(klass("athens", "H", 1), MANTINEA, ATTACK), A.END_STEP)
    play(g, A.END_STEP)
    play(g, place(h3, DELIUM, ATTACK), place(h2, MANTINEA, ATTACK), A.END_STEP)
    assert g.current_player == 3
    play(g, place(h2, DELIUM, ATTACK))  # the last step, still open
    assert g.main[DELIUM * 2 + ATTACK] == 2
    assert (at_box(g, DELIUM, ATTACK, MAIN, h3), at_box(g, DELIUM, ATTACK, MAIN, h2)) == (1, 1)
    assert at_box(g, DELIUM, ATTACK, ALLIED, h2) == 0
    assert g.main[MANTINEA * 2 + ATTACK] == 0
    assert at_box(g, MANTINEA, ATTACK, ALLIED, h2) == 1
    assert events_of(g, "place")[-1] == ("place", 3, "persia", "H", DELIUM, "attack", "main")


# ---- B.7.6 always-required conditions ---------------------------------------------------------


def test_E24_B76_typed_errors_for_illegal_placements_change_nothing() -> None:
    """B.7.6/E24: a trireme to an H-only tile, a counter of a city he does not lead, a
    counter not in his pool any more, his own city's location, and malformed ids all raise
    IllegalActionError with the state unchanged."""
    g = megara_game()
    rejects(g, place(klass("megara", "T", 1), MANTINEA, ATTACK))
    rejects(g, place(klass("megara", "T", 1), PLATAEA, ATTACK))
    rejects(g, place(klass("athens", "H", 1), SICILY, ATTACK))  # Athens is not his
    rejects(g, place(klass("persia", "H", 3), SICILY, ATTACK))  # Persia neither
    rejects(g, place(MEG_H[0], MEGARA_LOC, ATTACK))  # attack 1
    rejects(g, place(MEG_H[0], SICILY, DEFEND))  # leaderless owner: no permission
    rejects(g, A.GRANT)
    rejects(g, A.SLAVE_REVOLT)
    play(g, place(MEG_H[0], SICILY, ATTACK))
    rejects(g, place(MEG_H[0], DELIUM, ATTACK))  # the only H1 is placed already
    for bad in (A.NUM_ACTIONS, -1, "place", True, 1.0):
        before = g.clone()
        with pytest.raises(IllegalActionError):
            g.apply_action_checked(bad)
        assert g == before


# ---- B.7.6 attack conditions --------------------------------------------------------------------


def two_city_game(**kw):
    """4 players: seat 0 leads Athens and Thebes, 1 Sparta, 2 Corinth, 3 is Persian. Seat 0
    holds a special tile, so his step never closes by itself."""
    return game_at_commit(
        leaders={"athens": 0, "thebes": 0, "sparta": 1, "corinth": 2},
        tiles={0: (0, 2), 1: (0, 1), 2: (0, 1), 3: (0, 1)},
        locations=LOCS,
        first=0,
        specials={0: D.BRASIDAS},
        **kw,
    )


AH, TH = klass("athens", "H", 1), klass("thebes", "H", 1)
SH, CH, PH = klass("sparta", "H", 2), klass("corinth", "H", 2), klass("persia", "H", 3)


def test_B76_attack1_never_a_location_of_a_city_he_leads() -> None:
    """B.7.6 attack 1: seat 0 leads Athens and Thebes, so no counter of his may attack
    Amphipolis, Plataea (Athens) or Delium (Thebes), with either city's counters."""
    g = two_city_game()
    for slot in (AMPHIPOLIS, PLATAEA, DELIUM):
        assert not can(g, AH, slot, ATTACK) and not can(g, TH, slot, ATTACK)
        rejects(g, place(TH, slot, ATTACK))
    assert can(g, AH, SICILY, ATTACK) and can(g, TH, SICILY, ATTACK)


def test_B76_attack2_not_allied_with_owner_or_a_defending_city() -> None:
    """B.7.6 attack 2: Thebes allied with Sparta may not attack Sicily (Sparta's); Athens,
    allied with Corinth, may not attack Pylos where Corinth defends; neutral cities may."""
    g = two_city_game()
    relate(g, "ally", "thebes", "sparta")
    assert not can(g, TH, SICILY, ATTACK) and can(g, AH, SICILY, ATTACK)
    put_main(g, PYLOS, DEFEND, 2, CH)
    relate(g, "ally", "corinth", "sparta")
    g.perm[PYLOS] |= bits("corinth")
    assert can(g, AH, PYLOS, ATTACK)
    relate(g, "ally", "athens", "corinth")
    assert not can(g, AH, PYLOS, ATTACK)
    rejects(g, place(AH, PYLOS, ATTACK))


def test_B76_attack3_never_against_a_defending_city_he_leads() -> None:
    """B.7.6 attack 3: Thebes (seat 0) defends Sicily in the allied box under Sparta's main
    defender; seat 0 may then not attack Sicily with Athens (his forces never face each
    other). Without the Theban counter he may."""
    g = two_city_game()
    assert can(g, AH, SICILY, ATTACK)
    put_main(g, SICILY, DEFEND, 1, SH)
    put(g, SICILY, DEFEND, ALLIED, TH)
    relate(g, "ally", "thebes", "sparta")
    assert not can(g, AH, SICILY, ATTACK)
    rejects(g, place(AH, SICILY, ATTACK))


def test_B76_attack4_not_at_war_with_an_attacking_city() -> None:
    """B.7.6 attack 4: Corinth attacks Mantinea; Athens, at war with Corinth, may not join
    that attack; Thebes (neutral) may."""
    g = two_city_game()
    put_main(g, MANTINEA, ATTACK, 2, CH)
    relate(g, "war", "corinth", "argos")
    assert can(g, AH, MANTINEA, ATTACK)
    relate(g, "war", "athens", "corinth")
    assert not can(g, AH, MANTINEA, ATTACK) and can(g, TH, MANTINEA, ATTACK)


def test_B76_attack5_effects_war_with_defenders_alliance_with_attackers() -> None:
    """B.7.6 attack 5: Athens attacks Pylos, which Sparta owns, Corinth defends and Persia
    attacks: Athens is now at war with Sparta and Corinth and allied with Persia, both
    ways; no other relationship changes."""
    g = two_city_game()
    put_main(g, PYLOS, DEFEND, 2, CH)
    put_main(g, PYLOS, ATTACK, 3, PH)
    relate(g, "ally", "corinth", "sparta")
    relate(g, "war", "persia", "sparta")
    relate(g, "war", "persia", "corinth")
    war, ally = g.war[:], g.ally[:]
    play(g, place(AH, PYLOS, ATTACK))
    assert at_box(g, PYLOS, ATTACK, ALLIED, AH) == 1 and g.main[PYLOS * 2] == 3
    a = CITY["athens"]
    assert g.war[a] == bits("sparta", "corinth") and g.ally[a] == bits("persia")
    for c in ("sparta", "corinth"):
        assert g.war[CITY[c]] == war[CITY[c]] | bits("athens")
    assert g.ally[CITY["persia"]] == ally[CITY["persia"]] | bits("athens")
    assert g.war[CITY["thebes"]] == g.ally[CITY["thebes"]] == 0
    g.check_invariants()


# ---- B.7.6 defence conditions ------------------------------------------------------------------


def test_B76_defend1_not_at_war_with_owner_or_a_defending_city() -> None:
    """B.7.6 defend 1: Thebes at war with Athens may not defend Amphipolis even though its
    leader leads Athens too; Athens at war with Corinth may not defend Delium where Corinth
    defends (Thebes, the owner, still may)."""
    g = two_city_game()
    assert can(g, TH, AMPHIPOLIS, DEFEND)
    relate(g, "war", "thebes", "athens")
    assert not can(g, TH, AMPHIPOLIS, DEFEND) and can(g, AH, AMPHIPOLIS, DEFEND)
    g2 = two_city_game()
    put_main(g2, DELIUM, DEFEND, 2, CH)
    relate(g2, "ally", "corinth", "thebes")
    g2.perm[DELIUM] |= bits("corinth")
    assert can(g2, AH, DELIUM, DEFEND)
    relate(g2, "war", "athens", "corinth")
    assert not can(g2, AH, DELIUM, DEFEND) and can(g2, TH, DELIUM, DEFEND)
    rejects(g2, place(AH, DELIUM, DEFEND))


def test_B76_defend2_not_allied_with_an_attacking_city() -> None:
    """B.7.6 defend 2: Sparta attacks Delium; Athens, allied with Sparta, may not defend it;
    Thebes (the owner, at war with Sparta) may."""
    g = two_city_game()
    put_main(g, DELIUM, ATTACK, 1, SH)
    relate(g, "war", "sparta", "thebes")
    assert can(g, AH, DELIUM, DEFEND)
    relate(g, "ally", "athens", "sparta")
    assert not can(g, AH, DELIUM, DEFEND) and can(g, TH, DELIUM, DEFEND)


def test_B76_defend3_never_against_an_attacking_city_he_leads() -> None:
    """B.7.6 defend 3 (no player on both sides): Thebes attacks Sicily (allied box under a
    Persian main attacker), so seat 0 may not defend Sicily with Athens; without it he could
    (after Sparta's permission). A Persian main attacker may not defend with Persia there."""
    g = two_city_game()
    put_main(g, SICILY, ATTACK, 3, PH)
    relate(g, "war", "persia", "sparta")
    assert can(g, AH, SICILY, DEFEND)  # legal, pending Sparta's permission
    put(g, SICILY, ATTACK, ALLIED, TH)
    relate(g, "war", "thebes", "sparta")
    relate(g, "ally", "thebes", "persia")
    assert not can(g, AH, SICILY, DEFEND)
    rejects(g, place(AH, SICILY, DEFEND))
    play(g, A.END_STEP, A.END_STEP, A.END_STEP)  # seats 0, 1, 2
    assert g.current_player == 3
    assert not can(g, klass("persia", "H", 2), SICILY, DEFEND)


def test_B76_defend4_permission_only_when_he_does_not_lead_the_owner() -> None:
    """B.7.6 defend 4/B.7.8, E9: Athens and Thebes (same leader) defend Amphipolis (Athens)
    at once; Athens defending Sicily (Sparta, led by seat 1) first asks seat 1."""
    g = two_city_game()
    play(g, place(AH, AMPHIPOLIS, DEFEND), place(TH, AMPHIPOLIS, DEFEND))
    assert g.phase == Phase.COMMIT and not events_of(g, "ask_permission")
    assert at_box(g, AMPHIPOLIS, DEFEND, MAIN, AH) == at_box(g, AMPHIPOLIS, DEFEND, MAIN, TH) == 1
    play(g, A.END_STEP, A.END_STEP, A.END_STEP, A.END_STEP)
    assert g.current_player == 0  # his second tile
    play(g, place(klass("athens", "H", 2), SICILY, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 1)


def test_B76_defend5_effects_war_with_attackers_alliance_with_owner_and_defenders() -> None:
    """B.7.6 defend 5: Athens defends Delium (Thebes's; same leader, so no permission),
    where Sparta attacks and Corinth defends: Athens is at war with Sparta, allied with
    Thebes and Corinth, both ways."""
    g = two_city_game()
    put_main(g, DELIUM, ATTACK, 1, SH)
    put_main(g, DELIUM, DEFEND, 2, CH)
    g.perm[DELIUM] |= bits("corinth")
    relate(g, "war", "sparta", "thebes")
    relate(g, "war", "sparta", "corinth")
    relate(g, "ally", "corinth", "thebes")
    play(g, place(AH, DELIUM, DEFEND))
    assert at_box(g, DELIUM, DEFEND, ALLIED, AH) == 1
    a = CITY["athens"]
    assert g.war[a] == bits("sparta") and g.ally[a] == bits("thebes", "corinth")
    assert g.war[CITY["sparta"]] == bits("thebes", "corinth", "athens")
    assert g.ally[CITY["thebes"]] == bits("corinth", "athens")
    g.check_invariants()


# ---- B.7.7 city relationships, E23, E9 ----------------------------------------------------------


def test_B77_E23_relationships_symmetric_and_kept_for_the_rest_of_the_turn() -> None:
    """B.7.7/E23: Athens attacks Sicily: Athens and Sparta are at war both ways. In seat 0's
    next step Athens still may not defend Pylos (another Sparta location) while Thebes may;
    phase 7 clears every relationship (B.9 step 4)."""
    g = two_city_game()
    play(g, place(AH, SICILY, ATTACK), A.END_STEP)
    assert g.war[CITY["athens"]] == bits("sparta") and g.war[CITY["sparta"]] == bits("athens")
    play(g, A.END_STEP, A.END_STEP, A.END_STEP)
    assert g.current_player == 0
    assert not can(g, klass("athens", "H", 2), PYLOS, DEFEND)
    assert can(g, TH, PYLOS, DEFEND)
    play(g, A.END_STEP)
    while g.turn == 1:  # phase 6: pass on every special, take any casualty choice
        legal = g.legal_actions()
        play(g, A.BATTLE_PASS if A.BATTLE_PASS in legal else legal[0])
    assert g.war == [0] * 7 and g.ally == [0] * 7


def test_B77_E9_relationships_are_per_city_not_per_player() -> None:
    """B.7.7/E9: one player leads Thebes and Argos. In one step Thebes attacks Amphipolis
    (war with Athens) and Argos defends Plataea, another Athenian location, with the Athens
    leader's permission (alliance with Athens). Afterwards Argos may not attack Athens and
    Thebes may not defend for it."""
    g = game_at_commit(
        leaders={"athens": 1, "thebes": 0, "argos": 0, "sparta": 2},
        tiles={0: (0, 2), 1: (0, 1), 2: (0, 1), 3: (0, 1)},
        locations=LOCS,
        first=0,
        specials={0: D.BRASIDAS},
    )
    arg = klass("argos", "H", 1)
    play(g, place(TH, AMPHIPOLIS, ATTACK), place(arg, PLATAEA, DEFEND))
    assert (g.phase, g.current_player) == (Phase.PERMISSION, 1)
    play(g, A.GRANT)
    assert g.war[CITY["thebes"]] == bits("athens") and g.ally[CITY["thebes"]] == 0
    assert g.ally[CITY["argos"]] == bits("athens") and g.war[CITY["argos"]] == 0
    assert g.war[CITY["athens"]] == bits("thebes") and g.ally[CITY["athens"]] == bits("argos")
    play(g, A.END_STEP, A.END_STEP, A.END_STEP, A.END_STEP)  # seats 0, 1, 2, 3
    assert g.current_player == 0  # his second tile
    assert not can(g, klass("argos", "H", 2), AMPHIPOLIS, ATTACK)
    assert not can(g, klass("thebes", "H", 2), PLATAEA, DEFEND)
    assert can(g, klass("argos", "H", 2), PLATAEA, DEFEND)  # permission already granted
    g.check_invariants()


def test_B77_E23_co_attackers_become_allies_and_never_oppose_each_other() -> None:
    """B.7.7/E23: Persia and Athens attack Sicily together, so they are allies; in his next
    step the Persian leader may neither attack Amphipolis, which Athens defends, nor defend
    Mantinea, which Athens attacks; Delium (no Athenians) is still open to him."""
    g = game_at_commit(
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        tiles={0: (0, 1), 1: (0, 1), 2: (0, 1), 3: (0, 2)},
        locations=LOCS,
        first=3,
    )
    play(g, place(PH, SICILY, ATTACK), A.END_STEP)
    assert g.current_player == 0
    play(g, place(AH, SICILY, ATTACK), place(klass("athens", "H", 2), AMPHIPOLIS, DEFEND))
    play(g, SPEND["athens"], place(klass("athens", "H", 3), MANTINEA, ATTACK), A.END_STEP)
    assert g.ally[CITY["persia"]] == bits("athens") and g.ally[CITY["athens"]] == bits("persia")
    play(g, A.END_STEP, A.END_STEP)  # seats 1 and 2
    assert g.current_player == 3
    ph2 = klass("persia", "H", 2)
    assert not can(g, ph2, AMPHIPOLIS, ATTACK)
    assert not can(g, ph2, MANTINEA, DEFEND)
    assert can(g, ph2, DELIUM, ATTACK)
    rejects(g, place(ph2, AMPHIPOLIS, ATTACK))


# ---- additions: extras limit, paid cube, a Persian leader's exact legal set ----------------------


def test_B75_B79_at_most_two_extras_then_only_end_step() -> None:
    """B.7.5 step 4/B.7.9: 2 normal + 1 cube + 2 extras is the most a step can hold. Seat 0
    holds a special tile, so the step stays open: after the second extra only END_STEP is
    left, and a third Athenian counter is a typed error."""
    g = two_city_game()
    at1, at2, at3 = (klass("athens", "T", s) for s in (1, 2, 3))
    play(g, place(AH, SICILY, ATTACK), place(TH, SICILY, ATTACK), SPEND["athens"])
    play(g, place(at1, PYLOS, ATTACK))
    assert g.step_extra == 1 and can(g, at3, PYLOS, ATTACK)
    play(g, place(at2, PYLOS, ATTACK))
    assert (g.step_normal, g.step_extra) == (2, 2)
    assert g.legal_actions() == [A.END_STEP]
    assert legal_by_is_legal(g) == [A.END_STEP]
    rejects(g, place(at3, PYLOS, ATTACK))
    rejects(g, SPEND["thebes"])
    assert at_box(g, PYLOS, ATTACK, MAIN, at1) == at_box(g, PYLOS, ATTACK, MAIN, at2) == 1
    assert len(events_of(g, "place")) == 4


def test_E21_cube_stays_paid_when_no_extra_follows() -> None:
    """E21 [ENGINE] 'the cube is paid when the action is taken': spending a Megara cube and
    then ending the step at once leaves the cube in the supply; nothing is refunded."""
    g = megara_game()
    supply, cubes = g.supply[0], g.cubes[D.MEGARA * 5 + 0]
    play(g, place(MEG_H[0], SICILY, ATTACK), SPEND["megara"], A.END_STEP)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    assert (g.supply[0], g.cubes[D.MEGARA * 5 + 0]) == (supply + 1, cubes - 1)
    assert events_of(g, "spend_cube") == [("spend_cube", 0, "megara")]
    assert events_of(g, "end_step") == [("end_step", 0)]


def test_B76_B11_exact_legal_set_of_a_persian_leader() -> None:
    """B.7.6/B.11: a Persian leader (seat 1) leads no city, so he may attack every location
    (hoplites only at H-only Mantinea and Plataea, E24); defending is possible only where
    the owner has a leader who could grant permission (Megara's location, B.7.8); the
    leaderless owners' locations cannot be defended. No spend before a placement."""
    g = megara_game()
    play(g, A.END_STEP)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 1)
    persians = [k for k in D.CLASSES_OF_CITY[D.PERSIA] if g.pool[k]]
    ph = [k for k in persians if D.CLASS_TYPE[k] == D.HOPLITE]
    assert [g.pool[k] for k in persians] == [2, 4, 2, 2]  # A.4: H2 H3 T2 T3
    expected = [place(k, MEGARA_LOC, DEFEND) for k in persians]
    for slot in (MEGARA_LOC, SICILY, AMPHIPOLIS, DELIUM, PYLOS):
        expected += [place(k, slot, ATTACK) for k in persians]
    for slot in (MANTINEA, PLATAEA):
        expected += [place(k, slot, ATTACK) for k in ph]
    assert g.legal_actions() == sorted(expected + [A.END_STEP])
    assert legal_by_is_legal(g) == g.legal_actions()
