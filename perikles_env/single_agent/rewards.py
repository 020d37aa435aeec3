"""Rewards of the single-agent wrapper, always from the learner's point of view.

The total reward of an episode is

    win * W + vp_margin * M + shaping * (sum of potential differences)

* ``W`` (zero-sum win reward, B.10): ``+1/k`` when the learner is one of ``k`` tied
  winners, ``-1/(n - k)`` when it loses (``n`` players), i.e. the learner's share of
  "winners share +1, losers share -1" (``Game.win_rewards``; an all-way tie gives 0).
  Sparse: only on the last step.
* ``M`` (final VP margin): ``(learner VP - best opponent VP) / vp_scale``, clipped to
  [-1, 1]. Also only on the last step, but graded: a close loss is worth more than a rout,
  which gives PPO a signal long before it wins games.
* shaping (potential-based, Ng et al. 1999): each step pays ``phi(s') - phi(s)`` with
  ``phi = (learner VP - mean opponent VP) / vp_scale`` for the VP standing *now*
  (``Game.scores``: cubes, location tiles, statues at their current value) and
  ``phi(terminal) = 0``. Its sum over an episode is ``-phi(first decision)``, close to 0,
  so it cannot change which policy is optimal; it only tells the learner sooner that a
  move gained or lost ground.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..engine.game import Game
from ..errors import InvalidConfigError


@dataclass(frozen=True)
class RewardConfig:
    win: float = 1.0
    vp_margin: float = 0.0
    shaping: float = 0.0
    vp_scale: float = 10.0

    def __post_init__(self) -> None:
        for name in ("win", "vp_margin", "shaping", "vp_scale"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                raise InvalidConfigError(f"reward.{name} must be a finite number, got {value!r}")
        if self.vp_scale <= 0:
            raise InvalidConfigError(f"reward.vp_scale must be > 0, got {self.vp_scale!r}")
        if self.win == 0 and self.vp_margin == 0:
            raise InvalidConfigError("reward.win and reward.vp_margin cannot both be 0")

    @classmethod
    def from_value(cls, value: RewardConfig | dict[str, Any] | str | None) -> RewardConfig:
        """Accepts a RewardConfig, a dict of its fields, or the names ``win``/``vp_margin``."""
        if value is None:
            return cls()
        if isinstance(value, RewardConfig):
            return value
        if value == "win":
            return cls()
        if value == "vp_margin":
            return cls(win=0.0, vp_margin=1.0)
        if isinstance(value, dict):
            unknown = set(value) - set(asdict(cls()))
            if unknown:
                raise InvalidConfigError(
                    f"unknown reward key(s) {sorted(unknown)}; known: {sorted(asdict(cls()))}"
                )
            return cls(**value)
        raise InvalidConfigError(f"reward must be 'win', 'vp_margin' or a dict, got {value!r}")


def win_reward(game: Game, player: int) -> float:
    """The player's share of 'winners share +1, losers share -1' (0-sum over players)."""
    return game.win_rewards()[player]


def vp_margin(game: Game, player: int, scale: float) -> float:
    return margin_of_scores(game.scores(), player, scale)


def margin_of_scores(scores: Sequence[int], player: int, scale: float) -> float:
    """``vp_margin`` from the players' VP (one entry per player)."""
    best_other = max(s for p, s in enumerate(scores) if p != player)
    return max(-1.0, min(1.0, (scores[player] - best_other) / scale))


def potential(game: Game, player: int, scale: float) -> float:
    """VP lead over the mean opponent now; 0 at the end of the game (see module doc)."""
    if game.is_terminal:
        return 0.0
    return potential_of_scores(game.scores(), player, scale)


def potential_of_scores(scores: Sequence[int], player: int, scale: float) -> float:
    """``potential`` of an unfinished game from the players' VP (one entry per player):
    for callers that hold scores, not a game (the native vector env)."""
    others = (sum(scores) - scores[player]) / (len(scores) - 1)
    return (scores[player] - others) / scale


class RewardTracker:
    """Computes each step's reward for one learner in one game."""

    def __init__(self, config: RewardConfig, game: Game, player: int) -> None:
        self.config = config
        self.player = player
        self._phi = self._potential(game) if config.shaping else 0.0

    def _potential(self, game: Game) -> float:
        return potential(game, self.player, self.config.vp_scale)

    def step(self, game: Game) -> float:
        cfg = self.config
        reward = 0.0
        if cfg.shaping:
            phi = self._potential(game)
            reward += cfg.shaping * (phi - self._phi)
            self._phi = phi
        if game.is_terminal:
            if cfg.win:
                reward += cfg.win * win_reward(game, self.player)
            if cfg.vp_margin:
                reward += cfg.vp_margin * vp_margin(game, self.player, cfg.vp_scale)
        return reward
