"""Phase 5 scenario tests: the commit order (B.7.4, incl. its worked example), E8 (a called
player must use his tile even with nothing to send) and the end of phase 5 (B.8)."""

from __future__ import annotations

import pytest

from perikles_env.engine import Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    ATTACK,
    begin_commit,
    events_of,
    game_at_commit,
    game_before_commit,
    klass,
    place,
    play,
)

LOCS = ["megara", "mantinea", "sicily", "amphipolis", "plataea", "delium", "pylos"]
MANTINEA = 1
# Distinct battle specials: a holder is never skipped automatically, and none can be played
# in phase 5, so each of his steps waits for END_STEP.
BATTLE_TILES = (D.BRASIDAS, D.PHORMIO, D.THESSALIAN, D.PERSIAN_FLEET, D.PERIKLES)
FOUR_LEADERS = {"athens": 0, "sparta": 1, "argos": 2, "corinth": 3}
A_, B_, C_, D_ = range(4)  # the worked example's seats


def step_players(g) -> list[int]:
    """Drive a game whose every step waits for END_STEP; return who took each step."""
    order = []
    while g.phase == Phase.COMMIT:
        order.append(g.current_player)
        assert A.END_STEP in g.legal_actions()
        g.apply_action_checked(A.END_STEP)
    return order


def empty_pools(g) -> None:
    for k in range(D.NUM_CLASSES):
        g.stack[k] += g.pool[k]
        g.pool[k] = 0


# ---- B.7.4 worked example ---------------------------------------------------------------------


def test_B74_worked_example_exact_sequence() -> None:
    """B.7.4 example: A B C D, Sparta's leader names C; 2-shard tiles A1 B0 C2 D1 (and one
    1-shard tile each; A and D a second one). 2-shard steps C, D, A, (B skipped), C; C used
    the last one, so the 1-shard stage starts with D: D, A, B, C, then D, A."""
    g = game_at_commit(
        leaders=FOUR_LEADERS,
        tiles={A_: (1, 2), B_: (0, 1), C_: (2, 1), D_: (1, 2)},
        locations=LOCS,
        first=C_,
        specials={p: BATTLE_TILES[p] for p in range(4)},
    )
    assert (g.phase, g.current_player) == (Phase.COMMIT, C_)
    assert g.held2[:4] == [1, 0, 1, 1]  # C's tile is discarded as his step begins (B.7.4)
    order = step_players(g)
    assert order == [C_, D_, A_, C_, D_, A_, B_, C_, D_, A_]
    assert g.held2 == [0] * D.MAX_PLAYERS and g.held1 == [0] * D.MAX_PLAYERS
    assert [e[1] for e in events_of(g, "end_step")] == order


def test_B74_held_tiles_after_each_step_of_the_worked_example() -> None:
    """B.7.4: exactly one tile of the current stage's shard count is used per step; 1-shard
    tiles stay untouched while any 2-shard tile remains anywhere."""
    g = game_at_commit(
        leaders=FOUR_LEADERS,
        tiles={A_: (1, 1), B_: (0, 1), C_: (2, 1), D_: (1, 1)},
        locations=LOCS,
        first=C_,
        specials={p: BATTLE_TILES[p] for p in range(4)},
    )
    seen = []
    while g.phase == Phase.COMMIT:
        seen.append((g.current_player, g.held2[:4], g.held1[:4]))
        g.apply_action_checked(A.END_STEP)
    assert seen == [
        (C_, [1, 0, 1, 1], [1, 1, 1, 1]),
        (D_, [1, 0, 1, 0], [1, 1, 1, 1]),
        (A_, [0, 0, 1, 0], [1, 1, 1, 1]),
        (C_, [0, 0, 0, 0], [1, 1, 1, 1]),
        (D_, [0, 0, 0, 0], [1, 1, 1, 0]),
        (A_, [0, 0, 0, 0], [0, 1, 1, 0]),
        (B_, [0, 0, 0, 0], [0, 0, 1, 0]),
        (C_, [0, 0, 0, 0], [0, 0, 0, 0]),
    ]


