"""The types of the state's fields are generated from their one declaration
(engine/schema.py, by scripts/gen_annotations.py): no class restates the schema by hand."""

from __future__ import annotations

import dataclasses
import typing

from perikles_env.analysis.generated_view import SharedFields
from perikles_env.analysis.view import PUBLIC_FIELDS, PlayerView
from perikles_env.engine import GameConfig, new_game, schema
from perikles_env.engine.generated_state import StateFields
from perikles_env.engine.phases import Phase
from perikles_env.engine.rng import Rng
from perikles_env.engine.state import STATE_FIELDS, GameState
from tests.generated import ROOT, assert_generated_current, load_generator


def test_generated_annotations_are_current() -> None:
    assert_generated_current("gen_annotations.py")


def test_every_field_is_annotated_once_with_its_kinds_type() -> None:
    state = typing.get_type_hints(GameState)
    assert list(StateFields.__annotations__) == [*STATE_FIELDS, "rng"]
    assert list(state) == [*STATE_FIELDS, "rng"]  # nothing else restates them
    expected = {"int": int, "u64": int, "bool": bool, "phase": Phase, "ints": list[int],
                "list": list[int], "dice": list[int]}
    for f in schema.FIELDS:
        if f.kind != "events":
            assert state[f.name] == expected[f.kind], f.name
    assert state["rng"] is Rng
    assert "bitmask of Persian leaders" in (ROOT / "perikles_env/engine/generated_state.py") \
        .read_text()


def test_the_view_annotates_its_shared_fields_from_the_schema() -> None:
    assert tuple(SharedFields.__annotations__) == PUBLIC_FIELDS
    hints = typing.get_type_hints(PlayerView)
    assert not set(PUBLIC_FIELDS) & set(PlayerView.__annotations__)  # not restated
    assert hints["turn"] is int and hints["phase"] is Phase and hints["cubes"] == list[int]


def test_states_and_views_stay_slotted() -> None:
    game = new_game(GameConfig(num_players=3), seed=1, backend="python")
    view = PlayerView(game, 0)
    assert not hasattr(game, "__dict__") and not hasattr(view, "__dict__")
    assert view.cubes is game.cubes


def test_a_changed_field_makes_the_annotations_stale(monkeypatch) -> None:
    gen = load_generator("gen_annotations.py")
    assert gen.stale() == []
    turn = schema.FIELD_BY_NAME["turn"]
    fields = tuple(dataclasses.replace(f, kind="bool") if f is turn else f for f in schema.FIELDS)
    monkeypatch.setattr(gen.S, "FIELDS", fields)
    monkeypatch.setattr(gen.S, "FIELD_BY_NAME", {f.name: f for f in (*fields, schema.RNG)})
    assert gen.stale() == [gen.OUT_STATE, gen.OUT_VIEW]
