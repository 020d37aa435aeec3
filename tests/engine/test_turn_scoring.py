"""Phase 7 end of turn (docs/rules.md B.9, E10, E41) and scoring with tie-breaks (B.10, B.11)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Game, GameConfig, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine import new_game as engine_game
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    ATTACK,
    CITY,
    clear_cubes,
    events_of,
    klass,
    new_game,
    put,
    set_cubes,
    set_leaders,
    set_locations,
    take_forces,
)

ATHENS, SPARTA, ARGOS, CORINTH, THEBES, MEGARA = range(6)
LOC = D.LOCATION_IDS


def end_turn(g: Game) -> None:
    """Phase 7 on a hand-made state whose displayed locations count as resolved (C.8)."""
    for t in g.loc_display:
        g.loc_done[t] = 1
    g._end_turn()


def statues(g: Game, player: int) -> list[int]:
    return [g.statues[c * 5 + player] for c in range(6)]


# ---- B.9 end of turn -----------------------------------------------------------------------------


def test_b9_step2_each_leader_counter_becomes_a_statue() -> None:
    """B.9 step 2: one statue per led city, added to those of earlier turns."""
    g = new_game(4, seed=1)
    g.statues[CORINTH * 5 + 2] = 1
    set_leaders(g, {"athens": 0, "sparta": 0, "corinth": 2, "megara": 3})
    g._end_turn()
    assert statues(g, 0) == [1, 1, 0, 0, 0, 0]
    assert statues(g, 1) == [0] * 6
    assert statues(g, 2) == [0, 0, 0, 2, 0, 0]
    assert statues(g, 3) == [0, 0, 0, 0, 0, 1]


def test_b9_step3_pools_go_home_dead_pool_stays() -> None:
    """B.9 step 3: uncommitted pool counters return to their city stacks and Persian ones
    to the shield; dead-pool counters stay dead."""
    g = new_game(4, seed=2)
    set_leaders(g, {"athens": 0, "sparta": 1})  # players 2 and 3: Persian leaders
    take_forces(g)
    dead = klass("sparta", "H", 2)
    g.pool[dead] -= 1
    g.dead[dead] += 1
    assert any(g.pool[k] for k in D.CLASSES_OF_CITY[D.PERSIA])
    end_turn(g)
    assert g.pool == [0] * D.NUM_CLASSES
    expected = list(D.INITIAL_COUNTERS)
    expected[dead] -= 1
    assert g.stack == expected and g.dead[dead] == 1 and sum(g.dead) == 1
    g.check_invariants()


def test_b9_step4_turn_marks_are_cleared() -> None:
    """B.9 step 4: leaders, Persian leadership, relationships, permissions and main marks
    are cleared at the end of the turn."""
    g = new_game(4, seed=3)
    set_leaders(g, {"athens": 1, "thebes": 2})
    g.main[0] = 1
    g.main[5] = 2
    g.side_cities[0] = 1 << ATHENS
    g.war[ATHENS] = 1 << THEBES
    g.war[THEBES] = 1 << ATHENS
    g.ally[ATHENS] = 1 << D.PERSIA
    g.ally[D.PERSIA] = 1 << ATHENS
    g.perm[2] = 0b11
    g.denied[4] = 0b1
    end_turn(g)
    assert g.leader == [-1] * 6 and g.persian == 0
    assert g.main == [-1] * 14 and g.side_cities == [0] * 14
    assert g.war == [0] * 7 and g.ally == [0] * 7
    assert g.perm == [0] * 7 and g.denied == [0] * 7
    assert g.turn == 2 and g.phase == Phase.INFLUENCE_PICK
    g.check_invariants()


# ---- E10 first player of turns 2 and 3 ---------------------------------------------------------


def test_e10_athens_leader_is_next_first_player_and_is_remembered() -> None:
    """B.4/B.9 step 1/E10: turn 2 starts with this turn's Athens leader; when Athens has
    no leader in turn 2, turn 3 starts with the most recent one (from turn 1)."""
    g = new_game(4, seed=4)
    g.first_player = 0
    set_leaders(g, {"athens": 2, "sparta": 3})
    g._end_turn()
    assert (g.turn, g.first_player, g.last_athens) == (2, 2, 2)
    assert (g.phase, g.current_player) == (Phase.INFLUENCE_PICK, 2)
    assert ("phase", 2, "influence", 2) in g.event_log
    set_leaders(g, {"sparta": 1})  # Athens leaderless in turn 2
    g._end_turn()
    assert (g.turn, g.first_player, g.current_player) == (3, 2, 2)


def test_e10_never_an_athens_leader_keeps_the_first_player() -> None:
    """E10: if Athens has never had a leader, the previous first player stays first."""
    g = new_game(5, seed=5)
    g.first_player = 3
    set_leaders(g, {"sparta": 1})
    g._end_turn()
    assert (g.turn, g.first_player, g.current_player, g.last_athens) == (2, 3, 3, -1)


# ---- B.9 step 5 / E41 game end ------------------------------------------------------------------


def test_b9_step5_game_ends_after_turn_3() -> None:
    """B.9 step 5: the end of turn 3 ends the game; the terminal state has no decider."""
    g = new_game(3, seed=6)
    g.turn = 3
    g._end_turn()
    assert g.phase == Phase.GAME_OVER and g.is_terminal
    assert g.current_player is None and g.legal_actions() == []
    assert events_of(g, "game_over") == [("game_over", g.scores(), g.winners())]
    before = g.to_dict()
    with pytest.raises(IllegalActionError, match="game is over"):
        g.apply_action_checked(A.SETUP_CUBE)
    assert g.to_dict() == before


@pytest.mark.parametrize(
    ("city", "defeats", "over"),
    [
        ("athens", 4, True),
        ("sparta", 4, True),
        ("athens", 6, True),
        ("athens", 3, False),
        ("sparta", 3, False),
        ("corinth", 4, False),
        ("thebes", 5, False),
    ],
)
def test_b9_step5_early_end_at_four_defeats_of_athens_or_sparta(
    city: str, defeats: int, over: bool
) -> None:
    """B.9 step 5/E3: the game ends early when Athens or Sparta has 4+ defeats at the end of
    a turn; other cities' defeats never end it."""
    g = new_game(4, seed=7)
    g.defeats[CITY[city]] = defeats
    g._end_turn()
    assert g.is_terminal == over
    assert g.turn == (1 if over else 2)


