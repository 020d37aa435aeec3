"""Training tools for perikles_env (not needed to use the environment); the ``train``
extra. ``train`` is ``perikles-train`` (MaskablePPO), ``rllib`` ``perikles-train-rllib``;
the evaluator they use is the package ``perikles_env.evaluation``.
"""
