"""The PPO run's learning curve: drawn when the run has win rates to show, and not written
at all (the report then embeds none) while it has none: an empty plot would say nothing."""

from __future__ import annotations

import warnings

from PIL import Image

from perikles_env.training.ppo.callbacks import RunState
from perikles_env.training.ppo.ppo_report import write_learning_curve


def test_no_curve_without_a_win_rate_to_draw(tmp_path) -> None:
    state = RunState(rollouts=[{"timesteps": 512, "episodes": 3}])
    path = tmp_path / "learning_curve.png"
    assert write_learning_curve(state, path) is False
    assert not path.exists()


def test_a_curve_with_the_evaluations_and_the_training_games(tmp_path) -> None:
    state = RunState(
        rollouts=[{"timesteps": t, "rollout_win_rate": w} for t, w in ((512, 0.2), (1024, 0.3))],
        evals=[{"timesteps": 1024, "win_rate_vs_random": 0.5}],
    )
    path = tmp_path / "learning_curve.png"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a legend with nothing in it warns
        assert write_learning_curve(state, path) is True
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (700, 400)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is not None and len(colours) > 20  # lines, labels and grid, not a blank
