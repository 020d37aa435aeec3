"""Registry entries for Gymnasium and PettingZoo, made without importing either.

``import perikles_env`` must stay light (the engine runs on the standard library alone, and
``import perikles_env.engine`` loads no numpy), yet ``gymnasium.make("Perikles-v0")`` and
``pettingzoo.make("aec", "perikles/Perikles-v0")`` must work after it. So each registration
runs when its framework is imported: at once if it already is, otherwise from a one-shot
import hook that lets the framework finish importing, then registers. Entry points are
strings, so registering imports none of our environment code.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

GYMNASIUM_ID = "Perikles-v0"
PETTINGZOO_ID = "perikles/Perikles-v0"
SINGLE_AGENT_ENTRY_POINT = "perikles_env.single_agent.env:PeriklesSingleAgentEnv"


def register_gymnasium() -> None:
    """``Perikles-v0``: the single-agent env (one learner seat, opponents from a pool);
    keyword arguments of ``gymnasium.make`` go to ``PeriklesSingleAgentEnv``."""
    import gymnasium

    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(id=GYMNASIUM_ID, entry_point=SINGLE_AGENT_ENTRY_POINT)


def register_pettingzoo() -> None:
    """``perikles/Perikles-v0`` in PettingZoo's AEC and parallel registries."""
    try:
        from pettingzoo import aec_registry, parallel_registry, register
    except ImportError:  # a PettingZoo without registries
        return
    if PETTINGZOO_ID not in aec_registry:
        register("aec", PETTINGZOO_ID, entry_point="perikles_env.perikles_v0:env")
    if PETTINGZOO_ID not in parallel_registry:
        register("parallel", PETTINGZOO_ID, entry_point="perikles_env.perikles_v0:parallel_env")


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when one of its watched top-level packages is first imported,
    it lets the other finders find it and runs the hook once the module has executed."""

    def __init__(self) -> None:
        self.hooks: dict[str, Callable[[], None]] = {}

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hook = self.hooks.pop(name, None)
        if hook is None:
            return None
        if not self.hooks:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader: Any = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:  # an unusual loader: leave its import alone, warn
            _run(lambda: _cannot_hook(name), name)
            return spec

        def exec_then_register(module: ModuleType) -> None:
            exec_module(module)
            _run(hook, name)

        loader.exec_module = exec_then_register
        return spec


def _cannot_hook(framework: str) -> None:
    raise ImportError(f"{framework}'s loader cannot be hooked; register by importing it first")


def _run(hook: Callable[[], None], framework: str) -> None:
    """A failed registration must not break the framework's own import: warn instead."""
    try:
        hook()
    except Exception as exc:  # noqa: BLE001  (reported, not hidden)
        warnings.warn(
            f"perikles_env could not register with {framework}: {exc!r}", stacklevel=2
        )


_finder = _RegisterAfterImport()


def register_when_imported(framework: str, hook: Callable[[], None]) -> None:
    """Run ``hook`` now if ``framework`` is imported, else right after its first import."""
    if framework in sys.modules:
        _run(hook, framework)
        return
    _finder.hooks[framework] = hook
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def install() -> None:
    register_when_imported("gymnasium", register_gymnasium)
    register_when_imported("pettingzoo", register_pettingzoo)
