"""``ppo.lr_schedule: linear`` decays to 0 over the step budget or the time budget
(``train.max_minutes``), whichever runs out first (training/callbacks.py)."""

from __future__ import annotations

import pytest

from perikles_env.training.ppo.callbacks import BudgetLinearSchedule, RunState, TimeLimitCallback
from perikles_env.training.ppo.config import config_from_dict
from perikles_env.training.ppo.train import make_model, make_vec_env


def test_schedule_follows_the_budget_that_runs_out_first():
    schedule = BudgetLinearSchedule(2e-3)
    assert schedule(1.0) == pytest.approx(2e-3)
    assert schedule(0.25) == pytest.approx(5e-4)  # steps: a quarter left
    schedule.time_remaining = 0.1
    assert schedule(0.25) == pytest.approx(2e-4)  # time: a tenth left
    schedule.time_remaining = 0.0
    assert schedule(0.9) == 0.0


class FakeClock:
    total = 0.0


def test_callback_sets_the_time_left_before_the_update():
    config = config_from_dict(
        {
            "train": {"n_envs": 1, "vec_env": "dummy"},
            "ppo": {"net_arch": [16], "lr_schedule": "linear", "learning_rate": 1e-3},
        }
    )
    env = make_vec_env(config, "random")
    try:
        model = make_model(config, env, None)
    finally:
        env.close()
    assert isinstance(model.learning_rate, BudgetLinearSchedule)
    state, clock = RunState(eval_seconds=30.0), FakeClock()
    callback = TimeLimitCallback(minutes=2.0, clock=clock, state=state)
    callback.init_callback(model)
    clock.total = 90.0  # 60 s of training (evaluation excluded) of a 120 s budget
    callback.on_rollout_end()
    assert model.learning_rate.time_remaining == pytest.approx(0.5)
    assert model.lr_schedule(0.9) == pytest.approx(5e-4)  # what SB3 sets before train()
    assert model.lr_schedule(0.2) == pytest.approx(2e-4)
    assert callback.on_step() and not state.stopped_by_time_limit
    clock.total = 500.0  # over the budget: never negative, and training stops
    callback.on_rollout_end()
    assert model.lr_schedule(0.9) == 0.0
    assert not callback.on_step() and state.stopped_by_time_limit
