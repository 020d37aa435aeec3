"""Training tools for perikles_env (not needed to use the environment); the ``train`` extra.

Three trainers side by side on the job plumbing of ``perikles_env.jobs``: ``ppo``
(``perikles-train``, MaskablePPO), ``expert`` (``perikles-search-train``, expert iteration
for the search network) and ``rllib`` (``perikles-train-rllib``). Beside them, what several
of them or their users share: ``search_warmstart`` (PPO policy <-> search network),
``agreement`` (imitation agreement with the heuristic), ``learning_curves``,
``war_profile`` and ``convert_model``. Nothing here imports the evaluator: the command lines
in ``perikles_env.launch`` hand it in.
"""
