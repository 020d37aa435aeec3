"""One learner seat against a pool of opponents, as a ``gymnasium.Env`` for single-agent RL
libraries (stable-baselines3 / sb3-contrib ``MaskablePPO``).

* **Seats.** Each episode deals a new game with ``num_players`` (fixed, or drawn from a list
  such as ``[3, 4, 5]``) and seats the learner at ``learner_seat`` (fixed, or drawn when
  ``None``). Every other seat gets an agent drawn from the ``OpponentPool``. Opponents play
  at the engine level (``act_state``) on a copy of the game, each using only what its
  player may know, with the env's own seeded generator (``self.np_random``): the same seed
  gives the same episodes. If the game ends before the learner's first decision, a new
  game is dealt.
* **Observations.** The learner's observation from the environment's encoder (the same
  one ``perikles_env.env`` and the ``ppo:<path>`` agent use), as a flat ``Box``; the legal
  actions come from ``action_masks()`` (a method of this class, so it works through
  ``SubprocVecEnv.env_method``) and in ``info["action_mask"]``.
* **Rewards** are the learner's only (``rewards.py``; never another seat's reward).
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

from ..agents import Agent, AgentError, game_for, make_agent
from ..analysis.encoding import Encoder
from ..engine import MAX_GAME_DECISIONS, NUM_ACTIONS, Game, GameConfig
from ..engine import data as D
from ..engine.backend import resolve_backend
from ..errors import InvalidConfigError
from ..vector.encoder import game_encoder
from .opponents import OpponentPool
from .rewards import RewardConfig, RewardTracker

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
          ``"ismcts:..."``, ``"ppo:<path>"``): one spec, a list (equal weights), a
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
        self._agents: dict[str, Agent] = {}
        self.game: Game | None = None
        self.learner = 0
        self.seat_specs: list[str] = []
        self._tracker: RewardTracker | None = None
        self._decisions = 0
        self._done = True
        self._mask: np.ndarray | None = None  # cached for the current decision

    # ---- pool ------------------------------------------------------------------------------

    def set_opponents(self, pool: OpponentPool | str | Sequence[str] | Mapping[str, float]) -> None:
        """Replace the opponent pool from the next episode on (self-play snapshots); the
        current episode keeps its opponents."""
        self.pool = OpponentPool.of(pool)

    def _agent(self, spec: str) -> Agent:
        agent = self._agents.get(spec)
        if agent is None:
            agent = self._agents[spec] = make_agent(spec)
        return agent

    # ---- gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        for spec in [s for s in self._agents if s not in self.pool.specs]:
            del self._agents[spec]  # e.g. a snapshot that left the pool
        while True:
            n = self.player_counts[int(rng.integers(len(self.player_counts)))]
            self.learner = (
                self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
            )
            game_seed = int(rng.integers(2**63))
            config = GameConfig(num_players=n, record_events=False)
            self.game = Game.new(config, seed=game_seed, backend=self.backend)
            opponents = self.pool.sample(rng, n - 1)
            self.seat_specs = opponents[: self.learner] + ["learner"] + opponents[self.learner :]
            for spec in set(opponents):
                self._agent(spec).reset()
            self._decisions = 0
            self._play_opponents()
            if not self.game.is_terminal and not self._truncated():
                break  # else: the game ended before the learner's first decision; deal again
        self._tracker = RewardTracker(self.reward_config, self.game, self.learner)
        self._done = False
        self._mask = None
        return self._observe(), self._info(opponent_decisions=self._decisions)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done or self.game is None or self._tracker is None:
            raise gym.error.ResetNeeded("call reset() before step() (the episode is over)")
        game = self.game
        self._mask = None
        action_id = action_id_of(action)
        if action_id is None or not game.is_legal(action_id):
            self._done = True
            info = self._info(decisions=0)
            info["illegal_action"] = True
            info["illegal_action_str"] = self._action_str(action)
            return self._observe(), self.illegal_action_penalty, True, False, info
        game.apply_action(action_id)
        before = self._decisions
        self._decisions += 1
        self._play_opponents()
        reward = self._tracker.step(game)
        terminated = game.is_terminal
        truncated = self._truncated()
        self._done = terminated or truncated
        info = self._info(decisions=self._decisions - before)
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

    def _play_opponents(self) -> None:
        """Let opponents act until the learner must decide or the game is over."""
        game = self.game
        assert game is not None
        rng = self.np_random
        while not game.is_terminal and game.current != self.learner:
            if self._truncated():
                return
            seat = game.current
            agent = self._agent(self.seat_specs[seat])
            action = agent.act_state(game_for(agent, game), seat, rng)
            if not game.is_legal(action):
                raise AgentError(
                    f"opponent {self.seat_specs[seat]!r} at seat {seat} chose illegal action "
                    f"{action!r} ({self._action_str(action)}) in phase {game.phase.name}"
                )
            game.apply_action(action)
            self._decisions += 1

    def _truncated(self) -> bool:
        """Unfinished at this env's decision limit (or the engine's, ``Game.is_truncated``)."""
        assert self.game is not None
        game = self.game
        return not game.is_terminal and (self._decisions >= self.max_decisions or game.is_truncated)

    def _action_str(self, action: Any) -> str:
        action_id = action_id_of(action)
        if action_id is None or not 0 <= action_id < NUM_ACTIONS:
            return repr(action)
        assert self.game is not None
        return self.game.action_to_str(action_id)

    def _observe(self) -> np.ndarray:
        assert self.game is not None
        return self.encoder.encode(self.game, self.learner)

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"learner_seat": self.learner, "num_players": self.game.n if self.game else 0,
                "action_mask": self.action_masks(), **extra}

    def outcome(self) -> dict[str, Any]:
        """How the episode ended for the learner (also in the last step's ``info``)."""
        assert self.game is not None
        g = self.game
        scores = g.scores()
        winners = g.winners() if g.is_terminal else []
        return {
            "terminal": g.is_terminal,
            "truncated": self._truncated(),
            "scores": scores,
            "winners": winners,
            "win_share": g.win_shares()[self.learner] if g.is_terminal else 0.0,
            "learner_vp": scores[self.learner],
            "opponents": [s for i, s in enumerate(self.seat_specs) if i != self.learner],
        }


def action_id_of(action: Any) -> int | None:
    """The action id in ``action`` (an int, a numpy integer, or an integer array of shape
    ``()`` or ``(1,)``); None for anything else (floats, strings, bools, other shapes)."""
    if isinstance(action, np.ndarray):
        if action.shape not in ((), (1,)) or action.dtype.kind not in "iu":
            return None
        action = action.reshape(())[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return None
    return int(action)


def make_env_fn(seed: int, **kwargs: Any) -> Callable[[], PeriklesSingleAgentEnv]:
    """A factory for vectorised envs (``SubprocVecEnv([make_env_fn(seed + i, ...) ...])``);
    episodes are seeded by the first ``reset(seed=...)`` (SB3: ``VecEnv.seed``)."""

    def _init() -> PeriklesSingleAgentEnv:
        env = PeriklesSingleAgentEnv(**kwargs)
        env.action_space.seed(seed)
        return env

    return _init
