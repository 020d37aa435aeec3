"""Where training meets evaluation: each trainer's command line started with the tournament
evaluator (``perikles-train``, ``perikles-search-train``, ``perikles-train-rllib``).
``perikles_env.training`` and ``perikles_env.evaluation`` never import each other (the
import contract keeps them independent); only this floor, above both, joins them.
"""