def test_B74_E8_worked_example_with_nothing_to_send_runs_by_itself() -> None:
    """B.7.4 + E8: with empty pools and no special tiles every called player still uses a
    tile (the step happens, places nothing, and ends by itself); the order is unchanged and
    phase 5 runs to the battles without a single decision."""
    g = game_before_commit(
        leaders=FOUR_LEADERS,
        tiles={A_: (1, 1), B_: (0, 1), C_: (2, 1), D_: (1, 1)},
        locations=LOCS,
        first=C_,
    )
    empty_pools(g)
    begin_commit(g)
    assert [e[1] for e in events_of(g, "commit_nothing")] == [C_, D_, A_, C_, D_, A_, B_, C_]
    assert g.held2 == [0] * D.MAX_PLAYERS and g.held1 == [0] * D.MAX_PLAYERS
    assert not events_of(g, "place") and not events_of(g, "end_step")
    assert ("phase", 1, "battles", C_) in g.event_log
    assert g.phase == Phase.INFLUENCE_PICK and g.turn == 2  # nothing to fight: next turn


# ---- B.7.4 consequences ---------------------------------------------------------------------


def test_B74_same_player_acts_repeatedly_when_only_he_has_2_shard_tiles() -> None:
    """B.7.4: only seat 1 holds 2-shard tiles, so he takes three steps in a row while the
    1-shard holders are skipped; the 1-shard stage starts to his left (seat 2)."""
    g = game_at_commit(
        n=3,
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        tiles={0: (0, 1), 1: (3, 0), 2: (0, 1)},
        locations=LOCS,
        first=0,
        specials={p: BATTLE_TILES[p] for p in range(3)},
    )
    assert step_players(g) == [1, 1, 1, 2, 0]


def test_B74_players_without_tiles_are_skipped() -> None:
    """B.7.4: 5 players, seats 0 and 2 hold no tile and never act; seat 1 with two 1-shard
    tiles acts twice, the second time after the cursor went round past empty seats."""
    g = game_at_commit(
        n=5,
        leaders={"athens": 0, "sparta": 1, "argos": 2, "corinth": 3, "thebes": 4},
        tiles={0: (0, 0), 1: (0, 2), 2: (0, 0), 3: (1, 0), 4: (0, 1)},
        locations=LOCS,
        first=0,
        specials={p: BATTLE_TILES[p] for p in range(5)},
    )
    assert step_players(g) == [3, 4, 1, 1]


@pytest.mark.parametrize("first", [0, 1, 2])
def test_B74_one_shard_only_starts_with_phase5_first_player(first: int) -> None:
    """B.7.4: with no 2-shard tile at all, steps go clockwise from the phase-5 first player."""
    g = game_at_commit(
        n=3,
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        tiles={0: (0, 2), 1: (0, 1), 2: (0, 2)},
        locations=LOCS,
        first=first,
        specials={p: BATTLE_TILES[p] for p in range(3)},
    )
    expected = {0: [0, 1, 2, 0, 2], 1: [1, 2, 0, 2, 0], 2: [2, 0, 1, 2, 0]}[first]
    assert step_players(g) == expected


# ---- E8 ----------------------------------------------------------------------------------------


def test_E8_called_player_with_a_special_but_nothing_to_send_must_end_the_step() -> None:
    """E8 + engine note: an empty-handed player holding an unused special tile (public fact)
    is not skipped automatically; his only action is END_STEP, and his tile is already
    used. Ending it moves on to the next tile holder."""
    g = game_before_commit(
        n=3,
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        tiles={0: (0, 1), 1: (0, 1), 2: (0, 1)},
        locations=LOCS,
        first=0,
        specials={0: D.BRASIDAS},
    )
    empty_pools(g)
    begin_commit(g)
    assert (g.phase, g.current_player) == (Phase.COMMIT, 0)
    assert g.legal_actions() == [A.END_STEP]
    assert g.held1[:3] == [0, 1, 1]
    g.apply_action_checked(A.END_STEP)
    assert events_of(g, "end_step") == [("end_step", 0)]
    assert [e[1] for e in events_of(g, "commit_nothing")] == [1, 2]  # no specials: automatic
    assert g.turn == 2


