"""Heuristic decisions/s, C++ vs Python, on the same states (target: C++ >= 50x).

The states are every decision with more than one legal action of seeded 4-player games
played by three heuristic personalities and a random player (so every phase occurs), as
Python games and as their C++ twins. Each case decides every state once per pass, with
one tie-break seed per decision (``agents/tiebreak.py``): ``python`` is
``HeuristicAgent.decide`` over a ``PlayerView`` (the reference), ``c++`` is
``_native.heuristic_decide`` on the C++ engine (scores, tie-break and view in C++, one
call from Python). The two must choose the same action for every state; the run stops
if they do not. Decisions per phase are printed with the C++ / Python time per phase.

Usage: ``python benchmarks/heuristic_speed.py [--games 6] [--passes 3]``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict

import numpy as np

from perikles_env.agents.heuristic import HeuristicAgent
from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.agents.tiebreak import draw_seed, tie_break
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine.native import NativeGame, extension


def states(games: int) -> list[tuple]:
    """(python game, native twin, legal) at every decision with a choice."""
    out = []
    agents = [
        HeuristicAgent(),
        HeuristicAgent(aggression=1.5, caution=0.2),
        HeuristicAgent(politics=1.8, aggression=0.2),
        None,
    ]
    for seed in range(games):
        rng = np.random.default_rng(seed)
        game = new_game(GameConfig(num_players=4), seed=seed, backend="python")
        while not game.is_terminal:
            legal = game.legal_actions()
            if len(legal) > 1:
                out.append((game.clone(), NativeGame.from_python(game), legal))
            agent = agents[game.current]
            choice = (
                legal[rng.integers(len(legal))]
                if agent is None
                else agent.act_state(game, game.current, rng)
            )
            game.apply_action(choice)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    cases = states(args.games)
    agent = HeuristicAgent()
    params = agent.param_tuple
    seeds = [draw_seed(np.random.default_rng(i)) for i in range(len(cases))]
    phase_time: dict[str, dict[str, float]] = defaultdict(lambda: {"python": 0.0, "c++": 0.0})
    totals = {"python": 0.0, "c++": 0.0}
    for _ in range(args.passes):
        for (game, twin, legal), seed in zip(cases, seeds, strict=True):
            phase = game.phase.name
            t0 = time.perf_counter()

            scores = score_actions(agent.params, PlayerView(game, game.current), legal)
            expected = legal[tie_break(scores, seed)]
            t1 = time.perf_counter()
            got = extension.heuristic_decide(twin.core, game.current, params, seed)
            t2 = time.perf_counter()
            if got != expected:
                raise SystemExit(f"C++ chose {got}, Python {expected} ({phase})")
            phase_time[phase]["python"] += t1 - t0
            phase_time[phase]["c++"] += t2 - t1
            totals["python"] += t1 - t0
            totals["c++"] += t2 - t1
    count = len(cases) * args.passes
    kinds = Counter(game.phase.name for game, _, _ in cases)
    print(f"{len(cases)} states x {args.passes} passes, identical choices")
    print(f"{'phase':18} {'states':>7} {'python us':>10} {'c++ us':>8} {'ratio':>7}")
    for phase, t in sorted(phase_time.items(), key=lambda x: -kinds[x[0]]):
        k = kinds[phase] * args.passes
        print(
            f"{phase:18} {kinds[phase]:7d} {1e6 * t['python'] / k:10.1f} "
            f"{1e6 * t['c++'] / k:8.2f} {t['python'] / t['c++']:6.1f}x"
        )
    py, cpp = count / totals["python"], count / totals["c++"]
    print(f"\npython {py:,.0f} decisions/s, c++ {cpp:,.0f} decisions/s: {cpp / py:.1f}x")


if __name__ == "__main__":
    main()
