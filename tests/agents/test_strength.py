"""Playing strength regressions (slow): the documented strength bars on smaller samples."""

from __future__ import annotations

import pytest

from perikles_env.evaluation import evaluate


@pytest.mark.slow
def test_heuristic_beats_random_players() -> None:
    """Measured 93.8 % over 400 four-player games; the bar is 80 %."""
    result = evaluate(["heuristic", "random"], players=4, games=100, seed=123, workers=2)
    assert result.illegal_actions == 0
    stats = result.matchups[0].agents["heuristic"]
    assert stats.win_ci[0] > 0.8, stats


@pytest.mark.slow
def test_ismcts_beats_heuristic_players() -> None:
    """Measured above 40 % over 200 four-player games (chance 25 %); a 24-game sample must at
    least beat chance's expected share."""
    pytest.importorskip("perikles_env.engine.determinize")
    result = evaluate(["ismcts:sims=30", "heuristic"], players=4, games=24, seed=321, workers=2)
    assert result.illegal_actions == 0
    assert result.win_rate("ismcts:sims=30") > 0.25
