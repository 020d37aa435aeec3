"""The C++ observation encoder, legal mask and vector env: part of the one extension
module ``perikles_env._native`` (sources ``native/env/encoder.cpp``, ``vector_env.cpp``).
Importing this module fails with ImportError when the core is not built; ``encoder.py``
and ``env.py`` are the modules to use.

At import the build's observation layout is checked block by block against
``analysis/observation.py``, and its feature blocks against ``analysis/encoding.py``: a
stale build refuses to load instead of encoding a different layout.
"""

from __future__ import annotations

from ..analysis.encoding import FEATURE_BLOCK_NAMES
from ..analysis.observation import LAYOUT, OBS_SIZE, ORACLE_LAYOUT, ORACLE_SIZE
from ..engine import native as engine_native
from ..engine.actions import NUM_ACTIONS

_native_vec = engine_native.extension
wrap_engine = engine_native.wrap_engine


def _check_layout() -> None:
    python_layout = [(b.name, b.size) for b in LAYOUT + ORACLE_LAYOUT]
    if [tuple(b) for b in _native_vec.layout()] != python_layout or (
        _native_vec.OBS_SIZE,
        _native_vec.ORACLE_SIZE,
        _native_vec.NUM_ACTIONS,
    ) != (OBS_SIZE, ORACLE_SIZE, NUM_ACTIONS) or tuple(
        getattr(_native_vec, "feature_names", tuple)()  # absent from builds before it
    ) != FEATURE_BLOCK_NAMES:
        raise ImportError(
            "perikles_env._native is out of date with analysis/observation.py or "
            "encoding.py (layout or feature blocks differ); rebuild it with `make native`"
        )


_check_layout()
