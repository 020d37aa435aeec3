"""``GameInterface``: what every engine's game offers, and the code that works on either.

Two engines implement it as siblings: ``game.Game`` (the Python reference, its state in
slots) and ``native.NativeGame`` (the C++ core, its state read out of C++). Consumers
(agents, encoders, environments) hold a ``GameInterface`` and never ask which engine it is:
where an engine can do something faster in C++ (the heuristic, the observation encoder) the
interface has a hook that does it there or answers ``None`` / ``False``, and the caller then
runs the Python reference. ``engine.new_game`` / ``load_game`` choose the engine.

The concrete methods here read only the state fields and the abstract methods, so they give
the same answers on both engines (tests/native proves the abstract ones equal).
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import IllegalActionError
from . import actions as A
from . import queries as Q
from .phases import Phase
from .state import GameConfig, GameState

if TYPE_CHECKING:
    from .game import Game

# Declared maximum number of decisions (apply_action calls) in one game, checked by the
# random-play harness (tests/engine/test_random_play.py). Measured maxima: 401 / 488 / 510
# for 3 / 4 / 5 players over 10,000 uniform-random games each (means 302 / 361 / 360), and
# 608 / 741 / 761 over 100 games of a policy that always asks permission and is always
# denied (B.7.8). 1000 leaves about 2x margin over random play. It is not a proven bound: a
# player may repeat denied permission requests for every (slot, city) pair of every commit
# step, which could in theory reach ~6,000: a game that reaches it unfinished is *truncated*
# (``is_truncated``); the environments and the evaluator record it as such.
MAX_GAME_DECISIONS = 1000

_G = TypeVar("_G", bound="GameInterface")  # the engine of the game at hand

# Feature blocks written after an observation: each (writer(game, player, out), length).
FeatureBlocks = tuple[tuple[Callable[..., Any], int], ...]


def as_int(value: Any) -> int | None:
    """An integer-like scalar (numpy integers) as an int; None for anything else."""
    try:
        return None if isinstance(value, bool) else value.__index__()
    except (AttributeError, TypeError):
        return None


class GameInterface(GameState, metaclass=ABCMeta):
    """A game of Perikles for 3-5 players on either engine (module doc)."""

    __slots__ = ()

    # ---- construction and serialisation ----------------------------------------------------

    @classmethod
    @abstractmethod
    def new(cls, config: GameConfig | None = None, seed: int | None = 0) -> GameInterface:
        """A new game on this engine (``seed``: an int in 0..2**64-1, or None)."""

    @classmethod
    @abstractmethod
    def from_dict(cls, d: dict[str, Any]) -> Any:
        """The state ``to_dict`` wrote, validated (``InvalidStateError`` names a bad field),
        on this engine."""

    @abstractmethod
    def clone(self: _G) -> _G:
        """An independent copy on the same engine."""

    # ---- play ------------------------------------------------------------------------------

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Sorted legal action ids for ``current_player``; empty only when terminal."""

    @abstractmethod
    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an int) is legal now; False for anything else."""

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply a legal action and run the automatic steps up to the next decision."""

    @abstractmethod
    def legal_mask(self, out: Any) -> None:
        """0/1 per action id into ``out`` (``NUM_ACTIONS`` long, C-contiguous bool, uint8 or
        int8, e.g. a numpy array): the observation's legal-action mask, no allocation."""

    @property
    @abstractmethod
    def event_log(self) -> list[tuple[Any, ...]]:
        """Public record of what happened (no secret information is ever logged)."""

    @property
    def num_players(self) -> int:
        return self.n

    @property
    def current_player(self) -> int | None:
        return None if self.phase == Phase.GAME_OVER else self.current

    @property
    def is_terminal(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def is_truncated(self) -> bool:
        """Unfinished after ``MAX_GAME_DECISIONS`` decisions: the environments and the
        evaluator stop such a game and record it as truncated (no winner)."""
        return self.decisions >= MAX_GAME_DECISIONS and self.phase != Phase.GAME_OVER

    def apply_action_checked(self, action: Any) -> None:
        """Apply an action after validating it; raises IllegalActionError, state unchanged."""
        if isinstance(action, bool) or not isinstance(action, int):
            if getattr(action, "ndim", 0) == 0 and as_int(action) is not None:
                action = as_int(action)  # numpy integers
            else:
                reason = f"action must be an int, got {type(action).__name__}"
                raise self.illegal_action_error(action, reason)
        if self.is_terminal:
            raise self.illegal_action_error(action, "the game is over")
        if not 0 <= action < A.NUM_ACTIONS:
            reason = f"action id out of range 0..{A.NUM_ACTIONS - 1}"
            raise self.illegal_action_error(action, reason)
        if not self.is_legal(action):
            raise self.illegal_action_error(action, "not legal now")
        self.apply_action(action)

    def illegal_action_error(self, action: Any, reason: str) -> IllegalActionError:
        """The typed error for ``action`` in this state (phase, player, legal list), with
        ``reason``; for adapters that refuse an action before it reaches the engine."""
        player = self.current_player
        text = self.action_to_str(action) if type(action) is int else repr(action)
        legal = [] if self.is_terminal else self.legal_actions()
        return IllegalActionError(self.phase.name, player, action, text, legal, reason)

    def action_to_str(self, action: int) -> str:
        actor = self.current if self.current >= 0 else None
        return A.action_to_str(action, actor, self.n)

    # ---- scoring (B.10) --------------------------------------------------------------------

    @abstractmethod
    def scores(self) -> list[int]:
        """Victory points now: cubes on the board, location tiles, statues at current value."""

    @abstractmethod
    def ranking_keys(self) -> list[tuple[int, int, int]]:
        """Per seat (VP, location VP, statue count): the B.10 order, best highest."""

    @abstractmethod
    def winners(self) -> list[int]:
        """Highest score; ties broken by location VP, then statue count, then shared."""

    def ranks(self) -> list[float]:
        """Rank per seat, 1 = best; tied seats share the mean of their places (B.10)."""
        return Q.fractional_ranks(self.ranking_keys())

    def win_shares(self) -> list[float]:
        """1/k to each of the k winners, 0 to the others (an all-way tie: 1/n each)."""
        return Q.win_shares(self.winners(), self.n)

    def win_rewards(self) -> list[float]:
        """Zero-sum: winners share +1, the others -1; an all-way tie is 0 for everyone."""
        return Q.win_rewards(self.winners(), self.n)

    # ---- rule queries about this state (engine/queries.py; C++ twins on a NativeGame) ----
    # Each checks its arguments: one out of range is a ValueError on both engines.

    @abstractmethod
    def military_knowledge(self, player: int) -> Q.MilitaryKnowledge:
        """What ``player`` knows of every counter (F)."""

    @abstractmethod
    def placement_targets(
        self, p: int, x: int, first: bool = False, skip_hoplite_only: bool = False
    ) -> list[tuple[int, int, int]]:
        """``queries.placement_targets`` of this state for player ``p``, military city ``x``."""

    @abstractmethod
    def placement_status(self, p: int, x: int, slot: int, side: int) -> int: ...

    @abstractmethod
    def class_placement_status(self, p: int, klass: int, slot: int, side: int) -> int: ...

    @abstractmethod
    def proposals(self, p: int) -> list[tuple[int, int]]:
        """The phase-3 proposals (city, nominee) player ``p`` may make (B.5)."""

    @abstractmethod
    def assassination_targets(self, first: int) -> list[tuple[int, int]]: ...

    @abstractmethod
    def plague_losses(self, city: int) -> list[int]: ...

    @abstractmethod
    def election_outcome(self, city: int) -> tuple[int, int]: ...

    @abstractmethod
    def location_vp(self, player: int) -> int: ...

    @abstractmethod
    def statue_count(self, player: int) -> int: ...

    @abstractmethod
    def statue_vp(self, player: int) -> int: ...

    @abstractmethod
    def cube_vp(self, player: int) -> int: ...

    @abstractmethod
    def round_strengths(self, slot: int, unit_type: int) -> tuple[int, int]:
        """(attack, defence) entering the CRT for a round of ``unit_type`` at ``slot`` now."""

    @abstractmethod
    def predicted_rounds(self, slot: int) -> list[tuple[int, int, int, int]]:
        """(unit type, kind, attack, defence) per round of the location at ``slot`` now."""

    def _seat_arg(self, player: Any) -> int:
        if not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"player must be a seat in 0..{self.n - 1}, got {player!r}")
        return player

    # ---- what searches need ----------------------------------------------------------------

    @abstractmethod
    def determinized(self: _G, player: int, seed: int, record: bool) -> _G:
        """A copy on the same engine with everything hidden from seat ``player`` resampled
        from ``Rng(seed)`` (the same sample on both engines); ``record``: whether the copy
        logs events. ``determinize.determinize`` checks the arguments and calls this."""

    @abstractmethod
    def random_playout(self, seed: int, max_decisions: int = 1 << 62) -> int:
        """Play ``legal[Rng(seed).randrange(len(legal))]`` until the end or ``max_decisions``
        decisions (forced ones count); returns the decisions made. The same moves on both
        engines (one C++ call on a NativeGame)."""

    @abstractmethod
    def to_python(self) -> Game:
        """An independent copy on the Python engine, whose fields are plain, writable lists
        (to edit a scenario, or to read fields many times: a NativeGame copies a field out of
        C++ at its first read after each decision)."""

    # ---- the C++ players and encoder where this engine has them (None / False: it has not,
    # ---- and the caller runs the Python reference, which gives the same answers) ----------

    @abstractmethod
    def heuristic_decide(
        self, player: int, params: tuple[float, ...], seed: Callable[[], int]
    ) -> int | None:
        """The C++ heuristic's action for ``player`` (to act), personality ``params`` (in
        ``HeuristicParams.names()`` order), tie-break seed ``seed()`` (called only when it
        decides), or None where this engine has no C++ heuristic."""

    @abstractmethod
    def heuristic_scores(self, player: int, params: tuple[float, ...]) -> list[float] | None:
        """The C++ heuristic's score of each legal action of ``player`` (to act), or None."""

    @abstractmethod
    def heuristic_playout(self, params: tuple[float, ...], seed: int, horizon: int) -> int | None:
        """The C++ heuristic plays every seat for ``horizon`` decisions with more than one
        legal action (-1: to the end), decision seeds from ``Rng(seed)``; returns the
        decisions made, or None (nothing played) where this engine has no C++ heuristic."""

    @abstractmethod
    def encode_natively(
        self, player: int, out: Any, oracle: bool = False, blocks: FeatureBlocks = ()
    ) -> bool:
        """Write ``player``'s observation into the start of ``out`` (float32, C-contiguous;
        ``oracle``: the oracle layout), then each feature block ``(writer, length)`` after
        it, in C++: True. False, with nothing written, where this engine has no C++
        encoder (the caller encodes with the Python reference, the same bytes)."""

    # ---- invariants (docs/rules.md Appendix 2) ---------------------------------------------

    def check_invariants(self) -> None:
        """Raise RuntimeError describing the first broken invariant."""
        from .invariants import check_invariants

        check_invariants(self)  # type: ignore[arg-type]
