"""The rule-based heuristic player; see ``agent.py`` and docs/agents.md."""

from .agent import HeuristicAgent
from ...analysis.params import HeuristicParams

__all__ = ["HeuristicAgent", "HeuristicParams"]
