"""Config field types that several jobs' schemas share (the PPO and RLlib trainers, expert
iteration, the evaluator): counts that must be positive, agent specs that must build, an
engine the machine can run. A bad value fails at config time, before any work starts."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from perikles_env.agents import AgentError, check_plays, make_agent
from perikles_env.analysis.params import PERSONALITIES
from perikles_env.engine.backend import resolve_backend

Positive = Annotated[int, Field(gt=0)]
PositiveFloat = Annotated[float, Field(gt=0)]


def check_spec(spec: str) -> str:
    """Build the agent of a spec, so that unknown options and missing, damaged or unsafe
    ``ppo:`` model files fail at config time, before any work starts (a ``ValueError``)."""
    try:
        make_agent(spec)
    except AgentError as exc:
        raise ValueError(str(exc)) from None
    return spec


def check_league_spec(spec: str) -> str:
    """An opponent of a league: ``personalities`` (``analysis/params.py``) or a spec that
    builds (``check_spec``)."""
    return spec if spec == PERSONALITIES else check_spec(spec)


def check_spec_plays(spec: str, players: int) -> None:
    """The agent of a spec plays ``players``-player games (a ``ValueError`` in one line)."""
    try:
        check_plays(make_agent(spec), players)
    except AgentError as exc:
        raise ValueError(str(exc)) from None


Spec = Annotated[str, AfterValidator(check_spec)]  # an agent spec that builds


def check_backend(backend: str | None) -> str | None:
    """An engine the machine can run (``native`` needs the built C++ core)."""
    if backend is not None:
        resolve_backend(backend)
    return backend
