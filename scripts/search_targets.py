"""What a search's policy targets know, before expert iteration trains on them.

On fixed positions (heuristic games at 3, 4 and 5 players, a position drawn from each), every
setting searches twice with different seeds, and a reference search with many more
simulations searches twice too. Printed per setting: the targets' entropy and the entropy of
the two seeds' mean (higher: the seeds disagree, and a network fitting both gets flatter),
how often the two seeds' top moves agree, their total-variation distance, how often the top
move is the prior's, how often it is the reference's, and the target's mass on the
reference's top move beside the prior's (a target that knows more than the prior puts more
there). docs/results.md, "What the search's targets know":

    python scripts/search_targets.py "" "q_rescale=false,c_scale=0.3"
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
import torch

from perikles_env.agents import make_agent
from perikles_env.agents.registry import parse_spec
from perikles_env.agents.search import SearchAgent, SearchParams
from perikles_env.agents.search.net_agent import net_path
from perikles_env.agents.search.net_file import load_net
from perikles_env.engine import GameConfig, new_game

# expert iteration's self-play search (configs/search_population.yaml) without its
# q_rescale=False, c_scale=0.3, which the script measures as a setting of its own
RECIPE = SearchParams(sims=64, gumbel_m=16, opponents="tree", rollout_mix=0.5, batch=32)


def positions(count: int, seed: int) -> list:
    """One position with a choice from each of ``count`` heuristic games (3, 4, 5 players
    in turn), at a decision drawn uniformly from the 10th to the 120th."""
    rng = np.random.default_rng(seed)
    heuristic = make_agent("heuristic")
    out = []
    for k in range(count):
        game = new_game(GameConfig(num_players=3 + k % 3, record_events=False),
                        seed=seed + k, backend="native")
        stop, choices = int(rng.integers(10, 120)), 0
        while not game.is_terminal:
            if len(game.legal_actions()) > 1:
                choices += 1
                if choices == stop:
                    out.append(game)
                    break
            game.apply_action(heuristic.act_state(game, game.current, rng))
    return out


def entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def twice(agent: SearchAgent, games: list) -> tuple[list, list]:
    players = [g.current for g in games]
    return tuple(agent.search_batch(games, players, np.random.default_rng(s)) for s in (1, 2))


def report(name: str, first: list, second: list, reference: list[int] | None) -> str:
    """One setting's line (module docstring); ``reference``: the reference's top moves."""
    pairs = list(zip(first, second, strict=True))
    both = first + second
    seeds_mean = np.mean([entropy((a.policy + b.policy) / 2) for a, b in pairs])
    agree = np.mean([a.policy.argmax() == b.policy.argmax() for a, b in pairs])
    tv = np.mean([0.5 * np.abs(a.policy - b.policy).sum() for a, b in pairs])
    to_prior = np.mean([r.policy.argmax() == r.prior.argmax() for r in both])
    line = (
        f"{name}: entropy {np.mean([entropy(r.policy) for r in both]):.3f} "
        f"(of the seeds' mean {seeds_mean:.3f}); seeds agree {agree:.2f}, TV {tv:.3f}; "
        f"top move = prior's {to_prior:.2f}"
    )
    if reference is None:
        return line
    best = list(zip(both, reference + reference, strict=True))
    to_ref = np.mean([r.policy.argmax() == b for r, b in best])
    mass = np.mean([r.policy[b] for r, b in best])
    prior_mass = np.mean([r.prior[b] for r, b in best])
    return line + (
        f", = reference's {to_ref:.2f}; mass on the reference's {mass:.3f} (prior {prior_mass:.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("settings", nargs="*", default=[""],
                        help="search options over the recipe's, e.g. q_rescale=false,c_scale=0.3 "
                             "('': the recipe)")
    parser.add_argument("--net", default="", help="a .pkn network (default: the shipped one)")
    parser.add_argument("--positions", type=int, default=90)
    parser.add_argument("--reference-sims", type=int, default=512)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    net = load_net(net_path(args.net or None))
    games = positions(args.positions, args.seed)
    ref_a, ref_b = twice(SearchAgent(net, replace(RECIPE, sims=args.reference_sims)), games)
    reference = [int(r.policy.argmax()) for r in ref_a]
    print(f"{len(games)} positions; reference: {args.reference_sims} simulations of the recipe")
    print(report("reference", ref_a, ref_b, None), flush=True)
    for setting in args.settings:
        params = replace(RECIPE, **parse_spec(f"search:{setting}")[1]) if setting else RECIPE
        first, second = twice(SearchAgent(net, params), games)
        print(report(setting or "recipe", first, second, reference), flush=True)


if __name__ == "__main__":
    main()
