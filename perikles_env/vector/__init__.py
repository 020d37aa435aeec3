"""Batched vector environment and the C++ observation encoder (docs/native.md).

Needs the C++ extensions (``make native``); importing ``VectorEnv`` without them raises
ImportError. ``encoder.BackendEncoder`` works everywhere (Python encoder as fallback)."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_NUM_ENVS", "MAX_THREADS", "VecState", "VectorEnv"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import env

        return getattr(env, name)
    raise AttributeError(name)
