"""Every engine scenario test (tests/engine, hand-built states with scripted dice) replayed on
the C++ core: while these tests run here, each ``apply_action`` of a Python game is mirrored
on a C++ copy of the state just before it (``native.from_python``, no validation, so
hand-built states load as they are). The two must agree on the legal actions, the successor
state (every field and the RNG) and the events the action logged.

The scenario modules are imported under their own names below, so pytest collects their
tests again in this module, where the autouse ``mirror`` fixture is active. Not mirrored:
actions a scenario applies that are not legal (the Python engine's unchecked call; the C++
core refuses them) and automatic steps a scenario runs by calling an engine entry point
directly (the next action compares the state they produced).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest

from perikles_env.engine import Game, GameConfig, new_game
from tests.native.helpers import assert_same_state, require_native, unvalidated_twin

native = require_native()

SCENARIO_MODULES = (
    "test_battle_specials",
    "test_combat_outcomes",
    "test_combat_rounds",
    "test_commit_order",
    "test_commit_placement",
    "test_forces_deadpool",
    "test_permission_slave_revolt",
    "test_proposals_elections",
    "test_setup_influence",
    "test_specials_influence",
    "test_turn_scoring",
    "test_golden",
)
for _module_name in SCENARIO_MODULES:
    _module = importlib.import_module(f"tests.engine.{_module_name}")
    for _name, _value in vars(_module).items():
        if _name.startswith("test_") and callable(_value):
            globals()[f"test_native__{_module_name[5:]}__{_name[5:]}"] = _value
        elif hasattr(_value, "_fixture_function_marker") and _name not in globals():
            globals()[_name] = _value  # a fixture of that module, for its tests

MIRRORED = {"actions": 0}
_python_apply = Game.apply_action


def _mirrored_apply(self: Game, action: int) -> None:
    if type(self) is not Game or action not in self.legal_actions():
        _python_apply(self, action)
        return
    twin = unvalidated_twin(self)
    where = f"{self.phase.name} action {action} ({self.action_to_str(action)})"
    assert twin.legal_actions() == self.legal_actions(), f"{where}: legal actions differ"
    before = len(self.events)
    _python_apply(self, action)
    twin.apply_action(action)
    assert_same_state(self, twin, where)
    assert twin.event_log[before:] == self.events[before:], f"{where}: events differ"
    MIRRORED["actions"] += 1


@pytest.fixture(autouse=True)
def mirror(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(Game, "apply_action", _mirrored_apply)
    yield


def test_the_mirror_compares_actions() -> None:
    """The mirror is active in this module and really compares (so the tests above prove
    something): a seeded game's first 200 actions are all mirrored."""
    g = new_game(GameConfig(num_players=4), seed=5, backend="python")
    before = MIRRORED["actions"]
    for _ in range(200):
        g.apply_action(g.legal_actions()[-1])
    assert MIRRORED["actions"] == before + 200
