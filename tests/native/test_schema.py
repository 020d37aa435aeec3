"""The state and its events are declared once (engine/schema.py): every other list of
fields, the C++ header and the build read that declaration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from perikles_env.analysis import view
from perikles_env.engine import GameConfig, events, new_game, schema, validate
from perikles_env.engine.rng import Rng
from perikles_env.engine.state import STATE_FIELDS, GameState

from .helpers import require_native

ROOT = Path(__file__).resolve().parents[2]


def test_generated_cpp_header_is_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_native.py"), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_field_list_is_derived_from_the_schema() -> None:
    names = tuple(f.name for f in schema.FIELDS)
    assert STATE_FIELDS == names
    assert GameState.__slots__ == (*names, "rng")
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
