"""The C++ encoder / vector env (``perikles_env.vector.native``) or skip: like
``helpers.require_native``, a missing build fails instead when ``PERIKLES_REQUIRE_NATIVE=1``;
and the table draw the Python twins of the vector env replay."""

from __future__ import annotations

import os
from collections.abc import Sequence
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


def draw_table(policy: Any, counts: Sequence[int], seat: int | None) -> tuple[int, int]:
    """A new game's player count and learner seat, drawn from ``policy`` (an ``Rng``) in
    the order of ``native/env/vector_env.hpp``: the count only where there is a choice,
    the seat only where none is fixed."""
    n = counts[policy.randrange(len(counts))] if len(counts) > 1 else counts[0]
    return n, policy.randrange(n) if seat is None else seat
