"""The engine interface (``engine/interface.py``) on the Python engine, and the contract that
no consumer outside ``engine/`` asks which engine it holds (docs/native.md, "One interface,
two engines"). The C++ side: tests/native/test_interface_siblings.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, GameInterface, new_game
from perikles_env.engine.determinize import determinize
from perikles_env.engine.rng import Rng
from perikles_env.errors import IllegalActionError
from tests.engine.builders import assert_random_playout_is_the_policy_loop

PACKAGE = Path(__file__).resolve().parents[2] / "perikles_env"


def _game(seed: int = 4, decisions: int = 120, n: int = 4) -> Game:
    g = new_game(GameConfig(num_players=n), seed=seed, backend="python")
    policy = Rng(seed)
    for _ in range(decisions):
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
    assert type(g) is Game
    return g


def test_game_implements_every_method_of_the_interface() -> None:
    assert issubclass(Game, GameInterface) and not Game.__abstractmethods__
    abstract = {
        name for name, value in vars(GameInterface).items()
        if getattr(value, "__isabstractmethod__", False)
    }
    # play, copy, serialise, the rule queries, the mask and the hooks of players and encoder
    assert {
        "new", "from_dict", "clone", "legal_actions", "is_legal", "apply_action", "legal_mask",
        "event_log", "scores", "winners", "ranking_keys", "placement_targets", "proposals",
        "military_knowledge", "round_strengths", "predicted_rounds", "determinized",
        "random_playout", "to_python", "heuristic_decide", "heuristic_scores",
        "heuristic_playout", "encode_natively",
    } <= abstract
    for name in abstract:
        assert not getattr(getattr(Game, name), "__isabstractmethod__", False), name


def test_the_python_engine_has_no_cpp_players_or_encoder_and_changes_nothing() -> None:
    g = _game()
    before = g.to_dict()
    drawn: list[int] = []

    def seed() -> int:
        drawn.append(1)
        return 7

    params = (1.0,) * 8
    assert g.heuristic_decide(g.current, params, seed) is None and not drawn
    assert g.heuristic_scores(g.current, params) is None
    assert g.heuristic_playout(params, 3, -1) is None
    out = np.full(8, 5.0, dtype=np.float32)
    assert g.encode_natively(g.current, out) is False and (out == 5.0).all()
    assert g.to_dict() == before


def test_legal_mask_writes_the_legal_actions_into_any_byte_array() -> None:
    g = new_game(GameConfig(num_players=3), seed=9, backend="python")
    policy = Rng(9)
    while not g.is_terminal:
        legal = g.legal_actions()
        for dtype in (np.uint8, np.int8, np.bool_):
            out = np.full(NUM_ACTIONS, 1, dtype=dtype)
            g.legal_mask(out)
            assert np.flatnonzero(out).tolist() == legal
        g.apply_action(legal[policy.randrange(len(legal))])
    out = np.ones(NUM_ACTIONS, dtype=np.uint8)
    g.legal_mask(out)
    assert not out.any()


def test_random_playout_is_the_policy_loop() -> None:
    start = _game(seed=11, decisions=40)
    assert_random_playout_is_the_policy_loop(start, start.clone(), 5, 7)


def test_to_python_and_determinized_are_independent_python_copies() -> None:
    g = _game()
    copy = g.to_python()
    assert type(copy) is Game and copy == g and copy is not g
    copy.cubes[0] += 1
    assert copy.cubes[0] != g.cubes[0]
    sample = g.determinized(g.current, 3, False)
    assert type(sample) is Game and sample.record is False
    assert sample.to_dict() == determinize(g, g.current, 3, record_events=False).to_dict()


def test_shared_code_of_the_interface_on_a_finished_game() -> None:
    """The concrete methods of the interface answer from the fields and the engine's own
    methods: scoring helpers, the checked apply and its typed error."""
    g = new_game(GameConfig(num_players=4), seed=2, backend="python")
    assert g.num_players == 4 and g.current_player == g.current
    with pytest.raises(IllegalActionError, match="action id out of range"):
        g.apply_action_checked(NUM_ACTIONS)
    g.apply_action_checked(np.int64(g.legal_actions()[0]))  # a numpy integer is an action
    g.random_playout(2)
    assert g.is_terminal and g.current_player is None and not g.is_truncated
    winners = g.winners()
    assert g.win_shares() == [1 / len(winners) if p in winners else 0.0 for p in range(4)]
    ranks = g.ranks()
    assert all(ranks[w] == min(ranks) for w in winners) and sum(ranks) == 1 + 2 + 3 + 4
    assert sum(g.win_rewards()) == pytest.approx(0.0)
    with pytest.raises(IllegalActionError, match="the game is over"):
        g.apply_action_checked(0)


def test_no_consumer_outside_the_engine_asks_which_engine_it_holds() -> None:
    """Agents, environments and encoders go through the interface: no isinstance test on
    ``NativeGame``, no module switch choosing an engine, no probing for one engine's
    methods."""
    asks = re.compile(
        r"isinstance\([^)]*NativeGame|NATIVE_HEURISTIC|"
        r"(getattr|hasattr)\([^)]*\"(_determinized|random_playout|heuristic_playout|to_python"
        r"|legal_mask|core)\""
    )
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        if "engine" not in path.relative_to(PACKAGE).parts[:1]
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if asks.search(line)
    ]
    assert found == []
