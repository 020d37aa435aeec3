"""Seeded digests of every caller of the table loop (``agents/table_loop.py``): the games,
records and numbers each one produces from a fixed seed. ``test_table_loop_digests.py``
compares them with the values recorded before the callers moved onto the loop, so a
change of any seat's generator, decision order or record shows as a changed digest.

    .venv/bin/python -m tests.agents.loop_digests   # prints the current digests
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np


def digest(value: Any) -> str:
    """A short hash of numbers, strings, lists, dicts and numpy arrays."""
    h = hashlib.sha256()

    def feed(v: Any) -> None:
        if isinstance(v, np.ndarray):
            h.update(str((v.dtype.str, v.shape)).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, dict):
            for k in sorted(v):
                h.update(repr(k).encode())
                feed(v[k])
        elif isinstance(v, (list, tuple)):
            h.update(b"[")
            for x in v:
                feed(x)
            h.update(b"]")
        else:
            h.update(json.dumps(v, sort_keys=True, default=repr).encode())

    feed(value)
    return h.hexdigest()[:16]


def evaluation() -> str:
    """The first games of ``configs/eval_smoke.yaml`` (timings removed), both engines."""
    from perikles_env.evaluation.runner import TIMING_KEYS, Job, game_seeds, play_job

    lineups = [
        ("heuristic", "random", "random"),
        ("heuristic:aggression=1.2", "random", "heuristic", "random"),
    ]
    records = []
    for backend in ("native", "python"):
        for index, lineup in enumerate(lineups):
            for si, seed in enumerate(game_seeds(0, 1)):
                for rotation in range(len(lineup)):
                    job = Job(index, lineup, si, seed, rotation, backend)
                    record = play_job(job).to_dict()
                    records.append({k: v for k, v in record.items() if k not in TIMING_KEYS})
    return digest(records)


def pretrain() -> str:
    from perikles_env.single_agent import OpponentPool, RewardConfig
    from perikles_env.training.ppo.pretrain import collect_demos

    out = []
    for teacher in ("heuristic", "random"):
        demos = collect_demos(60, 3, (3, 4), teacher, OpponentPool.of(["random", "heuristic"]),
                              RewardConfig(), 0.99)
        out.append([demos.observations(), demos.masks, demos.actions, demos.best,
                    demos.returns, demos.games, demos.wins, demos.seats])
    return digest(out)


def agreement() -> str:
    from perikles_env.training.agreement import measure_agreement

    return digest(measure_agreement("random", 2, players=3, seed=7).to_dict())


def war_profile() -> str:
    from perikles_env.training.war_profile import profile

    return digest(profile("heuristic", "random", 3, 2, seed=5))


def _tiny_net(num_players: int = 4) -> Any:
    import torch

    from perikles_env.agents.search.network import NetSettings, SearchNet

    torch.manual_seed(0)
    net = SearchNet(NetSettings(num_players=num_players, policy_arch=(16,), value_arch=(8,)))
    with torch.no_grad():
        net.value_head.weight.normal_(0.0, 0.5)
    return net.eval()


def warmstart() -> str:
    from perikles_env.single_agent import OpponentPool
    from perikles_env.training.search_warmstart import play_value_game

    net = _tiny_net()
    parts = [play_value_game(net, s, OpponentPool.of(["random", "heuristic"]), keep=10)
             for s in (1, 2)]
    return digest([list(p) if p is not None else None for p in parts])


def expert_selfplay() -> str:
    from perikles_env.agents.search import SearchParams
    from perikles_env.training.expert.self_play_games import SELF, SelfPlay

    play = SelfPlay(_tiny_net(), SearchParams(sims=4, gumbel_m=4, batch=8),
                    {SELF: 1.0, "heuristic": 1.0, "random": 1.0})
    data, stats = play.play(games=2, parallel=2, seed=11)
    return digest([data.states, data.offsets, data.ids, data.legal, data.policy, data.feats,
                   data.values, stats.games, stats.truncated, stats.decisions,
                   stats.searcher_share, stats.seats])


def terminal_game() -> str:
    from perikles_env.agents import make_agent
    from perikles_env.play import play

    lines: list[str] = []
    scores = play(3, 1, ["heuristic", "random"], seed=4, write=lines.append,
                  auto=make_agent("heuristic:aggression=1.2"))
    return digest([scores, lines])


def single_agent_table() -> str:
    """Episodes of the single-agent env (its opponents move through the shared LearnerTable)."""
    from perikles_env.single_agent.env import PeriklesSingleAgentEnv

    env = PeriklesSingleAgentEnv(opponents=["random", "heuristic"], num_players=[3, 4])
    out = []
    for episode in range(2):
        obs, info = env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        steps = [obs, info["opponent_decisions"]]
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
            steps += [obs, reward, info["decisions"]]
        out.append(steps + [env.game.scores()])
    return digest(out)


CALLERS = {
    "evaluation": evaluation,
    "pretrain": pretrain,
    "agreement": agreement,
    "war_profile": war_profile,
    "warmstart": warmstart,
    "expert_selfplay": expert_selfplay,
    "terminal_game": terminal_game,
    "single_agent_table": single_agent_table,
}


if __name__ == "__main__":
    import time

    for name, fn in CALLERS.items():
        start = time.perf_counter()
        print(f'    "{name}": "{fn()}",  # {time.perf_counter() - start:.1f} s', flush=True)
