"""Progress against a budget: the limit nearest its end decides the bar and the time left."""

from __future__ import annotations

import pytest

from perikles_env.jobs.budget import Budget, BudgetBar


def test_time_budget_decides_when_it_ends_first() -> None:
    """make train: 13 minutes of PPO long before 5 million steps."""
    budget = Budget(minutes=13, steps=5_000_000)
    assert budget.fraction(192, 120_000) == pytest.approx(192 / 780)
    assert budget.seconds_left(192, 120_000, rate=410) == pytest.approx(780 - 192)
    line = budget.line(192, 120_000, rate=410)
    assert line == "3.2/13.0 min, 120,000/5,000,000 steps, 410 steps/s, 9.8 min left"
    # evaluations that the budget's minutes do not count: a tenth more wall per minute
    line = budget.line(192, 120_000, rate=410, overhead=1.1)
    assert line.endswith("410 steps/s, 10.8 min left")


def test_step_budget_decides_when_it_ends_first() -> None:
    budget = Budget(minutes=60, steps=10_000)
    assert budget.fraction(60, 5_000) == 0.5
    assert budget.seconds_left(60, 5_000) == pytest.approx(60)  # 5,000 more at 83/s
    assert budget.fraction(7200, 20_000) == 1.0 and budget.seconds_left(7200, 20_000) == 0


def test_iterations_and_units() -> None:
    budget = Budget(iterations=10, unit="learner steps")
    assert budget.fraction(60, 8_000, 3) == pytest.approx(0.3)
    assert budget.seconds_left(60, 8_000, 3) == pytest.approx(140)
    assert budget.line(60, 8_000, 3).startswith("1.0 min, 8,000 learner steps, iteration 3/10")
    assert Budget().seconds_left(10, 0) is None and "left" not in Budget().line(10, 0)


def test_bar_fills_with_the_used_share(capsys) -> None:
    bar = BudgetBar(Budget(minutes=1, steps=1_000_000), "train")
    bar.update(30, 1_000, rate=33.3, extra="win(train) 0.40")
    assert bar.bar.n == 500
    bar.update(45, 2_000)
    assert bar.bar.n == 750
    bar.close()
    text = capsys.readouterr().err
    assert "0.8/1.0 min" in text and "2,000/1,000,000 steps" in text
    off = BudgetBar(Budget(minutes=1), "x", enabled=False)
    off.update(1, 1)
    off.close()
    assert off.bar is None
