"""Which engine backs a ``Game``: the C++ core (``native.py``) when it is built, else this
package's Python engine, the readable reference. Both give the same game for the same seed
and actions (tests/native proves it).

``backend`` is "auto" (native when built, else Python with one warning per process),
"native" (an error if not built) or "python". Left out (None), it is the environment
variable ``PERIKLES_BACKEND`` if set, else "auto": with the observation encoder and mask in
C++ too, every consumer measured is faster on the C++ core (docs/native.md has the figures).
``PERIKLES_BACKEND=python`` runs anything on the reference engine.
"""

from __future__ import annotations

import os
import warnings

from ..errors import InvalidConfigError

BACKENDS = ("auto", "native", "python")
_state: dict[str, object] = {}  # "error": why native is unusable ("" if usable); "warned"


def native_error() -> str:
    """Empty when the C++ core is usable, else why not (import error text)."""
    if "error" not in _state:
        try:
            from . import native  # noqa: F401
        except ImportError as exc:
            _state["error"] = str(exc) or type(exc).__name__
        else:
            _state["error"] = ""
    return str(_state["error"])


def native_available() -> bool:
    return not native_error()


def resolve_backend(backend: str | None) -> str:
    """``"native"`` or ``"python"``: the engine ``new_game(backend=backend)`` will use, decided
    once (same errors and warning as ``use_native``), so that an env creates every game of
    its life on the same engine."""
    return "native" if use_native(backend) else "python"


def use_native(backend: str | None) -> bool:
    """Resolve ``backend`` to True (C++ core) or False (Python engine)."""
    if backend is None:
        backend = os.environ.get("PERIKLES_BACKEND") or "auto"
        if backend not in BACKENDS:
            raise InvalidConfigError(
                f"PERIKLES_BACKEND must be one of {BACKENDS}, got {backend!r}"
            )
    elif backend not in BACKENDS:
        raise InvalidConfigError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "python":
        return False
    error = native_error()
    if not error:
        return True
    if backend == "native":
        raise InvalidConfigError(f"backend='native' but the C++ engine is unavailable: {error}")
    if not _state.get("warned"):
        _state["warned"] = True
        warnings.warn(
            "perikles_env: the C++ engine core is not available, so the Python engine is "
            f"used (slower, see docs/native.md) [{error}]. Build it with `make venv` (needs "
            "a C++20 compiler and CMake) or pass backend='python' to choose it explicitly.",
            RuntimeWarning,
            stacklevel=3,
        )
    return False
