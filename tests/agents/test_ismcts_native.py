"""IS-MCTS on the C++ core: random rollouts are one native ``random_playout`` call, the
search decides exactly as on the Python engine, and the budget options hold."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import ismcts as ismcts_module
from perikles_env.agents.ismcts import ISMCTSAgent, ISMCTSParams, random_playout
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine.backend import native_available
from perikles_env.engine.determinize import determinize
from perikles_env.engine.rng import Rng
from perikles_env.errors import InvalidConfigError

pytestmark = pytest.mark.skipif(not native_available(), reason="C++ core not built")

RANDOM = ISMCTSParams(sims=6, rollout="random", horizon=-1, width=3)


def states(backend: str, seed: int = 3, every: int = 17) -> list[tuple[Game, int]]:
    """Every ``every``-th decision (more than one legal action) of a seeded random game at 4
    players; the same game on both backends."""
    g = new_game(GameConfig(num_players=4, record_events=False), seed, backend=backend)
    policy = Rng(seed)
    out = []
    while not g.is_terminal:
        legal = g.legal_actions()
        if len(legal) > 1 and g.decisions % every == 0:
            out.append((g.clone(), g.current))
        g.apply_action(legal[policy.randrange(len(legal))])
    return out


@pytest.fixture
def native_playouts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Wraps ``NativeGame.random_playout``; the list gets each call's (limit, decisions)."""
    from perikles_env.engine.native import NativeGame

    calls: list[tuple[int, int]] = []
    original = NativeGame.random_playout

    def counted(game: NativeGame, seed: int, max_decisions: int) -> int:
        made = original(game, seed, max_decisions)
        calls.append((max_decisions, made))
        return made

    monkeypatch.setattr(NativeGame, "random_playout", counted)
    return calls


def test_native_search_plays_legal_whole_games() -> None:
    """IS-MCTS with native random playouts against random players, through the checked
    apply, on the C++ core."""
    agent = ISMCTSAgent(ISMCTSParams(sims=3, rollout="random", horizon=-1, width=3))
    g = new_game(GameConfig(num_players=4, record_events=False), 5, backend="native")
    policy, rng, searched = Rng(5), np.random.default_rng(5), 0
    while not g.is_terminal:
        legal = g.legal_actions()
        if g.current == 0:
            action = agent.act_state(g.clone(), 0, rng)
            assert action in legal
            searched += 1
        else:
            action = legal[policy.randrange(len(legal))]
        g.apply_action_checked(action)
    assert searched > 20


def test_random_rollouts_are_native_playouts(native_playouts: list[tuple[int, int]]) -> None:
    """One C++ playout per iteration, to the end of the game (horizon -1) or ``horizon``
    decisions long; heuristic rollouts never call it."""
    g, p = states("native")[2]
    ISMCTSAgent(RANDOM).act_state(g.clone(), p, np.random.default_rng(0))
    assert len(native_playouts) == RANDOM.sims
    assert all(limit >= 1 << 60 and made > 0 for limit, made in native_playouts)
    native_playouts.clear()
    short = ISMCTSParams(sims=5, rollout="random", horizon=4, width=3)
    ISMCTSAgent(short).act_state(g.clone(), p, np.random.default_rng(0))
    assert native_playouts == [(4, 4)] * 5
    native_playouts.clear()
    ISMCTSAgent(ISMCTSParams(sims=3, horizon=2)).act_state(g.clone(), p, np.random.default_rng(0))
    assert native_playouts == []


@pytest.mark.parametrize("limit", [0, 7, 1 << 62])
def test_python_playout_plays_the_native_moves(limit: int) -> None:
    """The Python engine's rollout is the C++ policy move for move (same seed, same
    states after it, same count)."""
    for (py, _), (nat, _) in zip(states("python")[:4], states("native")[:4], strict=True):
        made = random_playout(py, 99, limit)
        assert random_playout(nat, 99, limit) == made
        assert py.to_dict() == nat.to_dict()
        if limit < 1 << 62:
            assert made == limit
        else:
            assert py.is_terminal and made > 0


@pytest.mark.parametrize("rollout, horizon", [("random", -1), ("random", 5), ("heuristic", 3)])
def test_same_decision_on_both_backends(rollout: str, horizon: int) -> None:
    """Same seed, same state: the same decision on the Python engine and the C++ core."""
    params = ISMCTSParams(sims=5, rollout=rollout, horizon=horizon, width=3)
    agent = ISMCTSAgent(params)
    pairs = list(zip(states("python"), states("native"), strict=True))[::2]
    assert len(pairs) >= 4
    for i, ((py, p), (nat, q)) in enumerate(pairs):
        assert p == q
        a = agent.act_state(py.clone(), p, np.random.default_rng(i))
        b = agent.act_state(nat.clone(), p, np.random.default_rng(i))
        assert a == b


def test_native_search_is_deterministic_for_a_seed() -> None:
    agent = ISMCTSAgent(ISMCTSParams(sims=20, rollout="random", horizon=-1))
    decisions = []
    for g, p in states("native")[::3]:
        a = agent.act_state(g.clone(), p, np.random.default_rng(7))
        assert a == agent.act_state(g.clone(), p, np.random.default_rng(7))
        assert a in g.legal_actions()
        decisions.append(a)
    assert len(decisions) >= 3


class _Clock:
    """A fake ``time.perf_counter`` that advances one second per reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


class _Samples:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, game, player, rng, record_events=None):  # noqa: ANN001, ANN204
        self.count += 1
        return determinize(game, player, rng, record_events)


def test_seconds_stops_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``seconds`` the search stops at the first clock reading past the deadline
    (at least one iteration); ``sims`` still caps it; without ``seconds`` the clock is
    never read."""
    clock = _Clock()
    monkeypatch.setattr(ismcts_module.time, "perf_counter", clock)
    g, p = states("native")[2]

    def iterations(params: ISMCTSParams) -> int:
        samples = _Samples()
        ISMCTSAgent(params, determinize=samples).act_state(g.clone(), p, np.random.default_rng(1))
        return samples.count

    # deadline = 1 + 2.5; readings 2, 3 go on, reading 4 stops: 3 iterations
    assert iterations(ISMCTSParams(sims=100, rollout="random", horizon=-1, seconds=2.5)) == 3
    assert iterations(ISMCTSParams(sims=100, rollout="random", horizon=-1, seconds=0.1)) == 1
    assert iterations(ISMCTSParams(sims=4, rollout="random", horizon=-1, seconds=1e6)) == 4
    before = clock.now
    assert iterations(ISMCTSParams(sims=4, rollout="random", horizon=-1)) == 4
    assert clock.now == before


@pytest.mark.parametrize("bad", [-1, -0.5, "1s", True, float("inf"), float("nan"), None])
def test_seconds_is_validated(bad: object) -> None:
    with pytest.raises(InvalidConfigError, match="seconds"):
        ISMCTSParams(seconds=bad)  # type: ignore[arg-type]


def test_seconds_from_a_spec() -> None:
    from perikles_env.agents import AgentError, make_agent

    agent = make_agent("ismcts:sims=500,rollout=random,horizon=-1,seconds=0.8")
    assert isinstance(agent, ISMCTSAgent)
    assert agent.params.seconds == 0.8
    assert agent.describe() == "ismcts:sims=500,rollout=random,horizon=-1,seconds=0.8"
    with pytest.raises(AgentError, match="seconds"):
        make_agent("ismcts:seconds=-2")
