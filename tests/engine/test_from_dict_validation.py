"""``Game.from_dict`` validation (engine/validate.py), one hand-made corruption per family:
each is rejected with ``InvalidStateError`` (a ``ValueError``) whose ``field`` names what is
wrong. Valid states load unchanged; ``clone()`` never runs the checks.
"""

from __future__ import annotations

import copy
import json
import signal
from typing import Any

import pytest

from perikles_env.engine import Game, GameConfig, Phase, new_game, validate
from perikles_env.engine import data as D
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidStateError, PeriklesError


def state_at(phase: Phase, n: int = 4, when: Any = lambda g: True) -> dict[str, Any]:
    """The first state in ``phase`` (and ``when(g)``) of seeded random games."""
    for seed in range(200):
        g = new_game(GameConfig(num_players=n), seed=seed)
        policy = Rng(seed)
        while not g.is_terminal:
            if g.phase == phase and when(g):
                return g.to_dict()
            g.apply_action(policy.choice(g.legal_actions()))
    raise AssertionError(f"no {phase.name} state in 200 games")


def rejects(d: dict[str, Any], field: str) -> InvalidStateError:
    """from_dict raises InvalidStateError whose field starts with ``field``."""
    with pytest.raises(InvalidStateError) as caught:
        Game.from_dict(d)
    error = caught.value
    assert error.field.startswith(field), f"expected field {field!r}, got: {error}"
    assert error.field in str(error)
    return error


def test_the_error_is_typed_and_a_value_error() -> None:
    assert issubclass(InvalidStateError, PeriklesError)
    assert issubclass(InvalidStateError, ValueError)


# ---- the example: an endless token race ----------------------------------------------


def test_battle_tokens_5_5_are_rejected_instead_of_looping_forever() -> None:
    """With tokens [5, 5] the C.6 race (stop at 2) never ends; the load must fail fast."""
    d = state_at(Phase.BATTLE_SPECIAL)
    d["b_tokens"] = [5, 5]
    signal.alarm(20)  # a regression would hang here, not fail
    try:
        rejects(d, "b_tokens[0]")
    finally:
        signal.alarm(0)


def test_tokens_at_a_pending_offer_are_those_a_round_starts_with() -> None:
    """C.6: a round starts with the head start plus at most one token tile: 2 is too many."""
    d = state_at(Phase.BATTLE_SPECIAL)
    d["b_tokens"] = [2, 0]
    rejects(d, "b_tokens[0]")


# ---- structure: keys, types, lengths, ranges ------------------------------------------------


def test_structure() -> None:
    d = state_at(Phase.COMMIT)
    with pytest.raises(InvalidStateError, match="expected a dict"):
        Game.from_dict([d])  # type: ignore[arg-type]
    rejects({**d, "format": "perikles-state-0"}, "format")
    missing = dict(d)
    del missing["cubes"]
    rejects(missing, "cubes")
    rejects({**d, "cheat": 1}, "cheat")
    rejects({**d, "turn": 2.0}, "turn")  # a float is not an int
    rejects({**d, "turn": True}, "turn")  # nor is a bool
    rejects({**d, "step_closed": 0}, "step_closed")  # and an int is not a bool
    rejects({**d, "phase": "LUNCH"}, "phase")
    rejects({**d, "n": 6}, "n")
    rejects({**d, "turn": 4}, "turn")
    rejects({**d, "rng": -1}, "rng")
    rejects({**d, "cubes": d["cubes"][:-1]}, "cubes")
    bad = copy.deepcopy(d)
    bad["cand"][3] = 4  # seat 4 in a 4-player game
    rejects(bad, "cand[3]")
    bad = copy.deepcopy(d)
    bad["pool"][D.class_id(D.MEGARA, D.HOPLITE, 4)] = 1  # Megara has no strength-4 hoplite
    rejects(bad, f"pool[{D.class_id(D.MEGARA, D.HOPLITE, 4)}]")
    bad = copy.deepcopy(d)
    bad["events"].append([])
    rejects(bad, "events[")


