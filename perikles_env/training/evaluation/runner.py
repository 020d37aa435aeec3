"""An alias of ``perikles_env.evaluation.runner`` (the evaluator is ``perikles_env.evaluation``)."""

from perikles_env.evaluation.runner import *  # noqa: F403
