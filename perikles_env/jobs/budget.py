"""Progress of a long job against its budget: minutes, steps or iterations, whichever ends
it first.

Why: a bar over ``total_timesteps`` alone promises hours while ``max_minutes`` stops the run
in minutes. ``Budget.line`` says what was used of each limit, the speed and the time left
(``3.2/13.0 min, 120,000/5,000,000 steps, 410 steps/s, 9.8 min left``); ``BudgetBar`` is a
tqdm bar filled by the same fraction, for training, imitation and the RLlib trainer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Budget:
    """The limits of a job; ``None``: no such limit."""

    minutes: float | None = None
    steps: int | None = None
    iterations: int | None = None
    unit: str = "steps"  # what ``steps`` counts (steps, decisions, ...)

    def fraction(self, seconds: float, steps: int, iterations: int = 0) -> float:
        """The share of the budget used (the limit nearest its end decides), 0..1."""
        used = [0.0]
        if self.minutes:
            used.append(seconds / (60 * self.minutes))
        if self.steps:
            used.append(steps / self.steps)
        if self.iterations:
            used.append(iterations / self.iterations)
        return min(1.0, max(used))

    def seconds_left(
        self, seconds: float, steps: int, iterations: int = 0, rate: float | None = None
    ) -> float | None:
        """Time until the first limit is reached, at ``rate`` steps per second (default the
        average so far); ``None`` while nothing says how fast the job goes."""
        left = []
        if self.minutes:
            left.append(60 * self.minutes - seconds)
        speed = rate if rate is not None else (steps / seconds if seconds > 0 else 0.0)
        if self.steps and speed > 0:
            left.append((self.steps - steps) / speed)
        if self.iterations and iterations > 0:
            left.append((self.iterations - iterations) * seconds / iterations)
        return max(0.0, min(left)) if left else None

    def line(
        self, seconds: float, steps: int, iterations: int = 0, rate: float | None = None,
        overhead: float = 1.0,
    ) -> str:
        """``3.2/13.0 min, 120,000/5,000,000 steps, 410 steps/s, 9.8 min left``. The time
        left is wall time: the budget's own seconds times ``overhead`` (the wall seconds a
        job spends per budget second, e.g. on evaluations its minutes do not count)."""
        speed = rate if rate is not None else (steps / seconds if seconds > 0 else 0.0)
        minutes = f"{seconds / 60:.1f}" + (f"/{self.minutes:.1f}" if self.minutes else "")
        parts = [f"{minutes} min", f"{steps:,}" + (f"/{self.steps:,}" if self.steps else "")
                 + f" {self.unit}"]
        if self.iterations:
            parts.append(f"iteration {iterations}/{self.iterations}")
        parts.append(f"{speed:,.0f} {self.unit}/s")
        left = self.seconds_left(seconds, steps, iterations, rate)
        if left is not None:
            parts.append(f"{left * overhead / 60:.1f} min left")
        return ", ".join(parts)


class BudgetBar:
    """A tqdm bar of the used share of a ``Budget`` (in 0.1 % units), the budget line as
    its text. With ``enabled=False`` it does nothing."""

    SCALE = 1000

    def __init__(self, budget: Budget, desc: str, enabled: bool = True) -> None:
        self.budget = budget
        self.bar: Any = None
        if enabled:
            from tqdm.auto import tqdm

            name = desc.replace("{", "{{").replace("}", "}}")
            self.bar = tqdm(  # the budget line is the bar's desc, shown after the bar
                total=self.SCALE,
                desc=budget.line(0.0, 0),
                bar_format=name + ": {percentage:3.0f}%|{bar}| {desc}",
                dynamic_ncols=True,
            )

    def update(
        self, seconds: float, steps: int, iterations: int = 0, rate: float | None = None,
        extra: str = "", overhead: float = 1.0,
    ) -> None:
        if self.bar is None:
            return
        filled = int(self.SCALE * self.budget.fraction(seconds, steps, iterations))
        text = self.budget.line(seconds, steps, iterations, rate, overhead)
        text += f", {extra}" if extra else ""
        self.bar.set_description_str(text, refresh=False)
        self.bar.update(max(0, filled - self.bar.n))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
