"""PettingZoo AEC environment over the engine (a thin adapter: no rules here).

=====================  =================================================================
Agents                 ``player_0 .. player_{n-1}`` in seat order, n = 3, 4 or 5
Turn order             the engine's ``current_player`` (not round-robin: interrupts for
                       permission, battle specials and casualty choices)
Action space           ``Discrete(NUM_ACTIONS)`` (957), same for every player count;
                       ranges in docs/actions.md; seat arguments relative to the actor
Observation space      ``Dict(observation=Box(float32, OBS_SIZE), action_mask=Box(int8))``,
                       same for every player count; layout in docs/observation.md
Rewards                only at the end; ``reward="win"`` | ``"rank"`` | ``"vp"`` (``rewards.py``)
Illegal actions        ``illegal_action="raise"`` (default): IllegalActionError, nothing
                       changes; ``"penalize"``: the game ends, offender gets
                       ``illegal_penalty``, everyone else 0
Truncation             all agents truncated (rewards 0) when the game reaches the engine's
                       ``MAX_GAME_DECISIONS`` unfinished (``Game.is_truncated``) or after
                       ``max_cycles * n`` decisions when ``max_cycles`` is set
State                  ``state()``: the full state (hidden information included) as one
                       vector in absolute seat order, for centralised critics
Options                ``oracle=True`` adds hidden information to observations (debugging,
                       privileged critics); ``seed``; ``record_events``; ``max_cycles``;
                       ``backend`` ("auto" | "native" | "python", as ``Game.new``)
Version                v0: first release
=====================  =================================================================

The reward modes (all zero-sum over the players) are defined in ``rewards.py``, shared with
the RLlib and OpenSpiel adapters.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..analysis.observation import CLIP, observation_size
from ..engine import NUM_ACTIONS, Game, GameConfig, load_game, new_game
from ..engine.backend import resolve_backend
from ..engine.determinize import determinize as _determinize
from ..errors import IllegalActionError, InvalidConfigError
from ..render import board_rgb
from ..render.raster import require_rasteriser
from ..vector.encoder import BackendEncoder, legal_mask
from .render import render_text, turn_end_frames
from .rewards import REWARD_MODES, final_rewards

ILLEGAL_MODES = ("raise", "penalize")


def _check_seed(seed: Any) -> None:
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise InvalidConfigError(f"seed must be None or an int >= 0, got {seed!r}")


def _check_options(oracle: Any, seed: Any, illegal_penalty: Any, max_cycles: Any) -> None:
    """Type-check the options that a loose check would misread (``oracle="no"`` is truthy,
    a float seed would be truncated): a typed error naming the option, nothing built."""
    if not isinstance(oracle, bool):
        raise InvalidConfigError(f"oracle must be True or False, got {oracle!r}")
    _check_seed(seed)
    if isinstance(illegal_penalty, bool) or not isinstance(
        illegal_penalty, (int, float, np.integer, np.floating)
    ) or not np.isfinite(illegal_penalty):
        raise InvalidConfigError(
            f"illegal_penalty must be a finite number, got {illegal_penalty!r}"
        )
    if max_cycles is not None and (
        isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
    ):
        raise InvalidConfigError(f"max_cycles must be None or an int >= 1, got {max_cycles!r}")


class raw_env(AECEnv):  # noqa: N801  (PettingZoo naming convention)
    metadata = {
        "name": "perikles_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        reward: str = "win",
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        oracle: bool = False,
        seed: int | None = None,
        record_events: bool = True,
        max_cycles: int | None = None,
        backend: str | None = None,
    ) -> None:
        super().__init__()
        _check_options(oracle, seed, illegal_penalty, max_cycles)
        self.config = GameConfig(num_players=num_players, record_events=record_events)
        if not isinstance(reward, str) or reward not in REWARD_MODES:
            raise InvalidConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_MODES:
            raise InvalidConfigError(
                f"illegal_action must be one of {ILLEGAL_MODES}, got {illegal_action!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidConfigError(
                f"render_mode must be None, 'ansi', 'human' or 'rgb_array', got {render_mode!r}"
            )
        if render_mode == "rgb_array":
            require_rasteriser()  # fail now, not at the first frame
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.oracle = oracle
        self.max_cycles = max_cycles
        self.backend = resolve_backend(backend)  # "native" (C++ core) or "python"
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        size = observation_size(self.oracle)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 4.0, shape=(size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(-1.0, CLIP, shape=(observation_size(True),), dtype=np.float32)
        self._seed_rng = np.random.default_rng(seed)
        self.game: Game | None = None
        self._encoder = BackendEncoder(self.oracle)
        self._state_encoder = BackendEncoder(oracle=True)
        self._mask: np.ndarray | None = None

    # ---- spaces ------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- lifecycle -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        _check_seed(seed)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(0, 2**63))
        self.game = new_game(self.config, seed=game_seed, backend=self.backend)
        self.turn_end_frames: list[np.ndarray] = []  # rgb_array: boards at ends of turns
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current]
        self._after_move()

    def _after_move(self) -> None:
        """Point agent_selection at the engine's decider and build its mask (once per
        decision; ``info["action_mask"]`` gets its own copy)."""
        game = self._require_game()
        self.infos[self.agent_selection].pop("action_mask", None)
        if game.current < 0:
            self._mask = None
            return
        mask = self._mask = legal_mask(game)  # in C++ for a NativeGame
        agent = self.agent_selection = self.possible_agents[game.current]
        self.infos[agent]["action_mask"] = mask.copy()

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent`` (a new array each call) and its legal-action mask,
        all zeros unless ``agent`` is the one to act."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        seat = self.agent_name_mapping[agent]
        mask = self._mask
        if seat == game.current and mask is not None:
            mask = mask.copy()
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self._encoder.encode(game, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full state as one vector (``state_space``), for centralised critics: the
        oracle observation of seat 0, i.e. every public block in absolute seat order plus
        all hidden information (every special tile, hand and face-down counter). Deck
        orders and the RNG (future chance) are not in it. Never give it to a policy that
        must play fairly."""
        return self._state_encoder.encode(self._require_game(), 0)

    def step(self, action: Any) -> None:
        """Apply ``action`` for ``agent_selection`` (the engine's current player). After the
        game ends, each agent is stepped with ``None`` to remove it, as usual in
        PettingZoo; anything else is an error."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        agent = self.agent_selection
        if not self.agents:
            raise self._error(game, agent, action, "the game is over and every agent is done")
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise self._error(
                    game, agent, action, f"{agent} is done; the only valid action is None"
                )
            self._was_dead_step(action)
            return
        mask = self._mask
        if type(action) is int and mask is not None and 0 <= action < NUM_ACTIONS and mask[action]:
            action_id = action  # the common case, checked inline
        else:
            checked = self._validate(game, agent, action)
            if checked is None:
                return  # penalized: the game is over
            action_id = checked
        if self.render_mode == "rgb_array":  # the boards between decisions, for videos
            self.turn_end_frames = turn_end_frames(game, action_id)
        game.apply_action(action_id)
        self._cumulative_rewards[agent] = 0.0  # rewards come only at the end
        if game.current < 0:
            self._finish(final_rewards(game, self.reward_mode))
        elif self._out_of_time(game):
            self._finish([0.0] * game.n, truncated=True)
        else:
            self._after_move()
        if self.render_mode == "human":
            self.render()

    def act(self, agent: str, action: Any) -> None:
        """``step(action)`` after checking that it is ``agent``'s turn: for loops that keep
        one policy per agent and want acting out of turn to fail loudly."""
        game = self._require_game()
        if agent not in self.agent_name_mapping:
            raise self._error(game, agent, action, f"unknown agent {agent!r}")
        if agent != self.agent_selection:
            raise self._error(
                game, agent, action, f"not {agent}'s turn ({self.agent_selection} is to act)"
            )
        self.step(action)

    def _error(self, game: Game, agent: str, action: Any, reason: str) -> IllegalActionError:
        error = game.illegal_action_error(action, f"{agent}: {reason}")
        error.agent = agent  # type: ignore[attr-defined]
        return error

    def _validate(self, game: Game, agent: str, action: Any) -> int | None:
        """The action as an int if legal; raise or penalize otherwise (never substitute).
        Non-integers always raise (a bug in the caller, not a move); in ``"penalize"`` mode
        out-of-range and illegal ids end the game."""
        if type(action) is not int:
            if isinstance(action, np.integer) or (
                isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
            ):
                action = int(action)
            else:
                raise self._error(
                    game, agent, action, f"action must be an int, got {type(action).__name__}"
                )
        mask = self._mask
        if mask is not None and 0 <= action < NUM_ACTIONS and mask[action]:
            return action
        if 0 <= action < NUM_ACTIONS:
            reason = "not legal now"
        else:
            reason = f"action id out of range 0..{NUM_ACTIONS - 1}"
        error = self._error(game, agent, action, reason)
        if self.illegal_action == "raise":
            raise error
        seat = self.agent_name_mapping[agent]
        rewards = [0.0] * game.n
        rewards[seat] = self.illegal_penalty
        for a in self.agents:
            self.infos[a]["illegal_action"] = {"agent": agent, "action": action, "reason": reason}
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        self._finish(rewards)
        return None

    def _out_of_time(self, game: Game) -> bool:
        """The engine's decision limit (``Game.is_truncated``) or ``max_cycles`` reached."""
        if game.is_truncated:
            return True
        return self.max_cycles is not None and game.decisions >= self.max_cycles * game.n

    def _finish(self, rewards: list[float], truncated: bool = False) -> None:
        """End the episode for every agent with these rewards: terminated (game over or
        penalty) or truncated (time limit; ``info["truncated"]`` says which limit)."""
        game = self._require_game()
        self._mask = None
        scores = game.scores()
        winners = game.winners() if game.is_terminal else []
        done = self.truncations if truncated else self.terminations
        for a in self.agents:
            self.rewards[a] = rewards[self.agent_name_mapping[a]]
            done[a] = True
            self.infos[a].pop("action_mask", None)
            self.infos[a]["scores"] = scores[:]
            self.infos[a]["winners"] = winners[:]
            if truncated:
                self.infos[a]["truncated"] = (
                    "max_game_decisions" if game.is_truncated else "max_cycles"
                )
        self._accumulate_rewards()

    # ---- extras --------------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        """The text board from the view of ``agent_selection`` (hidden information hidden):
        returned for ``"ansi"``, printed for ``"human"``; for ``"rgb_array"`` the board
        picture with public information only (``H x W x 3`` uint8), for videos. A video of
        one frame per decision misses how a turn ended (battles run inside a step): after
        each step, ``turn_end_frames`` holds the boards at the ends of turns it passed."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return board_rgb(self._require_game(), viewer=None)
        text = self.board()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def board(self, agent: str | None = None) -> str:
        """The text board as ``agent`` may see it (default: the agent to act), whatever the
        render mode."""
        self._require_game()
        agent = self.agent_selection if agent is None else agent
        return render_text(self._require_game(), self.agent_name_mapping[agent])

    def close(self) -> None:
        pass

    def action_to_str(self, action: int) -> str:
        return self._require_game().action_to_str(int(action))

    def determinize(self, player: int | str, rng: Any) -> Game:
        """Engine state sampled from what ``player`` may know (see engine/determinize.py)."""
        seat = self.agent_name_mapping[player] if isinstance(player, str) else int(player)
        return _determinize(self._require_game(), seat, rng)

    def clone_state(self) -> dict[str, Any]:
        """Cheap snapshot of the game and the AEC bookkeeping, for ``restore_state``."""
        return {
            "game": self._require_game().clone(),
            "seed_rng": copy.deepcopy(self._seed_rng.bit_generator.state),
            "aec": copy.deepcopy(self._aec_state()),
        }

    def restore_state(self, state: dict[str, Any]) -> None:
        self.game = state["game"].clone()
        self._encoder.reset()
        self._seed_rng.bit_generator.state = copy.deepcopy(state["seed_rng"])
        self._set_aec_state(copy.deepcopy(state["aec"]))

    def _aec_state(self) -> dict[str, Any]:
        names = (
            "agents",
            "rewards",
            "_cumulative_rewards",
            "terminations",
            "truncations",
            "infos",
            "agent_selection",
        )
        return {name: getattr(self, name) for name in names if name in self.__dict__}

    def _set_aec_state(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._mask = self._live_mask()

    def _live_mask(self) -> np.ndarray | None:
        """The mask of the agent to act, or None when nobody is (game over, penalized or
        truncated)."""
        game = self.game
        if game is None or game.current < 0 or not self.agents:
            return None
        agent = self.agent_selection
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            return None
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        return mask

    # ---- pickle / deepcopy: preserve the game exactly (PettingZoo #1307, #1186) ----------------

    def __getstate__(self) -> dict[str, Any]:
        skip = ("game", "_encoder", "_state_encoder", "_mask")
        state = {k: v for k, v in self.__dict__.items() if k not in skip}
        state["game"] = None if self.game is None else self.game.to_dict()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        game = state.pop("game")
        self.__dict__.update(state)
        self.game = None if game is None else load_game(game, backend=self.backend)
        self._encoder = BackendEncoder(self.oracle)
        self._state_encoder = BackendEncoder(oracle=True)
        self._mask = self._live_mask()
