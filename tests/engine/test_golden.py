"""Replay the committed golden game records and fail on any divergence.

The records in tests/golden/*.jsonl are written by ``scripts/regen_golden.py --write`` (see
its docstring for the format). A failure here means the engine now plays a recorded game
differently: if the change is a deliberate rules change, regenerate the files on purpose and
review the diff; otherwise it is a regression.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, Phase, new_game
from perikles_env.engine.rng import Rng

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
FILES = sorted(GOLDEN_DIR.glob("*.jsonl"))
REGEN = "regenerate on purpose with: python scripts/regen_golden.py --write"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def sha(g: Game) -> str:
    return hashlib.sha256(canonical(g.to_dict()).encode("utf-8")).hexdigest()


def load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    return lines[0], lines[1:-1], lines[-1]


def first_difference(actual: dict[str, Any], expected: dict[str, Any]) -> str:
    keys = sorted(set(actual) | set(expected))
    diff = [k for k in keys if actual.get(k) != expected.get(k)]
    return f"fields differ: {diff[:8]}" if diff else "no field differs"


def test_golden_files_exist_for_3_4_and_5_players() -> None:
    players = sorted(load(path)[0]["num_players"] for path in FILES)
    assert players == [3, 4, 5]
    for path in FILES:
        assert path.stat().st_size < 3_000_000, f"{path.name} too big"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_game_replays_identically(path: Path) -> None:
    header, decisions, final = load(path)
    assert header["format"] == "perikles-golden-1"
    assert header["num_actions"] == NUM_ACTIONS, f"action space changed; {REGEN}"
    assert header["decisions"] == len(decisions)
    g = new_game(GameConfig(num_players=header["num_players"]), seed=header["seed"])
    policy = Rng(header["policy_seed"])
    for expected in decisions:
        where = f"{path.name} decision {expected['i']} ({expected['phase']})"
        if "state" in expected:
            assert g.to_dict() == expected["state"], (
                f"{where}: {first_difference(g.to_dict(), expected['state'])}; {REGEN}"
            )
            assert Game.from_dict(expected["state"]) == g, f"{where}: from_dict differs"
        assert sha(g) == expected["state_sha256"], f"{where}: state diverged; {REGEN}"
        assert g.turn == expected["turn"] and g.phase.name == expected["phase"], where
        assert g.current_player == expected["player"], where
        legal = g.legal_actions()
        assert legal == expected["legal"], f"{where}: legal actions differ; {REGEN}"
        action = expected["action"]
        assert action == legal[policy.randrange(len(legal))], f"{where}: not the policy's pick"
        assert g.action_to_str(action) == expected["action_str"], where
        g.apply_action_checked(action)
        assert sha(g) == expected["next_sha256"], f"{where}: next state diverged; {REGEN}"
    assert g.is_terminal and final["final"] is True
    assert g.to_dict() == final["state"], f"final: {first_difference(g.to_dict(), final['state'])}"
    assert sha(g) == final["state_sha256"]
    assert g.scores() == final["scores"] and g.winners() == final["winners"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_game_covers_every_decision_phase(path: Path) -> None:
    """The recorded seeds were chosen so that each game visits all 15 decision phases."""
    _, decisions, _ = load(path)
    seen = {line["phase"] for line in decisions}
    assert seen == {p.name for p in Phase if p != Phase.GAME_OVER}


def test_golden_replay_detects_a_changed_action() -> None:
    """The replay is sensitive: a different action at decision 0 gives another hash."""
    header, decisions, _ = load(FILES[0])
    first = decisions[0]
    g = new_game(GameConfig(num_players=header["num_players"]), seed=header["seed"])
    other = next(a for a in first["legal"] if a != first["action"])
    g.apply_action_checked(other)
    assert sha(g) != first["next_sha256"]
