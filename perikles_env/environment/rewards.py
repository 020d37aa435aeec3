"""Every reward an env pays, in one place: the table's and the learner's.

**Table rewards** (``final_rewards``; the AEC env, RLlib and OpenSpiel): one zero-sum
number per seat at the end of a game, for one of ``REWARD_MODES``:

* ``win``: the winners (after tie-breaks) share +1, the others share -1; if everybody wins,
  all get 0 (``Game.win_rewards``).
* ``rank``: ``1 - 2 * (rank - 1) / (n - 1)`` with tied players averaging their ranks, so
  first gets +1 and last -1.
* ``vp``: ``(VP - mean VP) / 20``.

**Learner rewards** (``RewardConfig``, ``RewardTracker``; the single-agent env, the native
vector env and imitation's returns): one seat's reward after each of its decisions. The
total over an episode is

    win * W + vp_margin * M + shaping * (sum of potential differences)

* ``W``: the learner's ``win`` table reward: ``+1/k`` as one of ``k`` tied winners,
  ``-1/(n - k)`` as a loser, 0 in an all-way tie. Sparse: only on the last step.
* ``M`` (final VP margin): ``(learner VP - best opponent VP) / vp_scale``, clipped to
  [-1, 1]. Also only on the last step, but graded: a close loss is worth more than a rout,
  which gives PPO a signal long before it wins games.
* shaping (potential-based, Ng et al. 1999): each step pays ``phi(s') - phi(s)`` with
  ``phi = (learner VP - mean opponent VP) / vp_scale`` for the VP standing *now*
  (``Game.scores``: cubes, location tiles, statues at their current value) and
  ``phi(terminal) = 0``. Its sum over an episode is ``-phi(first decision)``, close to 0,
  so it cannot change which policy is optimal; it only tells the learner sooner that a
  move gained or lost ground.

A game cut at a decision limit pays no ``W`` or ``M`` (nobody won it) and its potential is
that of the cut game. ``RewardTracker`` computes learner rewards from the VP and winners
alone (``step_scores``), so envs that hold arrays rather than a ``Game`` pay the same
numbers, to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..engine.game import Game
from ..engine.queries import win_rewards
from ..errors import InvalidConfigError

REWARD_MODES = ("win", "rank", "vp")


def final_rewards(game: Game, mode: str) -> list[float]:
    """Zero-sum end-of-game rewards per seat for one of ``REWARD_MODES``."""
    n = game.n
    scores = game.scores()
    if mode == "vp":
        mean = sum(scores) / n
        return [(s - mean) / 20 for s in scores]
    if mode == "win":
        return game.win_rewards()
    return [1 - 2 * (r - 1) / (n - 1) for r in game.ranks()]


@dataclass(frozen=True)
class RewardConfig:
    """The weights of the learner reward's three terms and the VP scale (module doc)."""

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
    """``potential`` of an unfinished game from the players' VP (one entry per player)."""
    others = (sum(scores) - scores[player]) / (len(scores) - 1)
    return (scores[player] - others) / scale


class RewardTracker:
    """Each step's reward for one learner in one game: ``step(game)`` after every decision
    the learner's step covers, or ``step_scores`` for callers holding only VP and winners
    (``from_scores`` starts one from the first decision's VP)."""

    def __init__(self, config: RewardConfig, game: Game | None, player: int) -> None:
        self.config = config
        self.player = player
        self._phi = potential(game, player, config.vp_scale) if config.shaping and game else 0.0

    @classmethod
    def from_scores(cls, config: RewardConfig, scores: Sequence[int], player: int) -> RewardTracker:
        """A tracker for a game whose VP at the learner's first decision are ``scores``."""
        tracker = cls(config, None, player)
        if config.shaping:
            tracker._phi = potential_of_scores(scores, player, config.vp_scale)
        return tracker

    def pays(self, terminated: bool) -> bool:
        """False when this step's reward is 0 whatever the VP (no shaping, game not over):
        callers may then skip reading the VP."""
        return terminated or bool(self.config.shaping)

    def step(self, game: Game) -> float:
        terminated = game.is_terminal
        if not self.pays(terminated):
            return 0.0
        winners = game.winners() if terminated and self.config.win else ()
        return self.step_scores(game.scores(), terminated, winners)

    def step_scores(
        self, scores: Sequence[int], terminated: bool, winners: Sequence[int]
    ) -> float:
        """The reward of a step after which the players' VP are ``scores`` (one entry per
        player); ``terminated``: the game ended, won by ``winners`` (B.10 tie-breaks done;
        read only when the config pays for winning). Not terminated: unfinished or cut."""
        cfg = self.config
        reward = 0.0
        if cfg.shaping:
            phi = 0.0 if terminated else potential_of_scores(scores, self.player, cfg.vp_scale)
            reward += cfg.shaping * (phi - self._phi)
            self._phi = phi
        if terminated:
            if cfg.win:
                reward += cfg.win * win_rewards(winners, len(scores))[self.player]
            if cfg.vp_margin:
                reward += cfg.vp_margin * margin_of_scores(scores, self.player, cfg.vp_scale)
        return reward
