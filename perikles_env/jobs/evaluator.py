"""What a trainer asks of the tournament evaluator, as a value handed in by the command that
starts the run (``perikles_env.launch``): training and evaluation never import each other,
so either can change without the other, and a test can hand a trainer any evaluator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Evaluator:
    """``evaluate(specs, players=, games=, seed=, workers=, out=, name=, plots=, progress=)``
    plays a tournament and returns its result (``perikles_env.evaluation.EvalResult``);
    ``forget_agent(spec)`` drops an agent cached by its spec (its file is about to be
    replaced); ``summary(result)`` is a few lines on a result for the log."""

    evaluate: Callable[..., Any]
    forget_agent: Callable[[str], None]
    summary: Callable[[Any], str]
