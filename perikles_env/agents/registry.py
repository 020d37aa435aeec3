"""Agents by name, so tools and configs can say ``heuristic:aggression=0.8``.

Spec grammar: ``name`` or ``name:key=value,key=value``. ``ppo:<path>`` and
``rllib:<path>`` (needs the ``rllib`` extra) take a checkpoint path instead (optionally
followed by ``,deterministic=false``; ``ppo`` alone: the shipped ``make train`` model,
``agents/ppo.py`` ``SHIPPED_PPO``); ``net`` / ``net:<path>`` a search network file
(none: the shipped one); ``search:model=<path>,sims=64`` the search over it (no ``model``:
the shipped network; every other key is a ``SearchParams`` setting; torch runs on one
thread, as for ``net``); ``python:<module or file.py>:<callable>`` the user's own agent
(``user_agent.py``). Values are parsed as int, float, bool (``true``/``false``) or left
as strings. Unknown names or keys raise ``AgentError``. ``register_agent`` adds a factory
under a new name.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .base import Agent, AgentError

Factory = Callable[..., Agent]


def _random(**kw: Any) -> Agent:
    from .random_agent import RandomAgent

    if kw:
        raise AgentError(f"random takes no options, got {sorted(kw)}")
    return RandomAgent()


def _heuristic(**kw: Any) -> Agent:
    from .heuristic import HeuristicAgent, HeuristicParams

    unknown = set(kw) - set(HeuristicParams.names())
    if unknown:
        raise AgentError(
            f"unknown heuristic option(s) {sorted(unknown)}; known: {HeuristicParams.names()}"
        )
    return HeuristicAgent(HeuristicParams(**kw))


def _ismcts(**kw: Any) -> Agent:
    from .ismcts import ISMCTSAgent, ISMCTSParams

    return ISMCTSAgent(ISMCTSParams.from_options(kw))


def _ppo(path: str = "", **kw: Any) -> Agent:
    from .ppo import SHIPPED_PPO, PPOAgent

    if not path and not SHIPPED_PPO.is_file():
        raise AgentError("no make train model is shipped with this install: ppo:<path>")
    return PPOAgent(path or str(SHIPPED_PPO), **kw)


def _rllib(path: str = "", **kw: Any) -> Agent:
    if not path:
        raise AgentError("rllib needs a checkpoint folder: rllib:<path>")
    try:  # imported here: torch and ray load only when an rllib agent is made
        from .rllib import RLlibAgent
    except ImportError as exc:
        raise AgentError(f"rllib agents need the 'rllib' extra: {exc}") from exc
    return RLlibAgent(path, **kw)


def _net(path: str = "", **kw: Any) -> Agent:
    if kw:
        raise AgentError(f"net takes a network file only (net:<path>), got options {sorted(kw)}")
    from .search.net_agent import NetAgent

    return NetAgent(path or None)


# The search agent's play defaults where they differ from SearchParams' (which expert
# iteration's targets use): a PUCT root with visit counts, every seat's decisions in the tree
# on the network's priors (``opponents`` keeps SearchParams' ``tree``: no model of a
# particular opponent), half of each leaf's value from a heuristic playout, 150 simulations
# (about 0.4 s of CPU per decision): docs/results.md, "A search that models no particular
# opponent"; the shipped network's policy, sharpened by PPO, at temperature 3 ("Fine-tuning
# the policy"). ``opponents=heuristic`` models the other seats as the default heuristic.
SEARCH_PLAY_DEFAULTS: dict[str, Any] = {
    "gumbel_m": 0, "sims": 150, "rollout_mix": 0.5, "prior_temp": 3.0,
}


def _search(model: str = "", **kw: Any) -> Agent:
    from ..analysis.knobs import knob_of
    from .search.agent import SearchAgent
    from .search.net_agent import NetAgent
    from .search.params import SearchParams

    # a bad option fails before the file is read
    defaults = dict(SEARCH_PLAY_DEFAULTS)
    if "seconds" in kw and "sims" not in kw:  # a time budget alone: search until it is spent
        defaults["sims"] = knob_of(SearchParams, "sims").high  # SearchParams' limit
    params = SearchParams.from_options({**defaults, **kw})
    return SearchAgent(NetAgent(str(model) or None).net, params)


#: set by the one tool that rates a user's own code (``perikles-bench``); elsewhere a
#: ``python:`` spec is refused, so that no config, run folder or web request imports code
PYTHON_AGENTS_ENV = "PERIKLES_PYTHON_AGENTS"


def _python(path: str = "", **kw: Any) -> Agent:
    if os.environ.get(PYTHON_AGENTS_ENV) != "1":
        raise AgentError(
            "python: agents import and run your own code; only perikles-bench accepts them"
        )
    from .user_agent import make_user_agent

    return make_user_agent(path, **kw)


_FACTORIES: dict[str, Factory] = {
    "random": _random,
    "heuristic": _heuristic,
    "ismcts": _ismcts,
    "ppo": _ppo,
    "rllib": _rllib,
    "net": _net,
    "search": _search,
    "python": _python,
}


def agent_names() -> list[str]:
    return sorted(_FACTORIES)


def register_agent(name: str, factory: Factory) -> None:
    """Make ``make_agent(name...)`` build agents with ``factory(**options)``."""
    if not name.isidentifier():
        raise AgentError(f"agent name must be an identifier, got {name!r}")
    _FACTORIES[name] = factory


def _value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text.strip()


def _options(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise AgentError(f"agent option {part!r} is not key=value")
        key, value = part.split("=", 1)
        out[key.strip()] = _value(value)
    return out


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"heuristic:aggression=0.8"`` -> ``("heuristic", {"aggression": 0.8})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in _FACTORIES:
        raise AgentError(f"unknown agent {name!r}; known: {agent_names()}")
    if name in ("ppo", "rllib", "net", "python"):  # a path, then options
        path, options = rest, ""
        head, sep, tail = rest.rpartition(",")
        if sep and "=" in tail:
            path, options = head, tail
        return name, {"path": path.strip(), **_options(options)}
    return name, _options(rest)


def split_specs(text: str) -> list[str]:
    """A comma-separated list of specs, as tools take them on the command line:
    ``"ismcts:sims=30,rollout=heuristic,random"`` -> ``["ismcts:sims=30,rollout=heuristic",
    "random"]``. A piece with ``=`` but no ``:`` is an option of the spec before it (agent
    names never contain ``=``)."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece.split("=", 1)[0]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def make_agent(spec: str) -> Agent:
    """Build an agent from its spec (see the module docstring)."""
    name, options = parse_spec(spec)
    try:
        return _FACTORIES[name](**options)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, AgentError):
            raise
        raise AgentError(f"bad options for agent {spec!r}: {exc}") from exc
