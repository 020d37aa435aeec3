"""The rule-based heuristic player; see ``agent.py`` and docs/agents.md."""

from .agent import HeuristicAgent
from .params import HeuristicParams

__all__ = ["HeuristicAgent", "HeuristicParams"]
