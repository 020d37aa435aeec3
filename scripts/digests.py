"""Seeded digests of everything a refactor must not change (docs/architecture.md).

Run before and after a change that should keep behaviour; equal digests mean the same games,
observations, decisions, evaluation records and first training updates::

    python scripts/digests.py --out before.json            # on the old commit
    python scripts/digests.py --out after.json --compare before.json

Only public entry points are used (``engine.new_game``, ``agents.make_agent``, the vector env,
the console tools through ``perikles_env.cli.run_tool``), so the script itself survives the
refactors it checks. Timings, paths and dates are left out of every digest.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BACKENDS = ("python", "native")
FEATURES = ("battle", "actions")


def sha(data: Any) -> str:
    if isinstance(data, np.ndarray):
        raw = data.tobytes()
    elif isinstance(data, bytes):
        raw = data
    else:
        raw = json.dumps(data, sort_keys=True, default=str).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def engine_games(backend: str) -> dict[str, str]:
    """Random play (choices from Python's ``random``), 3-5 players: actions, final state and
    scores; every 7th decision every seat's observation with both feature blocks, the oracle
    observation and the mask."""
    from perikles_env.engine import GameConfig, new_game
    from perikles_env.vector.encoder import BackendEncoder, game_encoder, legal_mask

    out: dict[str, str] = {}
    encoder = game_encoder(FEATURES)
    oracle = BackendEncoder(oracle=True)
    for n in (3, 4, 5):
        for seed in range(4):
            g = new_game(GameConfig(num_players=n), seed=seed, backend=backend)
            pick = random.Random(seed * 10 + n)
            actions, obs = [], hashlib.sha256()
            while not g.is_terminal:
                if len(actions) % 7 == 0:
                    for p in range(n):
                        obs.update(encoder.encode(g, p).tobytes())
                    obs.update(oracle.encode(g, g.current).tobytes())
                    obs.update(legal_mask(g).tobytes())
                a = pick.choice(g.legal_actions())
                actions.append(a)
                g.apply_action(a)
            key = f"{n}p_seed{seed}"
            out[f"game/{key}"] = sha([actions, g.scores(), g.to_dict()])
            out[f"observations/{key}"] = obs.hexdigest()[:16]
    return out


def agent_decisions(backend: str, specs: list[str], games: int, cap: int) -> dict[str, str]:
    """Every seat played by ``spec`` on seeded games (numpy rng per seat): the actions."""
    from perikles_env.agents import game_for, make_agent
    from perikles_env.engine import GameConfig, new_game

    out = {}
    for spec in specs:
        for n in make_agent(spec).supported_players:
            for seed in range(games):
                agents = [make_agent(spec) for _ in range(n)]
                rngs = [np.random.default_rng([seed, p]) for p in range(n)]
                g = new_game(GameConfig(num_players=n), seed=seed, backend=backend)
                actions = []
                while not g.is_terminal and len(actions) < cap:
                    p = g.current
                    a = agents[p].act_state(game_for(agents[p], g), p, rngs[p])
                    actions.append(int(a))
                    g.apply_action(a)
                out[f"{spec}/{backend}/{n}p_seed{seed}"] = sha(actions)
    return out


def vector_env() -> dict[str, str]:
    """The C++ vector env with a league and both feature blocks, random learner actions."""
    from perikles_env.vector import VectorEnv

    env = VectorEnv(
        8, [3, 4, 5], opponents={"heuristic": 1.0, "random": 1.0},
        learner_seat=None, features=list(FEATURES),
    )
    state = env.reset(seed=3)
    h = hashlib.sha256()
    rng = np.random.default_rng(0)
    for _ in range(300):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in state.action_mask]
        state = env.step(actions)
        for arr in (state.current, state.observation, state.action_mask, state.rewards,
                    state.terminated, state.scores, state.final_scores, state.players):
            h.update(np.ascontiguousarray(arr).tobytes())
    return {"vector/league_300_steps": h.hexdigest()[:16]}


def run_tool(prog: str, argv: list[str]) -> None:
    from perikles_env.cli import run_tool as run

    code = run(prog, argv)
    if code:
        raise SystemExit(f"{prog} {' '.join(argv)} exited {code}")


def evaluation(tmp: Path) -> dict[str, str]:
    """``perikles-evaluate`` on configs/eval_smoke.yaml: games.jsonl without timings."""
    run_tool("perikles-evaluate", ["--config", str(ROOT / "configs/eval_smoke.yaml"),
                                   "--out", str(tmp / "eval"), "--quiet"])
    files = sorted(glob.glob(str(tmp / "eval" / "**" / "games.jsonl"), recursive=True))
    rows = []
    for f in files:
        for line in Path(f).read_text().splitlines():
            rows.append(_untimed(json.loads(line)))
    return {"evaluate/eval_smoke/games": sha(rows), "evaluate/eval_smoke/count": str(len(rows))}


def _untimed(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _untimed(v) for k, v in x.items()
                if not any(t in k for t in ("time", "seconds", "ms", "cpu", "wall"))}
    if isinstance(x, list):
        return [_untimed(v) for v in x]
    return x


def ppo_smoke(tmp: Path) -> dict[str, str]:
    """The first PPO updates of configs/smoke.yaml: TensorBoard's train/* scalars (5 digits)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_tool("perikles-train", ["--config", str(ROOT / "configs/smoke.yaml"),
                                "--override", f"out={tmp / 'ppo'}"])
    (tb,) = glob.glob(str(tmp / "ppo" / "smoke" / "tb" / "*"))
    ea = EventAccumulator(tb)
    ea.Reload()
    out = {}
    for tag in sorted(t for t in ea.Tags()["scalars"] if t.startswith("train/")):
        out[f"ppo_smoke/{tag}"] = " ".join(f"{e.value:.5g}" for e in ea.Scalars(tag))
    return out


