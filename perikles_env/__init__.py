"""perikles_env: a reinforcement-learning environment for the board game Perikles.

``perikles_env.engine`` (the rules) needs only the standard library; ``env``/``raw_env``
(the PettingZoo environment) are imported on first use, so the engine works without numpy.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["env", "raw_env", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("env", "raw_env"):
        import importlib

        return getattr(importlib.import_module("perikles_env.environment"), name)
    raise AttributeError(f"module 'perikles_env' has no attribute {name!r}")
