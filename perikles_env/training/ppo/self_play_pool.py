"""Self-play opponent pool: frozen snapshots of the learner mixed with fixed baselines.

``opponents.weights`` in a config names fixed agents (``random``, ``heuristic``,
``ismcts:...``, ``ppo:<path>``) and two self-play entries:

* ``self_latest``: the most recent snapshot;
* ``self_past``: the older snapshots, sharing the weight equally.

Every ``snapshot_every`` learner steps the learner is saved to ``snapshots/`` and becomes
``self_latest``; at most ``max_snapshots`` are kept (the oldest is dropped). A self entry
without snapshots yet has no weight: the others are renormalised. Snapshots play with a
sampled (``deterministic=false``) policy by default, which keeps self-play games varied.

``opponents.curriculum`` puts earlier leagues before ``weights``: ``advance(steps)`` moves
to the stage of that many learner steps. The pool always names every fixed agent of every
stage (at weight 0 outside its stages), so that an env made from the first pool can seat
each of them later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from perikles_env.single_agent import OpponentPool

if TYPE_CHECKING:
    from .config import OpponentSection

# the self-play entries of ``opponents.weights`` (the config, the C++ vector env and the
# search warm start name them; every other entry is a fixed agent's spec)
SELF_LATEST = "self_latest"
SELF_PAST = "self_past"
SELF_KEYS = (SELF_LATEST, SELF_PAST)


@dataclass
class SelfPlayPool:
    section: OpponentSection
    snapshots: list[str] = field(default_factory=list)  # paths, oldest first
    stage: int = 0  # index into section.curriculum; len(curriculum): the final `weights`

    def stage_at(self, steps: int) -> int:
        """The curriculum stage of a run at ``steps`` learner steps."""
        stages = self.section.curriculum
        return next((i for i, s in enumerate(stages) if steps < s.until), len(stages))

    def advance(self, steps: int) -> bool:
        """Move to the stage of ``steps`` learner steps; True when the stage changed."""
        stage = self.stage_at(steps)
        changed, self.stage = stage != self.stage, stage
        return changed

    def fixed_weights(self) -> dict[str, float]:
        """The fixed agents' weights now, every other spec of the curriculum at 0."""
        stages = self.section.curriculum
        now = stages[self.stage].weights if self.stage < len(stages) else self.section.weights
        weights = {}
        for league in [*(s.weights for s in stages), self.section.weights]:
            weights.update({k: 0.0 for k in league if k not in SELF_KEYS})
        for key, w in now.items():
            if key not in SELF_KEYS and w > 0:
                weights[key] += w
        return weights

    def snapshot_spec(self, path: str) -> str:
        sampled = "" if self.section.snapshot_deterministic else ",deterministic=false"
        return f"ppo:{path}{sampled}"

    def add_snapshot(self, path: str) -> list[str]:
        """Record a new snapshot; returns the paths that fell out of the pool."""
        self.snapshots.append(str(path))
        dropped = self.snapshots[: -self.section.max_snapshots]
        self.snapshots = self.snapshots[-self.section.max_snapshots :]
        return dropped

    def pool(self) -> OpponentPool:
        weights = self.fixed_weights()
        if not self.section.curriculum:  # the pool of a league without stages, as it was
            weights = {k: w for k, w in weights.items() if w > 0}
        if self.snapshots and self.stage == len(self.section.curriculum):
            latest = self.section.weights.get(SELF_LATEST, 0.0)
            past = self.section.weights.get(SELF_PAST, 0.0)
            older = self.snapshots[:-1]
            if latest > 0:
                spec = self.snapshot_spec(self.snapshots[-1])
                weights[spec] = weights.get(spec, 0.0) + latest
            if past > 0 and older:
                for path in older:
                    spec = self.snapshot_spec(path)
                    weights[spec] = weights.get(spec, 0.0) + past / len(older)
        return OpponentPool(tuple(weights), tuple(weights.values()), self.section.same_table)

    def state(self) -> dict[str, list[str]]:
        return {"snapshots": list(self.snapshots)}

    def restore(self, state: dict[str, list[str]]) -> None:
        self.snapshots = [p for p in state.get("snapshots", []) if Path(p).exists()]
