"""IS-MCTS speed: simulations/s with heuristic rollouts (horizon 8) and random rollouts to the
end (horizon -1), on the Python engine and on the C++ core, at 4 players, in one run.

The states are mid-game decisions (turn 2, more than one legal action) of seeded games
between heuristic players; each backend plays the same games, so both search the same
states. Every state is searched once per setting with a fixed seed and ``sims`` iterations
(no time budget), so both backends do the same work; the table also says how many
decisions the two backends agreed on (they should all agree: same seed, same search).

    python benchmarks/ismcts_speed.py [--sims 60] [--states 8] [--games 2]

"simulations/s" is iterations (determinise, tree walk, rollout, leaf value, backup) per
second of this process's CPU time (one core; CPU time, not wall time, so that jobs sharing
the machine do not skew the figures); ms/decision is the mean CPU time of one decision.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perikles_env.agents import make_agent  # noqa: E402
from perikles_env.agents.heuristic.agent import HeuristicAgent  # noqa: E402
from perikles_env.agents.ismcts import ISMCTSAgent, ISMCTSParams  # noqa: E402
from perikles_env.engine import Game, GameConfig, new_game  # noqa: E402
from perikles_env.engine.backend import native_error  # noqa: E402

PLAYERS = 4
MID_GAME_TURN = 2
SETTINGS = {"heuristic h=8": ("heuristic", 8), "random to end": ("random", -1)}


def mid_game_states(backend: str, games: int, per_game: int) -> list[tuple[Game, int]]:
    """Up to ``per_game`` evenly spread turn-2 decisions of each seeded heuristic game."""
    agent = make_agent("heuristic")
    out: list[tuple[Game, int]] = []
    for seed in range(games):
        g = new_game(GameConfig(num_players=PLAYERS, record_events=False), seed, backend=backend)
        rng = np.random.default_rng(seed)
        found: list[tuple[Game, int]] = []
        while not g.is_terminal:
            if g.turn == MID_GAME_TURN and len(g.legal_actions()) > 1:
                found.append((g.clone(), g.current))
            g.apply_action(agent.act_state(g.clone(), g.current, rng))
        step = max(1, len(found) // per_game)
        out += found[::step][:per_game]
    return out


def search(
    states: list[tuple[Game, int]], params: ISMCTSParams, in_cpp: bool = True
) -> tuple[float, list[int]]:
    """CPU seconds to search every state once (seed = its index) and the decisions made;
    ``in_cpp=False``: the Python heuristic ranks and rolls out even on the C++ core."""
    agent = ISMCTSAgent(params, heuristic=HeuristicAgent(in_cpp=in_cpp))
    decisions = []
    start = time.process_time()
    for i, (g, p) in enumerate(states):
        decisions.append(agent.act_state(g.clone(), p, np.random.default_rng(i)))
    return time.process_time() - start, decisions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="IS-MCTS simulations/s, Python vs C++ core.")
    parser.add_argument("--sims", type=int, default=60, help="iterations per decision")
    parser.add_argument("--states", type=int, default=8, help="mid-game states per game")
    parser.add_argument("--games", type=int, default=2, help="seeded games to take states from")
    args = parser.parse_args(argv)
    backends = ["python"] + ([] if native_error() else ["native"])
    states = {b: mid_game_states(b, args.games, args.states) for b in backends}
    count = len(states["python"])
    print(
        f"Python {platform.python_version()} on {platform.machine()}, {PLAYERS} players, "
        f"{count} mid-game states, sims={args.sims}"
        + ("" if "native" in backends else f" (C++ core unavailable: {native_error()})")
    )
    rates: dict[tuple[str, str], float] = {}
    chosen: dict[tuple[str, str], list[int]] = {}
    header = (
        f"{'rollout':<14} {'backend':<7} {'sims/s':>8} {'ms/decision':>12} "
        f"{'x python heur.':>15} {'x same rollout py':>18}"
    )
    print(header)
    print("-" * len(header))
    for label, (rollout, horizon) in SETTINGS.items():
        params = ISMCTSParams(sims=args.sims, rollout=rollout, horizon=horizon)
        for b in backends:
            seconds, chosen[label, b] = search(states[b], params)
            if b == "native" and rollout == "heuristic":  # the Python heuristic on the core
                slow, _ = search(states[b], params, in_cpp=False)
                print(
                    f"{label:<14} {'native, Python heuristic':<7} {count * args.sims / slow:>8.0f} "
                    f"{1000 * slow / count:>12.1f}   (the C++ heuristic: {slow / seconds:.1f}x)"
                )
            rates[label, b] = count * args.sims / seconds
            base = rates["heuristic h=8", "python"]
            print(
                f"{label:<14} {b:<7} {rates[label, b]:>8.0f} {1000 * seconds / count:>12.1f} "
                f"{rates[label, b] / base:>15.2f} {rates[label, b] / rates[label, 'python']:>18.2f}"
            )
    if "native" in backends:
        for label in SETTINGS:
            same = sum(
                a == b
                for a, b in zip(chosen[label, "python"], chosen[label, "native"], strict=True)
            )
            print(f"{label}: same decision on both backends in {same}/{count} states")
    return 0


if __name__ == "__main__":
    sys.exit(main())
