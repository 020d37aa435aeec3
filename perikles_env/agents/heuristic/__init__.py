"""The rule-based heuristic player; see ``agent.py`` and docs/agents.md."""

from ...analysis.params import HeuristicParams
from .agent import HeuristicAgent

__all__ = ["HeuristicAgent", "HeuristicParams"]
