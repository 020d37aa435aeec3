"""The agent specs of the search network: ``net``, ``net:<path>``, ``search`` and
``search:model=<path>,...`` (perikles_env/agents/registry.py), their refusals, and the
evaluator's reload of a rewritten network file (evaluation/runner.py)."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
import torch

from perikles_env.agents import AgentError, make_agent, parse_spec
from perikles_env.agents.search import SearchAgent, SearchParams
from perikles_env.agents.search import net_agent as net_agent_module
from perikles_env.agents.search.net_agent import NetAgent
from perikles_env.agents.search.net_file import save_net
from perikles_env.agents.search.network import NetSettings, SearchNet
from perikles_env.evaluation.runner import agent_for, forget_agent
from tests.agents.search_games import game_at

TINY = NetSettings(num_players=4, policy_arch=(16,), value_arch=(8,))


def _net_file(path, seed: int = 0):
    torch.manual_seed(seed)
    return save_net(path, SearchNet(TINY))


@pytest.fixture()
def net_path(tmp_path):
    return _net_file(tmp_path / "tiny.pkn")


@pytest.fixture()
def no_shipped_net(tmp_path, monkeypatch):
    monkeypatch.setattr(net_agent_module, "SHIPPED_NET", tmp_path / "absent.pkn")


def test_parse_net_and_search_specs() -> None:
    assert parse_spec("net") == ("net", {"path": ""})
    assert parse_spec("net:runs/a,b/net.pkn") == ("net", {"path": "runs/a,b/net.pkn"})
    assert parse_spec("search") == ("search", {})
    assert parse_spec("search:model=x.pkn,sims=64,seconds=0.5") == (
        "search",
        {"model": "x.pkn", "sims": 64, "seconds": 0.5},
    )


def test_net_path_plays_the_file_s_network(net_path) -> None:
    agent = make_agent(f"net:{net_path}")
    assert isinstance(agent, NetAgent) and agent.describe() == f"net:{net_path}"
    game = game_at(3, 40)
    action = agent.act_state(game, game.current, np.random.default_rng(0))
    assert game.is_legal(action)
    assert torch.get_num_threads() == 1  # one torch thread per process


def test_search_spec_builds_the_search_over_the_file(net_path) -> None:
    agent = make_agent(f"search:model={net_path},sims=8,c_puct=2")
    assert isinstance(agent, SearchAgent)
    play = {"gumbel_m": 0, "opponents": "tree", "rollout_mix": 0.5, "prior_temp": 3.0}
    assert agent.params == SearchParams(sims=8, c_puct=2.0, **play)
    game = game_at(3, 40)
    results = agent.search_batch([game], [game.current], np.random.default_rng(0))
    assert game.is_legal(results[0].action) and results[0].sims == 8
    timed = make_agent(f"search:model={net_path},seconds=0.5")
    assert timed.params.seconds == 0.5 and timed.params.sims == 1 << 20  # the time decides
    assert make_agent(f"search:model={net_path},seconds=0.5,sims=9").params.sims == 9
    raw_q = make_agent(f"search:model={net_path},sims=8,q_rescale=false,gumbel_m=4")
    assert raw_q.params.q_rescale is False and raw_q.params.gumbel_m == 4


def test_shipped_network_specs(net_path, monkeypatch) -> None:
    monkeypatch.setattr(net_agent_module, "SHIPPED_NET", net_path)
    assert make_agent("net").describe() == "net"
    agent = make_agent("search")
    # the default models no particular opponent: every seat's decisions are tree nodes
    play = SearchParams(sims=150, gumbel_m=0, opponents="tree", rollout_mix=0.5, prior_temp=3)
    assert isinstance(agent, SearchAgent) and agent.params == play
    assert make_agent("search:opponents=heuristic").params.opponents == "heuristic"
    assert make_agent("search:gumbel_m=16").params.gumbel_m == 16


@pytest.mark.usefixtures("no_shipped_net")
@pytest.mark.parametrize("spec", ["net", "search", "search:sims=8"])
def test_without_a_shipped_network_the_error_says_so(spec) -> None:
    with pytest.raises(AgentError, match="no search network is shipped"):
        make_agent(spec)


@pytest.mark.parametrize(
    "options,named",
    [
        ("bogus=1", "bogus"),
        ("sims=-1", "sims"),
        ("sims=1.5", "sims"),
        ("seconds=-2", "seconds"),
        ("batch=0", "batch"),
        ("c_puct=inf", "c_puct"),
        ("prior_temp=1e-300", "prior_temp"),
        ("prior_temp=0", "prior_temp"),
    ],
)
def test_bad_search_options_name_the_option(net_path, options, named) -> None:
    with pytest.raises(AgentError, match=named):
        make_agent(f"search:model={net_path},{options}")


def test_net_takes_no_options(net_path) -> None:
    with pytest.raises(AgentError, match="deterministic"):
        make_agent(f"net:{net_path},deterministic=false")


@pytest.mark.parametrize("kind", ["missing", "pickle", "ppo"])
def test_bad_network_files_are_refused(tmp_path, kind) -> None:
    path = tmp_path / f"{kind}.pkn"
    if kind == "pickle":  # loading must never unpickle
        path.write_bytes(pickle.dumps({"weights": [1, 2, 3]}))
    elif kind == "ppo":
        import zipfile

        with zipfile.ZipFile(path, "w") as z:
            z.writestr("data", "{}")
    for spec in (f"net:{path}", f"search:model={path}"):
        with pytest.raises(AgentError):
            make_agent(spec)


def test_the_evaluator_reloads_a_rewritten_network(tmp_path) -> None:
    path = _net_file(tmp_path / "net.pkn", seed=1)
    for seed, spec in enumerate((f"net:{path}", f"search:model={path},sims=2"), start=2):
        forget_agent()
        first = agent_for(spec)
        assert agent_for(spec) is first  # cached while the file is unchanged
        stamp = os.stat(path).st_mtime
        _net_file(path, seed=seed)
        os.utime(path, (stamp + 5, stamp + 5))
        second = agent_for(spec)
        assert second is not first
        old = first.net if isinstance(first, NetAgent) else first.evaluator
        new = second.net if isinstance(second, NetAgent) else second.evaluator
        assert not torch.equal(old.action_net.weight, new.action_net.weight)
    forget_agent()


@pytest.mark.skipif(not net_agent_module.SHIPPED_NET.is_file(), reason="no shipped network")
def test_the_shipped_network_is_small_and_plays() -> None:
    path = net_agent_module.SHIPPED_NET
    assert path.stat().st_size <= 5 * 1024 * 1024
    game = game_at(5, 30)
    rng = np.random.default_rng(0)
    for spec in ("net", "search:sims=8"):
        assert game.is_legal(make_agent(spec).act_state(game, game.current, rng))
    assert make_agent("net").net.extra  # how it was made is recorded in the file
