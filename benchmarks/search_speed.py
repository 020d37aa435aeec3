"""Network-guided search speed: simulations/s of ``agents.search`` with the uniform evaluator
(no network: the C++ tree walk, determinization and leaf encoding alone) and with a small
torch MLP standing in for the network, at evaluator batch sizes 1, 16 and 64, in one run.

The states are mid-game decisions (turn 2, more than one legal action) of seeded games
between heuristic players at 4 players. A batch is filled two ways:

* ``parallel``: ``batch`` searches at once (one per state, as self-play runs its games), one
  leaf in flight per search;
* ``virtual loss``: one search at a time with ``leaves_per_search = batch`` (one decision of
  a playing agent).

    python benchmarks/search_speed.py [--sims 64] [--states 64] [--hidden 256]

"sims/s" counts the simulations after each root's evaluation per second of this process's
CPU time (one core, torch on one thread; CPU time so that jobs sharing the machine do not skew
the figures); "eval %" is the share of that time spent in the evaluator.

The shipped network is timed both ways too (rows "shipped network, torch" and "in C++").
A second table times the ``search`` spec's decisions (its play settings, the shipped
network) on the same states, the network run two ways: inside the C++ search
(native/players/net_forward.hpp, what ``search`` does) and in torch, called from the Python
loop once per leaf (what it did before).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perikles_env.agents import make_agent  # noqa: E402
from perikles_env.agents.search import Search, SearchParams, UniformEvaluator  # noqa: E402
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game  # noqa: E402
from perikles_env.engine.backend import native_error  # noqa: E402

PLAYERS = 4
MID_GAME_TURN = 2
BATCHES = (1, 16, 64)
ROUNDS = 2  # of the spec's decisions, each way


def mid_game_states(count: int) -> list[Game]:
    """``count`` turn-2 decisions, spread over seeded heuristic games."""
    agent = make_agent("heuristic")
    out: list[Game] = []
    for seed in range(1000):
        g = new_game(GameConfig(num_players=PLAYERS, record_events=False), seed, backend="native")
        rng = np.random.default_rng(seed)
        found = []
        while not g.is_terminal:
            if g.turn == MID_GAME_TURN and len(g.legal_actions()) > 1:
                found.append(g.clone())
            g.apply_action(agent.act_state(g.clone(), g.current, rng))
        out += found[:: max(1, len(found) // 8)][:8]
        if len(out) >= count:
            return out[:count]
    return out


class Timed:
    """An evaluator that adds up the CPU time spent in the one it wraps."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.num_players = inner.num_players
        self.features = inner.features
        self.seconds = 0.0

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.process_time()
        out = self.inner.evaluate(obs, masks)
        self.seconds += time.process_time() - start
        return out


def spec_decisions(states: list[Game], python_loop: bool) -> tuple[float, float, list[int]]:
    """(mean CPU ms per decision, network share, the actions) of the ``search`` spec on
    ``states``; with ``python_loop`` the shipped network is called in torch from the Python
    loop (``Timed`` hides its C++ layers), else it runs inside the C++ search (no share
    measured: 0)."""
    agent = make_agent("search")
    evaluator = Timed(agent.evaluator) if python_loop else agent.evaluator
    search = Search(evaluator, agent.params)
    start = time.process_time()
    actions = [search.run([g], [g.current], [i])[0].action for i, g in enumerate(states)]
    total = time.process_time() - start
    share = evaluator.seconds / total if python_loop else 0.0
    return 1000 * total / len(states), share, actions


class TorchMLP:
    """A stand-in network: obs -> hidden -> hidden -> (logits, values), float32 on the CPU."""

    features = ("battle", "actions")

    def __init__(self, obs_size: int, hidden: int, num_players: int = PLAYERS) -> None:
        import torch

        torch.set_num_threads(1)
        torch.manual_seed(0)
        self.torch = torch
        self.num_players = num_players
        self.body = torch.nn.Sequential(
            torch.nn.Linear(obs_size, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden),
            torch.nn.ReLU(),
        )
        self.policy = torch.nn.Linear(hidden, NUM_ACTIONS)
        self.value = torch.nn.Linear(hidden, num_players)

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self.torch.inference_mode():
            h = self.body(self.torch.from_numpy(obs))
            values = self.torch.softmax(self.value(h), dim=1)
            return self.policy(h).numpy(), values.numpy()


