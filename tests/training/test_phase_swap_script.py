"""scripts/phase_swap.py: the seat behind docs/results.md's phase-swap lines hands each
decision to the agent its part names, and plays a game through the evaluator."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perikles_env.agents.base import AgentError
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine.backend import native_available
from perikles_env.engine.phases import Phase

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "phase_swap.py"

pytestmark = pytest.mark.skipif(not native_available(), reason="the search needs the C++ core")


def load_script():
    spec = importlib.util.spec_from_file_location("phase_swap", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Recorder:
    """Stands in for one of the two agents: answers the first legal action, counts phases."""

    def __init__(self) -> None:
        self.phases: list[Phase] = []

    def reset(self) -> None:
        pass

    def act_state(self, game, player: int, rng: np.random.Generator) -> int:
        self.phases.append(Phase(int(game.phase)))
        return game.legal_actions()[0]


@pytest.mark.parametrize("part", ["military", "influence"])
def test_each_decision_goes_to_the_agent_of_its_part(part: str) -> None:
    seat = load_script().PhaseSwap(part=part)
    seat.search, seat.other = Recorder(), Recorder()
    game = new_game(GameConfig(num_players=3), seed=5, backend="native")
    rng = np.random.default_rng(0)
    while not game.is_terminal:
        game.apply_action(seat.act_state(game, game.current, rng))
    military = load_script().MILITARY
    swapped, kept = seat.other.phases, seat.search.phases
    assert swapped and kept  # a whole game has decisions of both parts
    if part == "military":
        assert all(p in military for p in swapped) and not any(p in military for p in kept)
    else:
        assert not any(p in military for p in swapped) and all(p in military for p in kept)


def test_an_unknown_part_is_refused_by_name() -> None:
    from perikles_env.agents import make_agent

    load_script()  # registers the agent
    with pytest.raises(AgentError, match="part must be one of"):
        make_agent("phase_swap:part=politics")
    with pytest.raises(AgentError, match="agent must be one of"):
        make_agent("phase_swap:agent=random")


def test_the_evaluator_plays_it_in_its_worker_processes(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--agents", "phase_swap:part=military,sims=2,random",
         "--players", "3", "--games", "3", "--seed", "3", "--workers", "2", "--out",
         str(tmp_path), "--name", "swap", "--no-plots"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "swap" / "games.jsonl").open()]
    assert len(records) == 3  # every seating of one deal
    for record in records:
        assert sorted(record["seats"]) == ["phase_swap:part=military,sims=2", "random", "random"]
        assert record["illegal"] == [0, 0, 0] and not record["truncated"]


def test_the_search_at_another_budget_can_take_the_part() -> None:
    seat = load_script().PhaseSwap(part="influence", agent="search", sims=7, rollout_mix=1.0)
    assert seat.other.params.sims == 7 and seat.search.params.sims != 7
    assert seat.other.params.rollout_mix == 1.0 and seat.search.params.rollout_mix != 1.0
