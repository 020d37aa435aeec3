"""The flat action codec (docs/rules.md Appendix 1): contiguous documented ranges,
encode/decode round trips, unique text per id, and docs/actions.md kept in sync."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from perikles_env.engine import NUM_ACTIONS, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.game import PHASE_ACTION_RANGES

ROOT = Path(__file__).resolve().parents[2]

# Argument domains per range: (arg1 values, arg2 values or None, arg3 values or None).
CITY = range(D.NUM_CITIES)
DOMAINS: dict[str, tuple[range, range | None, range | None]] = {
    "SETUP_CUBE": (CITY, None, None),
    "TAKE_TILE": (range(D.INFLUENCE_DISPLAY_SIZE), None, None),
    "PLAY_PERIKLES": (range(1), None, None),
    "PLAY_PLAGUE": (CITY, None, None),
    "ALKIBIADES_CUBE": (CITY, range(D.MAX_PLAYERS), None),
    "ALKIBIADES_DEST": (CITY, None, None),
    "END_PICK": (range(1), None, None),
    "ANY_CITY": (CITY, None, None),
    "PROPOSE": (CITY, range(D.MAX_PLAYERS), None),
    "ASSASSINATE": (CITY, range(A.ASSASSIN_TARGETS), None),
    "SPARTA_FIRST": (range(D.MAX_PLAYERS), None, None),
    "DEAD_POOL": (range(2), None, None),
    "PLACE": (range(D.NUM_CLASSES), range(D.LOCATION_SLOTS), range(2)),
    "SPEND_CUBE": (CITY, None, None),
    "SLAVE_REVOLT": (range(1 + D.LOCATION_SLOTS), None, None),
    "END_STEP": (range(1), None, None),
    "GRANT": (range(1), None, None),
    "DENY": (range(1), None, None),
    "BATTLE_PASS": (range(1), None, None),
    "BATTLE_DOUBLE": (range(1), None, None),
    "BATTLE_TOKEN": (range(2), None, None),
    "CASUALTY": (range(D.NUM_MILITARY_CITIES), None, None),
}


def encode(kind: str, a1: int, a2: int = -1, a3: int = -1) -> int:
    """Independent encoder built from the documented formulas (docs/actions.md)."""
    start = A.RANGES[kind][0]
    if kind in ("ALKIBIADES_CUBE", "PROPOSE"):
        return start + a1 * D.MAX_PLAYERS + a2
    if kind == "ASSASSINATE":
        return start + a1 * A.ASSASSIN_TARGETS + a2
    if kind == "PLACE":
        return start + (a1 * D.LOCATION_SLOTS + a2) * 2 + a3
    return start + a1


def all_argument_tuples(kind: str) -> list[tuple[int, int, int]]:
    first, second, third = DOMAINS[kind]
    return [
        (a1, a2, a3)
        for a1 in first
        for a2 in (second if second is not None else [-1])
        for a3 in (third if third is not None else [-1])
    ]


def load_generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_action_docs.py"
    spec = importlib.util.spec_from_file_location("gen_action_docs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_num_actions_is_the_sum_of_range_sizes() -> None:
    assert NUM_ACTIONS == sum(size for _, size in A.RANGE_SIZES) == 957
    assert set(DOMAINS) == set(A.RANGES), "every range needs an argument domain here"


def test_ranges_are_contiguous_in_declaration_order() -> None:
    expected_start = 0
    for name, size in A.RANGE_SIZES:
        assert size > 0
        assert A.RANGES[name] == (expected_start, size), name
        assert getattr(A, name) == expected_start, f"constant {name} != range start"
        expected_start += size
    assert expected_start == NUM_ACTIONS


def test_range_sizes_match_argument_domains() -> None:
    for kind, (_, size) in A.RANGES.items():
        assert len(all_argument_tuples(kind)) == size, kind


@pytest.mark.parametrize("kind", list(A.RANGES))
def test_encode_decode_round_trip_every_id(kind: str) -> None:
    start, size = A.RANGES[kind]
    ids = []
    for args in all_argument_tuples(kind):
        action = encode(kind, *args)
        assert start <= action < start + size
        assert A.decode(action) == (kind, *args), (kind, args)
        ids.append(action)
    assert sorted(ids) == list(range(start, start + size)), "encoding is not a bijection"


def test_module_encoders_agree_with_documented_formulas() -> None:
    for city in CITY:
        for off in range(D.MAX_PLAYERS):
            assert A.city_player(A.PROPOSE, city, off) == encode("PROPOSE", city, off)
            assert A.city_player(A.ALKIBIADES_CUBE, city, off) == encode(
                "ALKIBIADES_CUBE", city, off
            )
        for target in range(A.ASSASSIN_TARGETS):
            assert A.assassinate(city, target) == encode("ASSASSINATE", city, target)
    for klass in range(D.NUM_CLASSES):
        for slot in range(D.LOCATION_SLOTS):
            for side in (A.ATTACK, A.DEFEND):
                assert A.place(klass, slot, side) == encode("PLACE", klass, slot, side)


def test_action_to_str_is_unique_per_id() -> None:
    texts = [A.action_to_str(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    for n in (3, 4, 5):
        for actor in range(n):
            seated = [A.action_to_str(a, actor, n) for a in range(NUM_ACTIONS)]
            assert len(set(seated)) == NUM_ACTIONS, (n, actor)


def test_action_to_str_shows_absolute_seats_from_offsets() -> None:
    """Offsets are relative to the actor: offset 1 from seat 3 of 4 is seat 0."""
    action = A.city_player(A.PROPOSE, D.SPARTA, 1)
    assert A.action_to_str(action) == "propose(sparta, +1)"
    assert A.action_to_str(action, 3, 4) == "propose(sparta, +1=p0)"
    assert "no such seat" in A.action_to_str(A.city_player(A.PROPOSE, D.SPARTA, 4), 0, 3)


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 10_000, "5", 2.0, None])
def test_action_to_str_of_invalid_ids_does_not_raise(bad: object) -> None:
    assert A.action_to_str(bad).startswith("<invalid action")  # type: ignore[arg-type]


def test_every_range_is_accepted_by_some_decision_phase() -> None:
    used = {kind for kinds in PHASE_ACTION_RANGES.values() for kind in kinds}
    assert used == set(A.RANGES)
    assert set(PHASE_ACTION_RANGES) == set(Phase)
    for phase in Phase:
        assert bool(PHASE_ACTION_RANGES[phase]) == (phase != Phase.GAME_OVER), phase.name


def test_committed_action_docs_match_the_generator() -> None:
    """docs/actions.md is generated; regenerate with scripts/gen_action_docs.py --write."""
    generator = load_generator()
    committed = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    assert committed == generator.render()


def test_action_docs_list_every_range_with_its_bounds() -> None:
    text = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    for name, (start, size) in A.RANGES.items():
        assert f"| `{name}` | {start} | {start + size - 1} | {size} |" in text, name