def test_E8_persian_leader_whose_persians_are_all_committed_still_uses_his_tile() -> None:
    """E8: a Persian leader with an empty shared pool and no special has his later step
    skipped automatically, and the tile is gone; a city leader with counters is not."""
    g = game_at_commit(
        n=3,
        leaders={"athens": 0, "sparta": 1},
        tiles={0: (0, 1), 1: (0, 1), 2: (0, 2)},
        locations=LOCS,
        first=2,
    )
    assert g.persian == 1 << 2
    for k in D.CLASSES_OF_CITY[D.PERSIA]:
        g.stack[k] += g.pool[k]
        g.pool[k] = 0
    g.pool[klass("persia", "H", 3)] = 1  # exactly one Persian counter left
    g.stack[klass("persia", "H", 3)] -= 1
    assert g.current_player == 2
    play(g, place(klass("persia", "H", 3), MANTINEA, ATTACK))
    # Nothing placeable and no special tile: the step closes itself, athens (0) is next.
    assert (g.phase, g.current_player) == (Phase.COMMIT, 0)
    play(g, A.END_STEP)
    assert g.current_player == 1
    play(g, A.END_STEP)
    # Seat 2's second tile: he must take the step, it has nothing in it.
    assert events_of(g, "commit_nothing") == [("commit_nothing", 2)]
    assert g.held1 == [0] * D.MAX_PLAYERS
    assert ("phase", 1, "battles", 2) in g.event_log


# ---- end of phase 5 -----------------------------------------------------------------------


def test_B74_B8_last_step_ends_phase5_and_battles_use_the_commitments() -> None:
    """B.7.4 'if nobody holds any influence tile: go to phase 6': right after the last
    END_STEP the battles start and resolve what was committed (an uncontested attack on
    Mantinea wins the tile, E27)."""
    g = game_at_commit(
        n=3,
        leaders={"megara": 0, "athens": 1, "sparta": 2},
        tiles={0: (0, 1), 1: (0, 0), 2: (0, 0)},
        locations=LOCS,
        first=0,
    )
    play(g, place(klass("megara", "H", 1), MANTINEA, ATTACK))
    assert (g.phase, g.current_player) == (Phase.COMMIT, 0)
    end = len(g.event_log)
    play(g, A.END_STEP)
    assert g.event_log[end : end + 2] == [("end_step", 0), ("phase", 1, "battles", 0)]
    assert g.loc_claim[D.LOCATION_IDS["mantinea"]] == 1 << 0
    assert g.turn == 2 and g.phase == Phase.INFLUENCE_PICK


def test_B74_no_commit_action_accepted_after_phase5_ends() -> None:
    """B.7.4: once every tile is used no commit action is accepted (typed error, state
    unchanged); the game has moved on to the next turn's phase 2."""
    g = game_at_commit(
        n=3,
        leaders={"megara": 0, "athens": 1, "sparta": 2},
        tiles={0: (0, 1), 1: (0, 0), 2: (0, 0)},
        locations=LOCS,
        first=0,
        specials={0: D.BRASIDAS},
    )
    play(g, A.END_STEP)
    assert g.phase == Phase.INFLUENCE_PICK
    before = g.clone()
    with pytest.raises(IllegalActionError) as err:
        g.apply_action_checked(A.END_STEP)
    assert err.value.phase == "INFLUENCE_PICK" and err.value.action == A.END_STEP
    assert g == before
