"""Typed errors shared by the engine and the environments.

Bad input never changes state and never gets replaced by another action: callers get one
of these, with enough context (phase, player, action) to debug the call site.
"""

from __future__ import annotations


class PeriklesError(Exception):
    """Base class of every error raised on purpose by perikles_env."""


class InvalidConfigError(PeriklesError, ValueError):
    """A configuration value is unknown or out of range."""


class InvalidStateError(PeriklesError, ValueError):
    """A saved game state (``Game.from_dict``) is malformed or breaks a rule invariant.

    ``field`` names the offending entry (``"b_tokens"``, ``"cubes[7]"``, or several fields
    joined by ``/`` when only their combination is wrong); nothing is built from the input.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"invalid game state: {field}: {reason}")


class IllegalActionError(PeriklesError, ValueError):
    """An action id is not legal in the current state (the state is left unchanged)."""

    def __init__(
        self,
        phase: str,
        player: int | None,
        action: object,
        action_str: str,
        legal: list[int] | None = None,
        reason: str = "",
    ) -> None:
        self.phase = phase
        self.player = player
        self.action = action
        self.action_str = action_str
        self.legal = list(legal or [])
        shown = ", ".join(str(a) for a in self.legal[:12])
        more = "" if len(self.legal) <= 12 else f", ... ({len(self.legal)} legal)"
        why = f": {reason}" if reason else ""
        super().__init__(
            f"illegal action {action!r} ({action_str}) for player {player} in phase {phase}{why}; "
            f"legal: [{shown}{more}]"
        )


class ReadOnlyStateError(PeriklesError, TypeError):
    """A write to, or Python rule code run over, a game whose state lives in the C++ core
    (``NativeGame``). Its state changes only through ``apply_action``; build a scenario on a
    Python game and load it with ``NativeGame.from_python`` (or ``from_dict``)."""


class CoreFailureError(PeriklesError, RuntimeError):
    """The C++ core stopped in the middle of an action; the game refuses every further
    call (its state may be half-applied)."""


class ConcurrentUseError(PeriklesError, RuntimeError):
    """A second thread used a vector env while another thread was stepping it."""
