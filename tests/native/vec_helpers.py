"""The C++ encoder / vector env (``perikles_env.vector.native``) or skip: like
``helpers.require_native``, a missing build fails instead when ``PERIKLES_REQUIRE_NATIVE=1``."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.native.helpers import require_native


def require_native_vec() -> Any:
    """``perikles_env.vector.native`` (after ``require_native``), or skip."""
    require_native()
    try:
        from perikles_env.vector import native
    except ImportError as exc:
        if os.environ.get("PERIKLES_REQUIRE_NATIVE") == "1":
            raise
        pytest.skip(f"the C++ vector env is not built: {exc}", allow_module_level=True)
    return native
