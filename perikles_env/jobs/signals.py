"""Stopping long jobs cleanly on SIGINT (Ctrl-C) and SIGTERM (``kill``, schedulers).

Why: killing the trainer used to lose everything since the last periodic checkpoint, and
a killed evaluation left nothing saying it was incomplete. Training listens while PPO
learns: a signal only sets ``StopRequest.signal``, ``StopCallback`` ends PPO's loop at the
next step and the trainer saves a final checkpoint. Anywhere else (setup, pretraining,
evaluation) the signal raises ``KeyboardInterrupt(<signal name>)`` at once, and the job
marks its run folder ``interrupted`` on the way out.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def exit_code(signal_name: str) -> int:
    """The shell's convention: 128 + the signal number (130 SIGINT, 143 SIGTERM)."""
    return 128 + int(getattr(signal, signal_name or "SIGINT", signal.SIGINT))


class StopRequest:
    """A stop asked for from outside: SIGINT / SIGTERM while ``listening()``; with
    ``learning`` set it is only recorded, otherwise it raises ``KeyboardInterrupt``."""

    def __init__(self) -> None:
        self.signal = ""
        self.learning = False

    def _handle(self, signum: int, frame: Any) -> None:
        self.signal = signal.Signals(signum).name
        if not self.learning:
            raise KeyboardInterrupt(self.signal)

    @contextmanager
    def listening(self) -> Iterator[StopRequest]:
        """Handle SIGINT and SIGTERM inside the block (main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
