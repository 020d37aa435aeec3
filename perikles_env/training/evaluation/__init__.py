"""Aliases of the evaluator's modules; the evaluator is the package ``perikles_env.evaluation``."""
