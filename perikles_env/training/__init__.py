"""Training and evaluation tools for perikles_env (not needed to use the environment).

``training.evaluate`` is the tournament evaluator (``perikles-evaluate``).
"""