def measure(
    evaluator: Any, states: list[Game], sims: int, batch: int, parallel: bool
) -> tuple[float, float | None]:
    """(simulations per CPU second, evaluator share of the time) over every state; a
    network that runs inside the C++ search (``native_layers``) is not wrapped, and its
    share is not measured (None)."""
    inside = hasattr(evaluator, "native_layers")
    timed = evaluator if inside else Timed(evaluator)
    params = SearchParams(sims=sims, batch=batch, leaves_per_search=1 if parallel else batch)
    search = Search(timed, params)
    group = batch if parallel else 1
    done = 0
    start = time.process_time()
    for i in range(0, len(states), group):
        chunk = states[i : i + group]
        results = search.run(chunk, [g.current for g in chunk], list(range(i, i + len(chunk))))
        done += sum(r.sims for r in results)
    total = time.process_time() - start
    return done / total, None if inside else timed.seconds / total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sims", type=int, default=64)
    parser.add_argument("--states", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=256)
    args = parser.parse_args()
    if native_error():
        sys.exit(f"the search needs the C++ core: {native_error()}")
    states = mid_game_states(args.states)
    evaluators: dict[str, Any] = {"uniform": UniformEvaluator(PLAYERS)}
    try:
        probe = Search(UniformEvaluator(PLAYERS), SearchParams(batch=1))
        obs_size = probe._obs.shape[1]
        evaluators[f"torch MLP {args.hidden}x2"] = TorchMLP(obs_size, args.hidden)
        shipped = make_agent("search").evaluator
        evaluators["shipped network, torch"] = Timed(shipped)  # hides its C++ layers
        evaluators["shipped network, in C++"] = shipped
    except ImportError:
        print("(torch not installed: the MLP rows are skipped)")
    print(
        f"# {len(states)} turn-2 states, {PLAYERS} players, sims={args.sims}; "
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"
    )
    print("| evaluator | batch | filled by | sims/s | eval % |")
    print("|---|---:|---|---:|---:|")
    for name, evaluator in evaluators.items():
        for batch in BATCHES:
            for parallel in (True, False):
                if batch == 1 and not parallel:
                    continue  # the same search as parallel batch 1
                rate, share = measure(evaluator, states, args.sims, batch, parallel)
                how = "parallel" if parallel else "virtual loss"
                shown = "-" if share is None else f"{100 * share:.0f}"
                print(f"| {name} | {batch} | {how} | {rate:,.0f} | {shown} |", flush=True)
    print()
    print("| `search` (the shipped network) | CPU ms per decision | network % |")
    print("|---|---:|---:|")
    runs: dict[str, list[tuple[float, float, list[int]]]] = {}
    for _ in range(ROUNDS):  # alternated, the quickest round kept: jobs beside it disturb less
        for name, python_loop in (("torch, Python loop", True), ("in the C++ search", False)):
            runs.setdefault(name, []).append(spec_decisions(states, python_loop))
    times, actions = {}, {}
    for name, rounds in runs.items():
        times[name], share, actions[name] = min(rounds)
        shown = f"{100 * share:.0f}" if name.startswith("torch") else "-"
        print(f"| {name} | {times[name]:.0f} | {shown} |", flush=True)
    ratio = times["torch, Python loop"] / times["in the C++ search"]
    same = sum(a == b for a, b in zip(*actions.values(), strict=True))
    print(f"the network in C++: {ratio:.2f}x the decisions per CPU second; the same action "
          f"in {same} of {len(states)} decisions (float32 rounding, another order of sums)")


if __name__ == "__main__":
    main()
