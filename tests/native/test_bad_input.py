"""Bad input to the C++ core: the same typed Python errors as the reference engine, never a
crash, hang or silent corruption.

* Actions of every wrong kind (out of range, huge, negative, float, str, bool, None, lists,
  numpy integers) at sampled decisions of seeded games: ``apply_action_checked`` raises the
  same ``IllegalActionError`` (same message) or applies the same action, ``is_legal`` gives
  the same answer for every id, and a refused action changes nothing.
* ``NativeGame.from_dict`` on corrupted saved states (the engine fuzz test's corruptions,
  ``tests/engine/test_from_dict_fuzz._corrupt``, of states from every phase):
  the same exception type and message as ``Game.from_dict``, or the same loaded state.
* The core's private loader without any Python validation (``Engine.load``, which no product
  path uses: they all validate first) on the same corruptions,
  then random play: only Python exceptions, never a crash (the ASan/UBSan build runs this
  under ``-m slow``, test_sanitizer.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game
from perikles_env.engine.rng import Rng
from perikles_env.errors import IllegalActionError
from tests.engine import test_from_dict_fuzz as fuzz
from tests.native.helpers import assert_same_state, require_native

native = require_native()

ODD_ACTIONS = (-1, NUM_ACTIONS, NUM_ACTIONS + 5, 10**30, -(10**30), 2**31, 2**63, "3", 3.0,
               None, True, False, [1], (1,), b"\x01", 1 + 0j)


def _outcome(g: Game, action: object) -> tuple[str, str]:
    try:
        g.apply_action_checked(action)
    except Exception as e:  # noqa: BLE001 - the type and text are what we compare
        return type(e).__name__, str(e)
    return "applied", ""


@pytest.mark.parametrize("n", (3, 4, 5))
def test_bad_actions_give_the_same_errors_and_change_nothing(n: int) -> None:
    py = new_game(GameConfig(num_players=n), seed=n, backend="python")
    cpp = new_game(GameConfig(num_players=n), seed=n, backend="native")
    policy = Rng(n)
    step = 0
    while True:
        legal = py.legal_actions()
        if step % 7 == 0 or py.is_terminal:
            assert [a for a in range(NUM_ACTIONS) if cpp.is_legal(a)] == legal
            candidates = [*ODD_ACTIONS, np.int64(legal[0] if legal else 0), np.int32(-1),
                          *[a for a in range(0, NUM_ACTIONS, 37) if a not in legal][:8]]
            for bad in candidates:
                assert cpp.is_legal(bad) == py.is_legal(bad), bad  # type: ignore[arg-type]
                p2, c2 = py.clone(), cpp.clone()
                expected = _outcome(p2, bad)
                assert _outcome(c2, bad) == expected, (step, bad)
                if expected[0] != "applied":
                    assert expected[0] == "IllegalActionError"
                    assert_same_state(py, c2, f"after refusing {bad!r}")
        if py.is_terminal:
            break
        action = legal[policy.randrange(len(legal))]
        py.apply_action(action)
        cpp.apply_action(action)
        step += 1
    assert cpp.to_dict() == py.to_dict()


def test_unchecked_apply_of_an_illegal_action_raises_and_changes_nothing() -> None:
    """The Python engine's ``apply_action`` trusts its caller; the C++ core's never runs
    an illegal action: it raises IllegalActionError with the state unchanged."""
    g = new_game(GameConfig(num_players=4), seed=1, backend="native")
    before = g.to_dict()
    for bad in (-1, NUM_ACTIONS, 2**70, "1", None, g.legal_actions()[-1] + 1000):
        with pytest.raises(IllegalActionError) as info:
            g.apply_action(bad)  # type: ignore[arg-type]
        assert info.value.phase == "SETUP_PLACE" and info.value.legal == g.legal_actions()
    assert g.to_dict() == before


def _load(cls: type, d: dict) -> tuple[str, str, object]:
    try:
        g = cls.from_dict(d)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e), None
    return "loaded", "", g


CORRUPTIONS = 1500


def _source_states() -> list[dict]:
    """Saved states from every phase: every 9th decision of two seeded games per count."""
    out = []
    for n in (3, 4, 5):
        for seed in range(2):
            g = new_game(GameConfig(num_players=n), seed=seed, backend="python")
            policy = Rng(seed)
            step = 0
            while not g.is_terminal:
                if step % 9 == 0:
                    out.append(json.loads(json.dumps(g.to_dict())))
                legal = g.legal_actions()
                g.apply_action(legal[policy.randrange(len(legal))])
                step += 1
            out.append(g.to_dict())
    return out


SOURCES = _source_states()


def test_corrupted_dicts_are_rejected_exactly_like_the_python_engine() -> None:
    rng = Rng(31_000)
    loaded = rejected = 0
    for i in range(CORRUPTIONS):
        source = SOURCES[rng.randrange(len(SOURCES))]
        bad, what = fuzz._corrupt(source, rng)
        p_kind, p_text, py = _load(Game, bad)
        c_kind, c_text, cpp = _load(native.NativeGame, bad)
        assert (c_kind, c_text) == (p_kind, p_text), f"case {i}: {what}"
        if py is None:
            rejected += 1
        else:
            assert type(cpp) is native.NativeGame and cpp.to_dict() == py.to_dict(), what
            loaded += 1
    assert rejected > CORRUPTIONS // 2 and loaded > 0, (rejected, loaded)


def raw_load_and_play(d: dict, seed: int, max_decisions: int = 300) -> str:
    """Load a dict straight into C++ (no Python validation) and play randomly; returns how
    it ended. Any Python exception is fine; a crash would end the process."""
    values = []
    for name in native._NAMES:
        value = d.get(name)
        if name == "phase" and isinstance(value, str):
            value = {"SETUP_PLACE": 0, "COMMIT": 11, "GAME_OVER": 15}.get(value, 1)
        values.append(value)
    try:
        engine = native._native.Engine.load(values)
    except (TypeError, ValueError, IndexError, KeyError, OverflowError):
        return "refused"
    policy = Rng(seed)
    try:
        for _ in range(max_decisions):
            legal = engine.legal_actions()
            if not legal:
                return "ended"
            engine.apply(legal[policy.randrange(len(legal))])
    except (ValueError, IndexError, RuntimeError):
        return "raised"
    return "played"


def test_raw_cpp_loader_survives_corrupted_states() -> None:
    rng = Rng(32_000)
    outcomes: dict[str, int] = {}
    for i in range(CORRUPTIONS):
        source = SOURCES[rng.randrange(len(SOURCES))]
        bad, _ = fuzz._corrupt(source, rng)
        outcome = raw_load_and_play(bad, i)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("refused", 0) > 0, outcomes
    assert outcomes.get("played", 0) + outcomes.get("ended", 0) > 0, outcomes