def test_seats_beyond_the_player_count_hold_nothing() -> None:
    """A tile 'held' by seat 4 of a 3-player game would keep the B.7.4 cursor circling."""
    d = state_at(Phase.COMMIT, n=3)
    d["held2"][4] = 1
    rejects(d, "held2[4]")
    d = state_at(Phase.COMMIT, n=3)
    d["special"][3] = D.BRASIDAS
    rejects(d, "special[3]")


# ---- conservation (B.12, A.3/A.4, A.5-A.7) --------------------------------------------------


def test_cube_conservation() -> None:
    d = state_at(Phase.PROPOSE)
    d["supply"][0] += 1
    error = rejects(d, "cubes/cand/supply")
    assert "player 0" in str(error)


def test_counter_conservation() -> None:
    d = state_at(Phase.COMMIT)
    k = D.class_id(D.SPARTA, D.HOPLITE, 2)
    d["dead"][k] += 1
    error = rejects(d, "stack/pool/dead/at")
    assert D.class_name(k) in str(error)


def test_influence_tile_conservation() -> None:
    d = state_at(Phase.INFLUENCE_PICK)
    d["influence_deck"].append(d["display"][0])  # one tile in two places
    rejects(d, "influence_deck/display")
    d = state_at(Phase.INFLUENCE_PICK)
    d["influence_deck"].pop()  # a tile vanished
    rejects(d, "influence_deck/display")
    d = state_at(Phase.PROPOSE)
    d["held1"][0] -= 1  # a tile that vanished
    rejects(d, "held2/held1")


def test_special_and_location_tile_conservation() -> None:
    d = state_at(Phase.COMMIT)
    d["special"][0], d["special"][1] = d["special"][1], d["special"][1]
    rejects(d, "special")
    d = state_at(Phase.COMMIT)
    d["loc_deck"].pop()
    rejects(d, "loc_deck")


# ---- rule invariants (Appendix 2), reused from invariants.py -----------------------------------


def test_relationships_are_symmetric() -> None:
    d = state_at(Phase.COMMIT)
    d["war"][D.ATHENS] |= 1 << D.THEBES  # Thebes not at war with Athens in return
    rejects(d, "war/ally")


def test_leaders_and_persians_agree() -> None:
    d = state_at(Phase.COMMIT)
    d["persian"] ^= 1
    rejects(d, "leader/persian")


def test_candidates_are_gone_after_the_elections() -> None:
    d = state_at(Phase.COMMIT)
    p = d["current"]
    d["cubes"][p] -= 1
    d["cand"][0] = p
    rejects(d, "cubes/cand/supply")


# ---- fields each phase depends on ---------------------------------------------------------


def test_the_decider_is_the_seat_whose_turn_it_is() -> None:
    d = state_at(Phase.SETUP_PLACE)
    d["current"] = (d["current"] + 1) % d["n"]
    rejects(d, "current")
    d = state_at(Phase.INFLUENCE_PICK)
    d["current"] = (d["current"] + 1) % d["n"]
    rejects(d, "current")
    d = state_at(Phase.PROPOSE)
    d["current"] = (d["propose_cursor"] + 1) % d["n"]
    rejects(d, "current/propose_cursor")


def test_phase_5_fields_are_empty_outside_phases_5_and_6() -> None:
    d = state_at(Phase.PROPOSE)
    d["main"][3] = 0
    rejects(d, "main")


def test_counters_on_a_side_need_a_main_player() -> None:
    """C.7 and C.8 ask the side's main player; a side with counters and none would crash."""
    d = state_at(Phase.BATTLE_SPECIAL)
    width = 2 * D.NUM_CLASSES  # main and allied box of one side
    ms = next(m for m in range(2 * D.LOCATION_SLOTS) if any(d["at"][m * width : (m + 1) * width]))
    assert d["main"][ms] >= 0
    d["main"][ms] = -1
    rejects(d, f"main[{ms}]")


def test_side_cities_are_the_cities_with_counters_in_phase_5() -> None:
    d = state_at(Phase.COMMIT)
    free = next(s for s in range(2 * D.LOCATION_SLOTS) if d["side_cities"][s] == 0)
    d["side_cities"][free] = 1 << D.THEBES
    rejects(d, f"side_cities[{free}]")


