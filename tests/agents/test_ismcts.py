"""IS-MCTS: legal, reproducible, and blind to hidden information (docs/rules.md section F)."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents import make_agent
from perikles_env.agents.ismcts import ISMCTSAgent, ISMCTSParams
from perikles_env.engine.phases import Phase
from perikles_env.errors import InvalidConfigError
from tests.agents.helpers import play
from tests.agents.hidden import hidden_differs, perturb_hidden

determinize_module = pytest.importorskip(
    "perikles_env.engine.determinize", reason="determinize is not available"
)

FAST = "ismcts:sims=3,horizon=3,width=3"


@pytest.mark.parametrize("n", [3, 4, 5])
def test_ismcts_games_are_legal(n: int) -> None:
    """Whole games against random players; every action goes through the checked apply."""
    decisions = sum(1 for _ in play([FAST] + ["random"] * (n - 1), seed=n))
    assert decisions > 100


def test_ismcts_is_deterministic_for_a_seed() -> None:
    agent = make_agent("ismcts:sims=6,horizon=4")
    points = [
        (g.clone(), p) for i, (g, p, _) in enumerate(play(["heuristic"] * 4, seed=2)) if i % 25 == 0
    ]
    for g, p in points:
        a = agent.act_state(g.clone(), p, np.random.default_rng(11))
        b = agent.act_state(g.clone(), p, np.random.default_rng(11))
        assert a == b


class _Recorder:
    """Wraps determinize and keeps what the search was given back (its only view of the
    hidden state)."""

    def __init__(self) -> None:
        self.samples: list = []

    def __call__(self, game, player, rng, record_events=None):  # noqa: ANN001, ANN204
        sample = determinize_module.determinize(game, player, rng, record_events)
        self.samples.append(sample.to_dict())
        return sample


def test_ismcts_never_reads_hidden_information() -> None:
    """Changing hidden components (decks, RNG, others' specials, unknown strengths) leaves
    the determinisations the search receives, and its decisions, unchanged."""
    params = ISMCTSParams(sims=4, horizon=3, width=3)
    checked = changed = 0
    for i, (g, p, _) in enumerate(play(["heuristic"] * 4, seed=6)):
        if i % 9 and g.phase not in (Phase.COMMIT, Phase.BATTLE_SPECIAL, Phase.PERMISSION):
            continue
        other = perturb_hidden(g, p, seed=i)
        changed += hidden_differs(g, other)
        rec_a, rec_b = _Recorder(), _Recorder()
        a = ISMCTSAgent(params, determinize=rec_a).act_state(g.clone(), p, np.random.default_rng(i))
        b = ISMCTSAgent(params, determinize=rec_b).act_state(other, p, np.random.default_rng(i))
        assert a == b
        assert rec_a.samples == rec_b.samples
        checked += 1
    assert checked > 40 and changed > checked // 2


def test_params_are_validated() -> None:
    for bad in ({"sims": 0}, {"rollout": "greedy"}, {"horizon": -2}, {"c": -1.0}):
        with pytest.raises(InvalidConfigError):
            ISMCTSParams(**bad)
    with pytest.raises(InvalidConfigError):
        ISMCTSParams.from_options({"simulations": 5})
    assert make_agent("ismcts:sims=7,rollout=random").describe() == "ismcts:sims=7,rollout=random"
