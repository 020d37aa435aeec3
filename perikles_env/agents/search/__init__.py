"""Search with a network: policy/value-guided IS-MCTS whose tree walk runs on the C++ core
(docs/agents.md, "Search with a network"). ``evaluator`` holds the contract a network
implements; ``puct`` the batched driver; ``agent`` the Agent API; ``network`` the
policy/value network, ``net_file`` its safe file and ``net_agent`` the network alone."""

from .agent import SearchAgent, search_agent
from .evaluator import EvaluationError, Evaluator, UniformEvaluator
from .puct import Search, SearchParams, SearchResult

__all__ = [
    "EvaluationError",
    "Evaluator",
    "Search",
    "SearchAgent",
    "SearchParams",
    "SearchResult",
    "UniformEvaluator",
    "search_agent",
]
