"""Perikles as an OpenSpiel game, ``python_perikles`` (a thin adapter: no rules here).

=======================  ==================================================================
Game type                sequential, imperfect information, general-sum, terminal rewards;
                         3-5 players (parameter ``players``, default 4)
Chance                   **explicit, at the deal** (``EXPLICIT_STOCHASTIC``): the game
                         opens with 8 chance nodes of 256 equally likely outcomes, the
                         bytes of the engine's 64-bit seed; every later die, shuffle and
                         counter draw comes from the engine RNG they seed, inside
                         ``apply_action`` (see "Why" below). No player observes them
Actions                  the engine's 957 action ids (docs/actions.md), names from
                         ``action_to_str`` with seats relative to the actor
Returns                  ``reward="win"`` (winners share +1, others -1) or ``"rank"``
                         (+1 first .. -1 last), as the AEC env; both in [-1, 1]
Truncation               a game still unfinished after ``MAX_GAME_DECISIONS`` (1000)
                         decisions is terminal with returns 0 for everyone and
                         ``is_truncated()`` True (``Game.is_truncated``; so
                         ``max_game_length`` holds)
Observation tensor       the project's observation encoder (docs/observation.md), 1593
                         floats: what that player may know now (RULES F)
Information state        the same vector plus the public decision count (one float,
                         ``decisions / MAX_GAME_DECISIONS``); the string is seat, decision
                         count and a digest of the observation. Not perfect recall: the
                         encoder keeps what a player may know now, not the order of past
                         public moves
Observation string       the text board as that player may see it
resample_from_infostate  ``engine.determinize``: hidden information redrawn from what the
                         player knows; the player's information state is unchanged
Serialisation            OpenSpiel pickles a Python state's attributes; ours pickle to the
                         engine's plain ``to_dict`` data (no code of ours runs on load, but
                         ``pickle`` itself does: load only strings you wrote)
=======================  ==================================================================

Why the seed and not each die: the engine rolls dice inside ``apply_action`` during battles
whose number of rounds depends on the dice themselves, and it also shuffles decks and draws
counters there. A chance node per die would need the engine's automatic steps split at
every random draw (the engine is the one home of every rule, and stays stdlib-only and
fast), and every shuffle and counter draw would need the same. Sampled chance
(``SAMPLED_STOCHASTIC``) is not an option for a Python game that must serialise: OpenSpiel
serialises such games with ``Game::GetRNGState``, which Python games cannot implement.
Drawing the seed at explicit chance nodes keeps every source of chance in the history,
serialisable and replayable, and leaves the future dice hidden: a player's information
state never includes the seed, and ``resample_from_infostate`` reseeds the RNG. Algorithms
that enumerate chance outcomes see 2**64 deals, so they are no more practical than the
game tree's size already makes them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from ..analysis.observation import OBS_SIZE, ObservationEncoder
from ..engine import MAX_GAME_DECISIONS, NUM_ACTIONS, Game, GameConfig, new_game
from ..engine import actions as A
from ..engine import data as D
from ..engine.determinize import determinize
from ..environment.render import render_text
from ..environment.rewards import final_rewards
from ..errors import InvalidConfigError

SHORT_NAME = "python_perikles"
REWARD_MODES = ("win", "rank")  # the AEC env's modes whose returns lie in [-1, 1]
DEFAULT_PARAMS: dict[str, Any] = {"players": 4, "reward": "win"}
SEED_BYTES = 8  # chance nodes at the deal: the engine seed, one byte each

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Perikles",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=D.MAX_PLAYERS,
    min_num_players=D.MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


def _check_params(params: dict[str, Any]) -> tuple[int, str]:
    unknown = sorted(set(params) - set(DEFAULT_PARAMS))
    if unknown:
        raise InvalidConfigError(f"unknown {SHORT_NAME} parameter(s) {unknown}")
    players = params.get("players", DEFAULT_PARAMS["players"])
    reward = params.get("reward", DEFAULT_PARAMS["reward"])
    if isinstance(players, bool) or not isinstance(players, int) or not (
        D.MIN_PLAYERS <= players <= D.MAX_PLAYERS
    ):
        raise InvalidConfigError(
            f"players must be an int in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, got {players!r}"
        )
    if not isinstance(reward, str) or reward not in REWARD_MODES:
        raise InvalidConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    return players, reward


class PeriklesGame(pyspiel.Game):
    """The game: parameters and one observation encoder shared by its states (the
    encoder's caches compare engine values, so any state may use it)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        players, reward = _check_params(dict(params or {}))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=256,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_DECISIONS,
        )
        super().__init__(GAME_TYPE, info, {"players": players, "reward": reward})
        self.config = GameConfig(num_players=players, record_events=False)
        self.reward_mode = reward
        self.encoder = ObservationEncoder()

    def new_initial_state(self) -> PeriklesState:
        return PeriklesState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> PeriklesObserver:
        return PeriklesObserver(self, iig_obs_type, params)