def battle_turn(city: str, start_defeats: int) -> Game:
    """Turn 1, phase 6: the other great city's leader attacks two undefended locations of
    ``city`` (slots 1, 2) and Mantinea (slot 3) with hoplites; nothing anywhere else."""
    g = new_game(4, seed=8)
    attacker, unit = (1, "sparta") if city == "athens" else (0, "athens")
    set_leaders(g, {"athens": 0, "sparta": 1})
    take_forces(g)
    names = ["attica", "naupactus"] if city == "athens" else ["pylos", "epidaurus"]
    set_locations(g, names + ["mantinea"])
    for slot in range(3):
        g.main[slot * 2 + ATTACK] = attacker
        put(g, slot, ATTACK, 0, klass(unit, "H", 1 + slot % 2))
    g.defeats[CITY[city]] = start_defeats
    g._begin_battles()
    return g


@pytest.mark.parametrize("city", ["athens", "sparta"])
def test_e41_fourth_defeat_mid_phase6_all_battles_still_resolved(city: str) -> None:
    """E41/B.9 step 5: the 4th defeat comes at slot 2, yet slot 3 and the rest are still
    resolved; the game ends at the end of that turn (turn 1)."""
    g = battle_turn(city, start_defeats=2)
    claims = [(e[1], e[3]) for e in events_of(g, "claim")]
    attacker = 1 if city == "athens" else 0
    assert claims == [(0, [attacker]), (1, [attacker]), (2, [attacker])]
    assert g.defeats[CITY[city]] == 4 and g.defeats[ARGOS] == 1
    assert all(g.loc_done[t] for t in g.loc_display)
    assert [e[1] for e in events_of(g, "unclaimed")] == [3, 4, 5, 6]
    assert g.is_terminal and g.turn == 1
    assert g.location_vp(attacker) == sum(D.LOCATION_TILES[t].vp for t in g.loc_display[:3])
    g.check_invariants()


def test_e41_three_defeats_at_end_of_turn_continue() -> None:
    """B.9 step 5 (contrast): reaching only 3 defeats lets turn 2 begin."""
    g = battle_turn("athens", start_defeats=1)
    assert g.defeats[ATHENS] == 3 and not g.is_terminal
    assert g.turn == 2 and g.phase == Phase.INFLUENCE_PICK
    assert g.statues[ATHENS * 5 + 0] == 1 and g.statues[SPARTA * 5 + 1] == 1


# ---- B.10 scoring --------------------------------------------------------------------------------


def scoring_game() -> Game:
    """End-of-game components for 4 players (see the test below for the sums)."""
    g = new_game(4, seed=9)
    clear_cubes(g)
    set_cubes(g, "athens", 0, 3)
    set_cubes(g, "sparta", 0, 2)
    set_cubes(g, "thebes", 1, 10)
    set_cubes(g, "megara", 3, 4)
    for name, winners in (("sicily", [0]), ("mantinea", [0]), ("delium", [1, 2]), ("pylos", [])):
        t = LOC[name]
        g.loc_done[t] = 1
        g.loc_claim[t] = sum(1 << p for p in winners)
    g.statues[CORINTH * 5 + 0] = 2
    g.statues[ARGOS * 5 + 0] = 1
    g.statues[ATHENS * 5 + 1] = 1
    g.statues[THEBES * 5 + 2] = 1
    g.defeats = [1, 0, 2, 2, 3, 0]
    return g


