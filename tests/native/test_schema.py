"""The state and its events are declared once (engine/schema.py): every other list of
fields, the C++ header and the build read that declaration."""

from __future__ import annotations

import re

import pytest

from perikles_env.analysis import view
from perikles_env.analysis.encoding import FEATURE_BLOCK_NAMES, FEATURE_IDS
from perikles_env.analysis.observation import LAYOUT, OBS_SIZE, ORACLE_LAYOUT, ORACLE_SIZE
from perikles_env.engine import GameConfig, events, new_game, schema, validate
from perikles_env.engine.rng import Rng
from perikles_env.engine.state import STATE_FIELDS, PythonState
from tests.generated import ROOT, assert_generated_current, load_generator

from .helpers import require_native


def test_generated_cpp_header_is_current() -> None:
    assert_generated_current("gen_native.py")


def _generator():
    return load_generator("gen_native.py")


def test_the_generated_block_table_is_the_python_layout() -> None:
    text = (ROOT / "native" / "env" / "generated" / "observation.hpp").read_text()
    rows = re.findall(r'\{"(\w+)", (\d+)\},', text)
    assert [(name, int(size)) for name, size in rows] == [
        (b.name, b.size) for b in LAYOUT + ORACLE_LAYOUT
    ]
    assert f"OBS_SIZE = {OBS_SIZE};" in text and f"ORACLE_SIZE = {ORACLE_SIZE};" in text
    ids = re.search(r"enum B : int \{([^}]*)\}", text).group(1).split(",")
    assert [i.strip() for i in ids if i.strip()][:3] == ["PHASE", "TURN", "NUM_PLAYERS"]
    assert "DISPLAY_B" in ids[13] and len([i for i in ids if i.strip()]) == len(rows)
    assert FEATURE_IDS == {"battle": 0, "actions": 1}
    assert "enum Feature : int { FEATURE_BATTLE = 0, FEATURE_ACTIONS = 1 };" in text


@pytest.mark.parametrize("change", ["layout", "features"])
def test_a_changed_declaration_makes_the_observation_header_stale(monkeypatch, change) -> None:
    gen = _generator()
    assert gen.stale() == []
    if change == "layout":
        monkeypatch.setattr(gen.O, "ORACLE_LAYOUT", gen.O.ORACLE_LAYOUT[:-1])
    else:
        monkeypatch.setattr(gen.E, "FEATURE_BLOCK_NAMES", ("actions", "battle"))
    assert gen.stale() == [gen.OUT_OBSERVATION]


def test_the_build_has_the_declared_blocks_and_feature_blocks() -> None:
    native = require_native()
    layout = [tuple(b) for b in native._native.layout()]
    assert layout == [(b.name, b.size) for b in LAYOUT + ORACLE_LAYOUT]
    assert tuple(native._native.feature_names()) == FEATURE_BLOCK_NAMES


def test_every_field_list_is_derived_from_the_schema() -> None:
    names = tuple(f.name for f in schema.FIELDS)
    assert STATE_FIELDS == names
    assert PythonState.__slots__ == (*names, "rng")  # the Python engine's storage
    assert set(validate.field_rules(4)) == {*names, "rng"}
    assert set(view.PUBLIC_FIELDS) <= set(schema.visible("public"))
    assert not set(view.PUBLIC_FIELDS) & set(schema.visible("hidden") + schema.visible("owner"))
    assert len(events.DECODERS) == len(schema.EVENTS)


def test_hidden_fields_are_the_secrets_of_the_rules() -> None:
    assert set(schema.visible("hidden")) == {
        "forced_dice", "influence_deck", "unseen_specials", "loc_deck",
    }
    assert schema.RNG.visibility == "hidden"
    assert schema.visible("owner") == ("special",)


def test_the_build_has_the_declared_fields_in_order() -> None:
    native = require_native()
    expected = [f.name for f in schema.FIELDS if f.kind != "events"] + ["rng"]
    assert list(native._native.field_names()) == expected


def test_generated_bounds_hold_every_state_of_a_game() -> None:
    for n in (3, 5):
        game = new_game(GameConfig(num_players=n), seed=n, backend="python")
        policy = Rng(n)
        while not game.is_terminal:
            d = game.to_dict()
            for f in schema.FIELDS:
                lo, hi = f.bounds(n)
                value = d[f.name]
                items = value if isinstance(value, list) and f.kind != "events" else []
                assert all(lo <= x <= hi for x in items), f.name
            legal = game.legal_actions()
            game.apply_action(legal[policy.randrange(len(legal))])
