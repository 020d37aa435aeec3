"""scripts/search_targets.py: the measurement behind docs/results.md's "What the search's
targets know" runs, and its numbers are what they say (checked on hand-made results)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perikles_env.engine import NUM_ACTIONS
from perikles_env.engine.backend import native_available

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "search_targets.py"


def load_script():
    spec = importlib.util.spec_from_file_location("search_targets", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Result:  # the two fields the report reads of a SearchResult
    def __init__(self, policy: dict[int, float], prior: dict[int, float]) -> None:
        self.policy = np.zeros(NUM_ACTIONS, np.float32)
        self.prior = np.zeros(NUM_ACTIONS, np.float32)
        for a, p in policy.items():
            self.policy[a] = p
        for a, p in prior.items():
            self.prior[a] = p


def test_the_report_counts_agreement_and_mass_by_hand() -> None:
    report = load_script().report
    prior = {0: 0.6, 1: 0.4}
    first = [Result({0: 0.9, 1: 0.1}, prior), Result({0: 0.2, 1: 0.8}, prior)]
    second = [Result({0: 0.9, 1: 0.1}, prior), Result({0: 0.7, 1: 0.3}, prior)]
    line = report("x", first, second, [0, 1])
    # seeds agree on position 0 only; TV (0 + 0.5) / 2; top move = prior's 3 of 4
    assert "seeds agree 0.50, TV 0.250; top move = prior's 0.75" in line
    # = reference's: position 0 twice, position 1 once; mass (0.9 + 0.8 + 0.9 + 0.3) / 4
    assert "= reference's 0.75; mass on the reference's 0.725 (prior 0.500)" in line
    assert "reference's" not in report("x", first, second, None)


@pytest.mark.skipif(not native_available(), reason="C++ core not built")
def test_the_script_runs_on_the_shipped_network() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "", "q_rescale=false", "--positions", "3",
         "--reference-sims", "8"],
        capture_output=True, text=True, timeout=300, check=False, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("3 positions") and len(lines) == 4
    assert lines[2].startswith("recipe: ") and lines[3].startswith("q_rescale=false: ")
    shares = [float(x) for x in re.findall(r"agree (\d\.\d+)", done.stdout)]
    assert len(shares) == 3 and all(0 <= s <= 1 for s in shares)
