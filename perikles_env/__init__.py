"""perikles_env: a reinforcement-learning environment for the board game Perikles.

``perikles_env.engine`` (the rules) needs only the standard library; ``env``/``raw_env``
(the PettingZoo environment) and ``perikles_v0`` are imported on first use, so the engine
works without numpy. Importing this package registers ``Perikles-v0`` with Gymnasium and
``perikles/Perikles-v0`` with PettingZoo as soon as either is imported (registration.py).
"""

from __future__ import annotations

from typing import Any

from . import registration

__version__ = "0.1.0"
__all__ = ["env", "perikles_v0", "raw_env", "__version__"]

registration.install()


def __getattr__(name: str) -> Any:
    import importlib

    if name in ("env", "raw_env"):
        return getattr(importlib.import_module("perikles_env.environment"), name)
    if name == "perikles_v0":
        return importlib.import_module("perikles_env.perikles_v0")
    raise AttributeError(f"module 'perikles_env' has no attribute {name!r}")