def test_b10_cubes_locations_statues_at_final_value() -> None:
    """B.10: 1 VP per cube, printed VP of won tiles (a shared Persian tile in full for each
    co-leader, B.11), statues x final track value (Corinth 2 defeats = 5, Argos 2 = 0,
    Athens 1 = 5, Thebes 3 = 0); unclaimed tiles score for nobody."""
    g = scoring_game()
    # p0: 5 cubes + Sicily 7 + Mantinea 5 + 2 x 5 (Corinth) + 1 x 0 (Argos) = 27
    # p1: 10 cubes + Delium 5 (shared) + 1 x 5 (Athens) = 20
    # p2: Delium 5 (shared) + 1 x 0 (Thebes) = 5;  p3: 4 cubes
    assert g.scores() == [27, 20, 5, 4]
    assert [g.location_vp(p) for p in range(4)] == [12, 5, 5, 0]
    assert [g.statue_count(p) for p in range(4)] == [3, 1, 1, 0]
    assert g.winners() == [0]


def test_b10_statue_valued_at_final_track_not_when_built() -> None:
    """B.10: a statue built in turn 1 (Corinth worth 9 then) scores the final value."""
    g = new_game(3, seed=10)
    clear_cubes(g)
    set_leaders(g, {"corinth": 1})
    g._end_turn()
    assert g.scores() == [0, 9, 0]
    g.defeats[CORINTH] = 3
    g.turn = 3
    g._end_turn()
    assert g.is_terminal and g.scores() == [0, 3, 0]
    g.defeats[CORINTH] = 4
    assert g.scores() == [0, 0, 0]


def test_b10_tie_break_location_vp() -> None:
    """B.10 tie-break 1: equal totals, more location VP wins."""
    g = new_game(4, seed=11)
    clear_cubes(g)
    set_cubes(g, "athens", 0, 13)
    set_cubes(g, "athens", 1, 16)
    for name, p in (("sicily", 0), ("pylos", 1)):
        g.loc_done[LOC[name]] = 1
        g.loc_claim[LOC[name]] = 1 << p
    assert g.scores()[:2] == [20, 20]
    assert g.winners() == [0]


def test_b10_tie_break_statue_count_then_shared() -> None:
    """B.10 tie-breaks 2 and 3: equal totals and location VP: more statues (a plain count,
    worthless ones included) wins; if those are equal too, the win is shared."""
    g = new_game(4, seed=12)
    clear_cubes(g)
    set_cubes(g, "athens", 0, 10)
    set_cubes(g, "athens", 1, 10)
    for name, p in (("sicily", 0), ("cythera", 1), ("pylos", 1)):
        g.loc_done[LOC[name]] = 1
        g.loc_claim[LOC[name]] |= 1 << p
    g.defeats[ARGOS] = g.defeats[MEGARA] = 2  # their statues are worth 0
    g.statues[ARGOS * 5 + 0] = 1
    g.statues[MEGARA * 5 + 0] = 1
    g.statues[ARGOS * 5 + 1] = 1
    assert g.scores()[:2] == [17, 17]
    assert (g.location_vp(0), g.location_vp(1)) == (7, 7)
    assert g.winners() == [0]
    g.statues[MEGARA * 5 + 1] = 1
    assert g.winners() == [0, 1]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_b10_full_game_scores_recomputed_from_components(n: int) -> None:
    """B.10 end to end: a complete game (first legal action each time) ends in GAME_OVER
    and its scores equal cubes + location VP + statues at the final track."""
    g = engine_game(GameConfig(num_players=n), seed=100 + n)
    while not g.is_terminal:
        g.apply_action(g.legal_actions()[0])
    expected = []
    for p in range(n):
        cubes = sum(g.cubes[c * 5 + p] for c in range(6))
        tiles = sum(D.LOCATION_TILES[t].vp for t in range(21) if g.loc_claim[t] >> p & 1)
        stat = sum(g.statues[c * 5 + p] * D.statue_value(c, g.defeats[c]) for c in range(6))
        expected.append(cubes + tiles + stat)
    assert g.cand == [-1] * 12  # only main-area cubes remain at the end
    assert g.scores() == expected
    best = max(expected)
    assert set(g.winners()) <= {p for p in range(n) if expected[p] == best}
    assert events_of(g, "game_over")[-1] == ("game_over", expected, g.winners())
