"""The tournament evaluator as a trainer asks for it (``perikles_env.jobs.evaluator``): the
apps floor (``perikles_env.launch``, ``perikles_env.bench``'s exploit) hands ``TOURNAMENT`` to
the trainers, which never import this package."""

from __future__ import annotations

from perikles_env.jobs.evaluator import Evaluator

from .cli import summary
from .runner import forget_agent
from .tournament import evaluate

TOURNAMENT = Evaluator(evaluate=evaluate, forget_agent=forget_agent, summary=summary)
