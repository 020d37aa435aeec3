"""The user's own agent, by import path: ``python:<module>:<callable>`` or
``python:<path/to/file.py>:<callable>``. The callable takes no arguments and returns an
``Agent`` (``act_state(game, player, rng) -> action id``), or a PettingZoo-style policy
``policy(observation, action_mask) -> action`` that ``PolicyAgent`` adapts. Loaded by import
in every process that plays (worker processes too), so no registration is needed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .base import Agent, AgentError, mask_from_legal


class PolicyAgent(Agent):
    """Adapter for a PettingZoo-style policy ``policy(observation, action_mask) -> action``:
    the observation is the one ``perikles_v0`` gives the seat (default features), the mask
    a 0/1 array over every action id."""

    name = "python"

    def __init__(self, policy: Callable[[Any, np.ndarray], Any], ref: str = "") -> None:
        self.policy = policy
        self.ref = ref
        self._encode: Any = None

    def act_state(self, game: Any, player: int, rng: np.random.Generator) -> int:
        from ..engine import NUM_ACTIONS
        from ..vector.encoder import game_encoder

        if self._encode is None:
            self._encode = game_encoder().encode
        mask = mask_from_legal(game.legal_actions(), NUM_ACTIONS)
        return int(self.policy(self._encode(game, player), mask))

    def describe(self) -> str:
        return f"python:{self.ref}" if self.ref else self.name


def load_callable(ref: str) -> Callable[..., Any]:
    """``module:callable`` or ``path/to/file.py:callable`` -> the callable (``AgentError``
    naming the problem when it cannot be found)."""
    target, sep, attr = ref.rpartition(":")
    if not sep or not target or not attr:
        raise AgentError(f"python agent needs <module or file.py>:<callable>, got {ref!r}")
    try:
        if target.endswith(".py"):
            path = Path(target).resolve()
            if not path.is_file():
                raise AgentError(f"python agent file {target!r} does not exist")
            name = f"perikles_user_agent_{abs(hash(str(path)))}"
            module = sys.modules.get(name)
            if module is None:
                spec = importlib.util.spec_from_file_location(name, path)
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except AgentError:
        raise
    except Exception as exc:  # the user's code: any error is a bad spec
        raise AgentError(f"cannot load python agent {ref!r}: {type(exc).__name__}: {exc}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentError(f"python agent {ref!r}: {attr!r} is not a callable of {target!r}")
    return factory


def make_user_agent(path: str = "", **kw: Any) -> Agent:
    """The agent of ``python:<ref>``: the callable's ``Agent``, or its policy adapted."""
    if kw:
        raise AgentError(f"python agents take no options, got {sorted(kw)}")
    made = load_callable(path)()
    if isinstance(made, Agent):
        return made
    if callable(made):
        return PolicyAgent(made, path)
    raise AgentError(f"python agent {path!r} returned {type(made).__name__}, not an Agent")