def test_a_battle_stage_outside_a_battle_is_rejected() -> None:
    """b_stage 2 outside CASUALTY would make the battle loop spin without progress."""
    d = state_at(Phase.COMMIT)
    d["b_stage"] = 2
    rejects(d, "b_round/b_stage")


def test_battle_cursor() -> None:
    d = state_at(Phase.BATTLE_SPECIAL)
    d["b_offers"] = []
    rejects(d, "b_offers")
    d = state_at(Phase.BATTLE_SPECIAL)
    d["b_slot"] = 7
    rejects(d, "b_tokens/b_slot/b_round")


def test_casualty_choice_is_the_engines_own_tie() -> None:
    d = state_at(Phase.CASUALTY)
    d["b_cas"] = d["b_cas"][:1]
    rejects(d, "b_cas")


def test_permission_request() -> None:
    d = state_at(Phase.PERMISSION)
    d["pending"][2] = 0  # permission is only asked for a defence (B.7.8)
    rejects(d, "pending")
    d = state_at(Phase.COMMIT)
    d["pending"] = [D.class_id(D.ATHENS, D.HOPLITE, 1), 0, 1]
    rejects(d, "pending")


def test_dead_pool_queue() -> None:
    d = state_at(Phase.COMMIT)
    d["dp_queue"] = d["dp_queue"][2:]
    d["dp_index"] = len(d["dp_queue"])
    rejects(d, "dp_queue")


def test_alkibiades_state_only_while_it_is_played() -> None:
    d = state_at(Phase.INFLUENCE_PICK)
    d["alki"] = [0, 0, 0]
    rejects(d, "alki")


def test_locations_are_resolved_in_slot_order() -> None:
    """B.8: the tiles before the battle cursor are resolved, the rest are not."""
    d = state_at(Phase.BATTLE_SPECIAL, when=lambda g: g.b_slot >= 1)
    slot, shown = d["b_slot"], d["loc_display"]
    shown[slot - 1], shown[slot] = shown[slot], shown[slot - 1]
    rejects(d, f"loc_display[{slot - 1}]")


def test_a_decision_with_no_legal_action_is_rejected() -> None:
    """A setup seat with an empty supply could not act (B.1 step 9 needs a cube)."""
    d = state_at(Phase.SETUP_PLACE)
    p = d["current"]
    d["cubes"][D.ATHENS * D.MAX_PLAYERS + p] += d["supply"][p]
    d["supply"][p] = 0
    rejects(d, "phase")


# ---- what must keep working -------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_state_of_random_games_loads_byte_identical(n: int) -> None:
    for seed in range(3):
        g = new_game(GameConfig(num_players=n), seed=seed)
        policy = Rng(seed)
        while True:
            text = json.dumps(g.to_dict())
            assert json.dumps(Game.from_dict(json.loads(text)).to_dict()) == text
            if g.is_terminal:
                break
            g.apply_action(policy.choice(g.legal_actions()))


def test_rejection_leaves_the_input_unchanged() -> None:
    d = state_at(Phase.BATTLE_SPECIAL)
    d["b_tokens"] = [5, 5]
    before = copy.deepcopy(d)
    with pytest.raises(InvalidStateError):
        Game.from_dict(d)
    assert d == before


def test_clone_does_not_validate(monkeypatch: pytest.MonkeyPatch) -> None:
    """clone() is the search hot path: it copies, it never re-checks."""
    g = Game.from_dict(state_at(Phase.COMMIT))

    def boom(*args: Any) -> None:
        raise AssertionError("validation ran")

    monkeypatch.setattr(validate, "check_state", boom)
    monkeypatch.setattr(validate, "check_fields", boom)
    assert g.clone() == g


def test_every_state_field_has_a_rule() -> None:
    """A field added to the state gets a range rule here, not only its declared type."""
    from perikles_env.engine.state import STATE_FIELDS

    assert set(STATE_FIELDS) | {"rng"} <= set(validate.field_rules(4))