class _Engine:
    """Holds the engine game of a dealt state. ``deepcopy`` (OpenSpiel's ``clone``) copies
    through ``Game.clone``; ``pickle`` (OpenSpiel's ``serialize``) stores the engine's plain
    ``to_dict`` data."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.game.clone())

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        return _restore_engine, (self.game.to_dict(),)


def _restore_engine(data: dict[str, Any]) -> _Engine:
    return _Engine(Game.from_dict(data))


class PeriklesState(pyspiel.State):
    def __init__(self, game: PeriklesGame) -> None:
        super().__init__(game)
        self._seed_bytes: list[int] = []
        self._engine: _Engine | None = None

    @property
    def dealt(self) -> bool:
        """False during the chance nodes of the deal."""
        return self._engine is not None

    @property
    def engine_game(self) -> Game:
        """The engine state: everything, hidden information included. Bots that must
        play fairly read it only through a ``PlayerView`` or ``determinize``."""
        if self._engine is None:
            raise RuntimeError("the game is not dealt yet (chance nodes pending)")
        return self._engine.game

    # ---- the OpenSpiel API -------------------------------------------------------------

    def current_player(self) -> int:
        if self._engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        g = self._engine.game
        if g.is_terminal or g.is_truncated:
            return int(pyspiel.PlayerId.TERMINAL)
        return g.current

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next byte of the engine seed, uniform."""
        return [(byte, 1.0 / 256) for byte in range(256)]

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine_game.legal_actions()

    def _apply_action(self, action: int) -> None:
        if self._engine is not None:
            self._engine.game.apply_action_checked(action)  # typed error, state unchanged
            return
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 256:
            raise InvalidConfigError(f"a seed byte must be an int in 0..255, got {action!r}")
        self._seed_bytes.append(action)
        if len(self._seed_bytes) == SEED_BYTES:
            seed = int.from_bytes(bytes(self._seed_bytes), "little")
            self._engine = _Engine(new_game(self.get_game().config, seed=seed))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {len(self._seed_bytes)} = {action}"
        return A.action_to_str(int(action), player, self.get_game().num_players())

    def is_terminal(self) -> bool:
        if self._engine is None:
            return False
        g = self._engine.game
        return g.is_terminal or g.is_truncated

    def is_truncated(self) -> bool:
        """Stopped by the decision limit, unfinished (returns are 0 for everyone)."""
        return self._engine is not None and self._engine.game.is_truncated

    def returns(self) -> list[float]:
        if self._engine is None or not self._engine.game.is_terminal:
            return [0.0] * self.get_game().num_players()
        return final_rewards(self._engine.game, self.get_game().reward_mode)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> PeriklesState:
        """A state drawn from those ``player_id`` cannot tell from this one
        (``engine.determinize``: hidden tiles, strengths and deck orders redrawn, the RNG
        reseeded), seeded from ``probability_sampler()`` (a uniform [0, 1) draw, e.g.
        ``pyspiel.UniformProbabilitySampler``). Its history is empty: OpenSpiel keeps
        histories on the C++ side, and the sampled past is not one we could name."""
        sample = PeriklesState(self.get_game())
        if self._engine is None:
            return sample  # nothing dealt, nothing known: the deal is still to come
        seed = int(probability_sampler() * 2**53)
        sample._engine = _Engine(determinize(self._engine.game, player_id, seed))
        return sample

    def __str__(self) -> str:
        """The full engine state (hidden information and RNG included) as JSON; the seed
        bytes drawn so far before the deal."""
        if self._engine is None:
            return f"dealing: seed bytes {self._seed_bytes}"
        return json.dumps(self._engine.game.to_dict(), separators=(",", ":"))


class PeriklesObserver:
    """OpenSpiel's observer protocol over the project's encoder. Supports what the
    encoder provides: one player's own view (public information plus his private one);
    the information-state variant adds the public decision count."""

    def __init__(self, game: PeriklesGame, iig_obs_type: Any, params: dict[str, Any] | None):
        if params:
            raise InvalidConfigError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise InvalidConfigError(
                "python_perikles observes public and the observer's own private information "
                "only (IIGObservationType(public_info=True, private_info=SINGLE_PLAYER))"
            )
        self.info_state = iig_obs_type is not None and iig_obs_type.perfect_recall
        self._encoder = game.encoder
        size = OBS_SIZE + (1 if self.info_state else 0)
        self.tensor = np.zeros(size, dtype=np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if self.info_state:
            self.dict["decisions"] = self.tensor[OBS_SIZE:]

    def set_from(self, state: PeriklesState, player: int) -> None:
        if not state.dealt:  # the deal's chance nodes: nothing to see yet
            self.tensor.fill(0.0)
            return
        game = state.engine_game
        self.tensor[:OBS_SIZE] = self._encoder.encode(game, player)
        if self.info_state:
            self.tensor[OBS_SIZE] = game.decisions / MAX_GAME_DECISIONS

    def string_from(self, state: PeriklesState, player: int) -> str:
        if not state.dealt:
            return f"seat {player} before the deal"
        game = state.engine_game
        if not self.info_state:
            return render_text(game, player)
        digest = hashlib.blake2b(
            self._encoder.encode(game, player).tobytes(), digest_size=16
        ).hexdigest()
        return f"seat {player} decision {game.decisions} observation {digest}"
