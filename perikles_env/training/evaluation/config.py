"""An alias of ``perikles_env.evaluation.config`` (the evaluator is ``perikles_env.evaluation``)."""

from perikles_env.evaluation.config import *  # noqa: F403
