"""Launchers for running the training tools from a clone (``python -m training.train``).

The code lives in ``perikles_env.training`` and ships with the package; this folder is not
installed, so no generic top-level ``training`` package ever reaches a user's environment.
"""
