"""Golden game records: seeded random playthroughs, replayed in CI by
tests/engine/test_golden.py, which fails on any divergence.

Regenerate only on purpose, after a deliberate rules change, and review the diff:

    python scripts/regen_golden.py            # compare with the committed files (exit 1 if stale)
    python scripts/regen_golden.py --write    # rewrite tests/golden/*.jsonl

Format (one JSON object per line; ``canonical(x)`` is ``json.dumps(x, sort_keys=True,
separators=(",", ":"))`` and ``sha(state)`` the sha256 hex digest of ``canonical(to_dict())``):

* line 1, header: ``{"format": "perikles-golden-1", "num_players", "seed", "policy_seed",
  "num_actions", "full_state_every", "decisions"}``. The game is
  ``new_game(GameConfig(num_players), seed)``; the policy picks
  ``legal[Rng(policy_seed).randrange(len(legal))]`` (engine ``Rng``), uniform over the list.
* one line per decision ``i``: ``{"i", "turn", "phase", "player", "state_sha256", "legal",
  "action", "action_str", "next_sha256"}``, plus ``"state"`` (the full ``to_dict()``) on
  every ``full_state_every``-th line. Storing every state in full would take ~15 KB x 2 per
  line (the event log grows), so the other lines hold only hashes; the next state of line
  ``i`` is the state of line ``i + 1``.
* last line: ``{"final": true, "state_sha256", "scores", "winners", "state"}``.

The three seeds are fixed; each game visits all 15 decision phases.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game  # noqa: E402
from perikles_env.engine.rng import Rng  # noqa: E402

GOLDEN_DIR = ROOT / "tests" / "golden"
FORMAT = "perikles-golden-1"
FULL_STATE_EVERY = 20
POLICY_SALT = 1_000_000
GAMES = {3: 19, 4: 21, 5: 52}  # players -> seed (each game visits all 15 decision phases)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def state_sha(g: Game) -> str:
    return hashlib.sha256(canonical(g.to_dict()).encode("utf-8")).hexdigest()


def golden_path(n: int) -> Path:
    return GOLDEN_DIR / f"game_{n}p_seed{GAMES[n]}.jsonl"


def record(n: int, seed: int) -> Iterator[dict[str, Any]]:
    """The records of one game, header first."""
    policy = Rng(POLICY_SALT + seed)
    g = new_game(GameConfig(num_players=n), seed=seed)
    lines: list[dict[str, Any]] = []
    sha = state_sha(g)
    while not g.is_terminal:
        i = len(lines)
        legal = g.legal_actions()
        action = legal[policy.randrange(len(legal))]
        line: dict[str, Any] = {
            "i": i,
            "turn": g.turn,
            "phase": g.phase.name,
            "player": g.current_player,
            "state_sha256": sha,
            "legal": legal,
            "action": action,
            "action_str": g.action_to_str(action),
        }
        if i % FULL_STATE_EVERY == 0:
            line["state"] = g.to_dict()
        g.apply_action(action)
        sha = state_sha(g)
        line["next_sha256"] = sha
        lines.append(line)
    yield {
        "format": FORMAT,
        "num_players": n,
        "seed": seed,
        "policy_seed": POLICY_SALT + seed,
        "num_actions": NUM_ACTIONS,
        "full_state_every": FULL_STATE_EVERY,
        "decisions": len(lines),
    }
    yield from lines
    yield {
        "final": True,
        "state_sha256": sha,
        "scores": g.scores(),
        "winners": g.winners(),
        "state": g.to_dict(),
    }


def render(n: int) -> str:
    return "".join(canonical(line) + "\n" for line in record(n, GAMES[n]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write or check the golden game records.")
    parser.add_argument("--write", action="store_true", help="rewrite tests/golden/*.jsonl")
    args = parser.parse_args(argv)
    stale = 0
    for n in sorted(GAMES):
        path = golden_path(n)
        text = render(n)
        if args.write:
            GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(text) / 1e6:.2f} MB)")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            stale += 1
            print(f"{path.relative_to(ROOT)} differs from the engine's current play")
        else:
            print(f"{path.relative_to(ROOT)} up to date")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
