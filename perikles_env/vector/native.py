"""The C++ observation encoder, legal mask and vector env (``perikles_env._native_vec``,
sources ``native/encoder.hpp``, ``native/vector_env.hpp``, ``native/vec_bindings.cpp``).
Importing this module fails with ImportError when that extension (or the engine core) is
not built; ``encoder.py`` and ``env.py`` are the modules to use.

At import the extension gets the same component tables as the engine core (through
``engine/native.py``'s own configuration, which also checks the state fields), and its
observation layout is checked block by block against ``analysis/observation.py``: a stale
build refuses to load instead of encoding a different layout.
"""

from __future__ import annotations

from unittest import mock

from ..analysis.observation import LAYOUT, OBS_SIZE, ORACLE_LAYOUT, ORACLE_SIZE
from ..engine import native as engine_native
from ..engine.actions import NUM_ACTIONS

try:  # $PERIKLES_NATIVE_VEC_PATH: a sanitizer build (tests/native/test_sanitizer.py)
    _native_vec = engine_native.load_extension("_native_vec", "PERIKLES_NATIVE_VEC_PATH")
except ImportError as exc:  # the engine core is built but not this extension
    raise ImportError(f"perikles_env._native_vec is not built: {exc}") from exc


def _configure() -> None:
    # engine/native.py builds the table dict and checks the field list for the module it
    # holds; pointed at this extension for one call, it configures this one identically.
    with mock.patch.object(engine_native, "_native", _native_vec):
        engine_native._configure()
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


_configure()