def search_smoke(tmp: Path) -> dict[str, str]:
    """configs/search_smoke.yaml: the losses it prints and its evaluation."""
    run_tool("perikles-search-train", ["--config", str(ROOT / "configs/search_smoke.yaml"),
                                       "--override", f"out={tmp / 'search'}"])
    summary = json.loads((tmp / "search" / "search_smoke" / "summary.json").read_text())
    out = {}
    for it in summary["history"]:
        learn = it["learn"]
        out[f"search_smoke/iter{it['iteration']}"] = (
            f"positions {it['positions']} policy {learn['policy']} value {learn['value']} "
            f"seats {sorted(it['seats'].items())} eval {sha(it.get('eval', {}))}"
        )
    return out


SECTIONS: dict[str, Callable[[Path], dict[str, str]]] = {
    "engine": lambda t: {f"{b}/{k}": v for b in BACKENDS for k, v in engine_games(b).items()},
    "heuristic": lambda t: {
        k: v for b in BACKENDS for k, v in agent_decisions(
            b, ["heuristic", "heuristic:aggression=1.2,spite=1.0"], 2, 10_000).items()},
    "ismcts": lambda t: agent_decisions("native", ["ismcts:sims=30"], 1, 60),
    "net": lambda t: agent_decisions("native", ["net", "search:sims=16"], 1, 40),
    "vector": lambda t: vector_env(),
    "evaluate": evaluation,
    "ppo": ppo_smoke,
    "search_train": search_smoke,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file to write the digests to")
    parser.add_argument("--compare", help="an earlier digests file: print every difference")
    parser.add_argument("--only", nargs="*", choices=sorted(SECTIONS), help="these sections")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or SECTIONS:
            print(f"digests: {name} ...", file=sys.stderr, flush=True)
            digests.update(SECTIONS[name](Path(tmp) / name))
    Path(args.out).write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"{len(digests)} digests written to {args.out}")
    if not args.compare:
        return 0
    before = json.loads(Path(args.compare).read_text())
    shared = [k for k in digests if k in before]
    changed = [k for k in shared if digests[k] != before[k]]
    for k in changed:
        print(f"CHANGED {k}: {before[k]} -> {digests[k]}")
    print(f"{len(shared) - len(changed)} of {len(shared)} shared digests equal; "
          f"{len(changed)} changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
