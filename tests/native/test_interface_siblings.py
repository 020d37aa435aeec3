"""``Game`` and ``NativeGame`` are siblings behind ``engine.interface.GameInterface``: the C++
game implements every method itself (it inherits no Python rule code, and refuses the
names by name), and its hooks give what the Python reference gives (docs/native.md, "One
interface, two engines")."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents.heuristic.agent import HeuristicAgent
from perikles_env.agents.ismcts import ISMCTSAgent, ISMCTSParams
from perikles_env.analysis.observation import observation_size
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, GameInterface, new_game
from perikles_env.engine.combat import CombatRules
from perikles_env.engine.factory import on_native_core
from perikles_env.engine.influence import InfluenceRules
from perikles_env.engine.military import MilitaryRules
from perikles_env.engine.rng import Rng
from perikles_env.engine.state import PythonState, RulesBase
from perikles_env.errors import ReadOnlyStateError
from perikles_env.vector.encoder import encode_with_features, legal_mask, native_block_writers
from tests.native.helpers import require_native

native = require_native()
NativeGame = native.NativeGame


def _pair(seed: int, decisions: int, n: int = 4) -> tuple[Game, GameInterface]:
    py = new_game(GameConfig(num_players=n), seed=seed, backend="python")
    policy = Rng(seed)
    for _ in range(decisions):
        if py.is_terminal:
            break
        legal = py.legal_actions()
        py.apply_action(legal[policy.randrange(len(legal))])
    return py, NativeGame.from_python(py)


def test_siblings_not_parent_and_child() -> None:
    assert issubclass(NativeGame, GameInterface) and issubclass(Game, GameInterface)
    assert not issubclass(NativeGame, Game) and not issubclass(Game, NativeGame)
    assert not NativeGame.__abstractmethods__
    assert not issubclass(NativeGame, PythonState)  # no slots of the Python state


def test_native_game_inherits_no_rule_code_and_refuses_its_names() -> None:
    rule_classes = (RulesBase, InfluenceRules, MilitaryRules, CombatRules, Game)
    names = {
        name for cls in rule_classes for name, value in vars(cls).items()
        if name.startswith("_") and not name.startswith("__") and callable(value)
    }
    assert len(names) > 80
    inherited = {name for name in names for cls in NativeGame.__mro__ if name in vars(cls)}
    assert inherited == set()  # none is inherited only to be refused
    g = new_game(GameConfig(num_players=4), seed=1, backend="native")
    for name in sorted(names):
        with pytest.raises(ReadOnlyStateError, match=f"{name} is the Python engine's rule"):
            getattr(g, name)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        g.no_such_name  # noqa: B018  (an unknown name stays an AttributeError)
    assert not hasattr(g, "no_such_name")


@pytest.mark.parametrize("n", (3, 4, 5))
def test_play_copy_serialise_and_queries_agree(n: int) -> None:
    py, cpp = _pair(seed=20 + n, decisions=90, n=n)
    assert cpp == py and cpp.to_dict() == py.to_dict()
    assert type(cpp.clone()) is NativeGame and cpp.clone() == py.clone()
    assert on_native_core(cpp) is cpp
    assert type(on_native_core(py)) is NativeGame and on_native_core(py) == py
    assert type(cpp.to_python()) is Game and cpp.to_python() == py
    for name in ("scores", "winners", "ranking_keys", "ranks", "win_shares", "win_rewards"):
        assert getattr(cpp, name)() == getattr(py, name)(), name
    for p in range(n):
        assert cpp.military_knowledge(p) == py.military_knowledge(p)
        assert cpp.proposals(p) == py.proposals(p)
        assert cpp.location_vp(p) == py.location_vp(p)
    for slot in range(3):
        assert cpp.predicted_rounds(slot) == py.predicted_rounds(slot)
    policy = Rng(n)
    while not py.is_terminal:
        legal = py.legal_actions()
        assert cpp.legal_actions() == legal and cpp.current_player == py.current_player
        assert (legal_mask(cpp) == legal_mask(py)).all()
        action = legal[policy.randrange(len(legal))]
        py.apply_action(action)
        cpp.apply_action(action)
    assert cpp == py and cpp.is_terminal and cpp.event_log == py.event_log


def test_random_playout_and_determinized_agree() -> None:
    py, cpp = _pair(seed=31, decisions=60)
    a, b = py.clone(), cpp.clone()
    assert a.random_playout(8, 25) == b.random_playout(8, 25) == 25 and a == b
    assert a.random_playout(9) == b.random_playout(9) and a == b and a.is_terminal
    for seat in range(4):
        sample = cpp.determinized(seat, 17, False)
        assert type(sample) is NativeGame
        assert sample.to_dict() == py.determinized(seat, 17, False).to_dict()


def test_encoder_hook_writes_the_python_reference_bytes() -> None:
    py, cpp = _pair(seed=5, decisions=110)
    player = cpp.current
    out = np.zeros(observation_size(), dtype=np.float32)
    assert cpp.encode_natively(player, out) is True
    features = ("battle", "actions")
    assert (encode_with_features(cpp, player, features) == encode_with_features(
        py, player, features)).all()
    blocks = native_block_writers(features)
    full = np.zeros(observation_size() + sum(length for _, length in blocks), dtype=np.float32)
    assert py.encode_natively(player, full, False, blocks) is False and not full.any()
    assert cpp.encode_natively(player, full, False, blocks) is True
    assert (full == encode_with_features(py, player, features)).all()
    assert (full[: observation_size()] == out).all()
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    cpp.legal_mask(mask)
    assert np.flatnonzero(mask).tolist() == py.legal_actions()


def test_heuristic_hooks_decide_like_the_python_reference() -> None:
    """The C++ heuristic behind the hooks and the Python reference (``in_cpp=False``, also
    on a native game) make the same decisions from the same rng."""
    agent, reference = HeuristicAgent(), HeuristicAgent(in_cpp=False)
    for seed in range(3):
        py, cpp = _pair(seed=40 + seed, decisions=70 + 30 * seed)
        for game in (py, cpp):
            legal = game.legal_actions()
            player = game.current
            choices = {
                agent.act_state(game, player, np.random.default_rng(seed)),
                reference.act_state(game, player, np.random.default_rng(seed)),
            }
            assert len(choices) == 1 and choices <= set(legal)
            assert np.allclose(agent.scores(game, player, legal),
                               reference.scores(game, player, legal))
        a, b = py.clone(), cpp.clone()
        assert agent.playout(a, 12, 6) == reference.playout(b, 12, 6) and a == b
    assert cpp.heuristic_playout(agent.param_tuple, 1, 2) == 2


def test_ismcts_with_the_python_heuristic_on_the_core_decides_the_same() -> None:
    """What benchmarks/ismcts_speed.py compares: the C++ heuristic and the Python one inside
    IS-MCTS on a game of the C++ core."""
    _, cpp = _pair(seed=3, decisions=100)
    params = ISMCTSParams(sims=6, rollout="heuristic", horizon=4)
    fast = ISMCTSAgent(params).act_state(cpp.clone(), cpp.current, np.random.default_rng(0))
    slow = ISMCTSAgent(params, heuristic=HeuristicAgent(in_cpp=False)).act_state(
        cpp.clone(), cpp.current, np.random.default_rng(0)
    )
    assert fast == slow
