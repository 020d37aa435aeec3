"""One learner seat against a pool of opponents, as a ``gymnasium.Env`` for single-agent RL
libraries (stable-baselines3 / sb3-contrib ``MaskablePPO``).

* **Seats.** Each episode deals a new game with ``num_players`` (fixed, or drawn from a list
  such as ``[3, 4, 5]``) and seats the learner at ``learner_seat`` (fixed, or drawn when
  ``None``). Every other seat gets an agent drawn from the ``OpponentPool``. Opponents play
  through the shared opponent loop (``table.py``: engine level, ``act_state``, each using
  only what its player may know) with the env's own seeded generator (``self.np_random``):
  the same seed gives the same episodes. If the game ends before the learner's first
  decision, a new game is dealt.
* **Observations.** The learner's observation from the environment's encoder (the same
  one ``perikles_env.env`` and the ``ppo:<path>`` agent use), as a flat ``Box``; the legal
  actions come from ``action_masks()`` (a method of this class, so it works through
  ``SubprocVecEnv.env_method``) and in ``info["action_mask"]``.
* **Rewards** are the learner's only (``RewardConfig``, ``environment/rewards.py``; never
  another seat's reward).
* **Actions** are action ids: a Python or numpy integer, or a numpy array holding one
  (shape ``()`` or ``(1,)``). Anything else (``3.7``, ``"5"``, ``True``, longer arrays) is
  an illegal action, like an id out of range or masked out (SB3's ``check_env`` samples
  unmasked actions): nothing is applied and nothing is substituted; the episode ends with
  ``terminated=True``, reward ``illegal_action_penalty`` and ``info["illegal_action"]``.
* **Truncation** after ``max_decisions`` engine decisions in one game (a safety limit far
  above real game lengths; ``engine.MAX_GAME_DECISIONS``, ``Game.is_truncated``): the
  episode ends with ``truncated=True`` and ``info["truncated"]``; nobody wins it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..analysis.encoding import Encoder
from ..engine import MAX_GAME_DECISIONS, NUM_ACTIONS, Game, GameConfig, new_game
from ..engine import data as D
from ..engine.backend import resolve_backend
from ..environment.rewards import RewardConfig, RewardTracker
from ..errors import IllegalActionError, InvalidConfigError
from ..vector.encoder import game_encoder
from .learner_table import LEARNER, AgentCache, LearnerTable, action_str
from .opponents import OpponentPool

PlayerCount = int | Sequence[int]


def _player_counts(value: PlayerCount) -> tuple[int, ...]:
    counts = (value,) if isinstance(value, int) and not isinstance(value, bool) else value
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence) or not counts:
        raise InvalidConfigError(f"num_players must be an int or a list of ints, got {value!r}")
    for n in counts:
        if isinstance(n, bool) or not isinstance(n, int) or not (
            D.MIN_PLAYERS <= n <= D.MAX_PLAYERS
        ):
            raise InvalidConfigError(
                f"num_players must be in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, got {value!r}"
            )
    return tuple(counts)


class PeriklesSingleAgentEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        num_players: PlayerCount = 4,
        learner_seat: int | None = None,
        opponents: OpponentPool | str | Sequence[str] | Mapping[str, float] = "random",
        reward: RewardConfig | dict[str, Any] | str | None = None,
        illegal_action_penalty: float = -1.0,
        max_decisions: int = MAX_GAME_DECISIONS,
        encoder: Encoder | None = None,
        render_mode: str | None = None,
        features: Sequence[str] = (),
        backend: str | None = None,
    ) -> None:
        """Every argument is optional (``gymnasium.make("Perikles-v0", **kwargs)`` passes
        them here); bad values raise ``InvalidConfigError`` naming the argument.

        * ``num_players``: 3, 4 or 5, or a list such as ``[3, 4, 5]`` to draw from per game.
        * ``learner_seat``: the learner's seat, or ``None`` to draw it per game.
        * ``opponents``: agent spec(s) for the other seats (``"random"``, ``"heuristic"``,
          ``"ismcts:..."``, ``"ppo:<path>"``, ``"personalities"``: a heuristic with knobs
          drawn for that seat): one spec, a list (equal weights), a
          ``{spec: weight}`` dict or an ``OpponentPool``; each seat draws independently.
        * ``reward``: ``"win"`` (default), ``"vp_margin"``, a dict of ``RewardConfig``
          fields (``win``, ``vp_margin``, ``shaping``, ``vp_scale``) or a
          ``RewardConfig`` (rewards.py).
        * ``illegal_action_penalty``: reward of an illegal action, which ends the episode.
        * ``max_decisions``: truncate after this many engine decisions in one game.
        * ``features``: extra observation blocks, e.g. ``["battle"]`` or ``["battle",
          "actions"]`` (``actions``: what each legal action would change,
          ``analysis/action_features.py``; docs/training.md);
          ``encoder`` replaces the whole observation encoder instead.
        * ``render_mode``: ``None``, ``"ansi"`` (text) or ``"rgb_array"`` (picture; needs
          the ``render`` extra when ``render()`` is called).
        * ``backend``: the engine of every game, ``"auto"`` | ``"native"`` | ``"python"``
          (``Game.new``'s option; left out: ``$PERIKLES_BACKEND``, else ``"auto"``).
        """
        super().__init__()
        self.player_counts = _player_counts(num_players)
        if learner_seat is not None and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, int)
            or not 0 <= learner_seat < min(self.player_counts)
        ):
            raise InvalidConfigError(
                f"learner_seat must be None or a seat below {min(self.player_counts)}, "
                f"got {learner_seat!r}"
            )
        if (
            isinstance(illegal_action_penalty, bool)
            or not isinstance(illegal_action_penalty, (int, float))
            or not math.isfinite(illegal_action_penalty)
        ):
            raise InvalidConfigError(
                f"illegal_action_penalty must be a finite number, got {illegal_action_penalty!r}"
            )
        if isinstance(max_decisions, bool) or not isinstance(max_decisions, int) or (
            max_decisions < 1
        ):
            raise InvalidConfigError(f"max_decisions must be a positive int, got {max_decisions!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidConfigError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self.fixed_seat = learner_seat
        self.pool = OpponentPool.of(opponents)
        self.reward_config = RewardConfig.from_value(reward)
        self.illegal_action_penalty = float(illegal_action_penalty)
        self.max_decisions = max_decisions
        self.encoder = encoder or game_encoder(features)
        self.render_mode = render_mode
        self.backend = resolve_backend(backend)  # "native" (C++ core) or "python"
        self.observation_space = self.encoder.space
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self._agents = AgentCache()
        self.learner = 0
        self.seat_specs: list[str] = []
        self._table: LearnerTable | None = None
        self._tracker: RewardTracker | None = None
        self._done = True
        self._mask: np.ndarray | None = None  # cached for the current decision

    @property
    def game(self) -> Game | None:
        """The episode's engine state (hidden information included; None before
        ``reset``). Assigning a game (an edited or determinized copy) plays on from it."""
        return None if self._table is None else self._table.game

    @game.setter
    def game(self, game: Game) -> None:
        if self._table is None:
            raise RuntimeError("call reset() before replacing the game")
        self._table.game = game

    # ---- pool ------------------------------------------------------------------------------

    def set_opponents(self, pool: OpponentPool | str | Sequence[str] | Mapping[str, float]) -> None:
        """Replace the opponent pool from the next episode on (self-play snapshots); the
        current episode keeps its opponents."""
        self.pool = OpponentPool.of(pool)

    # ---- gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self._agents.keep(self.pool.specs)  # e.g. a snapshot that left the pool
        while True:
            n = self.player_counts[int(rng.integers(len(self.player_counts)))]
            self.learner = (
                self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
            )
            game_seed = int(rng.integers(2**63))
            config = GameConfig(num_players=n, record_events=False)
            game = new_game(config, seed=game_seed, backend=self.backend)
            opponents = self.pool.sample(rng, n - 1)
            self.seat_specs = opponents[: self.learner] + [LEARNER] + opponents[self.learner :]
            table = LearnerTable(game, self.seat_specs, self._agents, rng, self.max_decisions)
            self._table = table
            table.play_agents()
            if not table.over:
                break  # else: the game ended before the learner's first decision; deal again
        self._tracker = RewardTracker(self.reward_config, table.game, self.learner)
        self._done = False
        self._mask = None
        return self._observe(), self._info(opponent_decisions=table.decisions)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        table, tracker = self._table, self._tracker
        if self._done or table is None or tracker is None:
            raise gym.error.ResetNeeded("call reset() before step() (the episode is over)")
        self._mask = None
        try:
            decisions = table.step(action)
        except IllegalActionError:  # the learner's, refused before anything moved
            self._done = True
            info = self._info(decisions=0)
            info["illegal_action"] = True
            info["illegal_action_str"] = action_str(table.game, action)
            return self._observe(), self.illegal_action_penalty, True, False, info
        reward = tracker.step(table.game)
        terminated = table.terminated
        truncated = not terminated and table.over
        self._done = terminated or truncated
        info = self._info(decisions=decisions)
        if self._done:
            info.update(self.outcome())
        return self._observe(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over)."""
        if self._mask is None:
            self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
            if self.game is not None and not self.game.is_terminal and not self._done:
                self._mask[self.game.legal_actions()] = True
        return self._mask.copy()

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the board as the learner may see it, and who sits where.
        ``rgb_array``: the board picture as the learner may see it (``H x W x 3`` uint8;
        needs the ``render`` extra, checked here rather than in the constructor because
        SB3's ``make_vec_env`` asks for ``rgb_array`` by default and rarely renders)."""
        if self.game is None or self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            from ..render import board_rgb
            from ..render.raster import require_rasteriser

            require_rasteriser()
            return board_rgb(self.game, viewer=self.learner)
        from ..environment.render import render_text

        seats = ", ".join(f"p{i}={spec}" for i, spec in enumerate(self.seat_specs))
        return render_text(self.game, self.learner) + f"\nseats: {seats}"

    def close(self) -> None:
        self._agents.clear()

    # ---- internals -------------------------------------------------------------------------

    def _observe(self) -> np.ndarray:
        assert self.game is not None
        return self.encoder.encode(self.game, self.learner)

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"learner_seat": self.learner, "num_players": self.game.n if self.game else 0,
                "action_mask": self.action_masks(), **extra}

    def outcome(self) -> dict[str, Any]:
        """How the episode ended for the learner (also in the last step's ``info``)."""
        assert self.game is not None and self._table is not None
        g = self.game
        scores = g.scores()
        winners = g.winners() if g.is_terminal else []
        return {
            "terminal": g.is_terminal,
            "truncated": self._table.truncated,
            "scores": scores,
            "winners": winners,
            "win_share": g.win_shares()[self.learner] if g.is_terminal else 0.0,
            "learner_vp": scores[self.learner],
            "opponents": [s for i, s in enumerate(self.seat_specs) if i != self.learner],
        }


def make_env_fn(seed: int, **kwargs: Any) -> Callable[[], PeriklesSingleAgentEnv]:
    """A factory for vectorised envs (``SubprocVecEnv([make_env_fn(seed + i, ...) ...])``);
    episodes are seeded by the first ``reset(seed=...)`` (SB3: ``VecEnv.seed``)."""

    def _init() -> PeriklesSingleAgentEnv:
        env = PeriklesSingleAgentEnv(**kwargs)
        env.action_space.seed(seed)
        return env

    return _init
