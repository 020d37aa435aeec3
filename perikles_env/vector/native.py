"""The C++ observation encoder, legal mask and vector env (``perikles_env._native_vec``,
sources ``native/encoder.hpp``, ``native/vector_env.hpp``, ``native/vec_bindings.cpp``).
Importing this module fails with ImportError when that extension (or the engine core) is
not built; ``encoder.py`` and ``env.py`` are the modules to use.

At import its observation layout is checked block by block against
``analysis/observation.py``: a stale build refuses to load instead of encoding a different
layout.
"""

from __future__ import annotations

from ..analysis.observation import LAYOUT, OBS_SIZE, ORACLE_LAYOUT, ORACLE_SIZE
from ..engine import native as engine_native
from ..engine.actions import NUM_ACTIONS

try:  # $PERIKLES_NATIVE_VEC_PATH: a sanitizer build (tests/native/test_sanitizer.py)
    _native_vec = engine_native.load_extension("_native_vec", "PERIKLES_NATIVE_VEC_PATH")
except ImportError as exc:  # the engine core is built but not this extension
    raise ImportError(f"perikles_env._native_vec is not built: {exc}") from exc


def _check_layout() -> None:
    python_layout = [(b.name, b.size) for b in LAYOUT + ORACLE_LAYOUT]
    if [tuple(b) for b in _native_vec.layout()] != python_layout or (
        _native_vec.OBS_SIZE,
        _native_vec.ORACLE_SIZE,
        _native_vec.NUM_ACTIONS,
    ) != (OBS_SIZE, ORACLE_SIZE, NUM_ACTIONS):
        raise ImportError(
            "perikles_env._native_vec is out of date with analysis/observation.py (layout "
            "differs); rebuild it with `make native`"
        )


_check_layout()
