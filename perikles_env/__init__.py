"""perikles_env: a reinforcement-learning environment for the board game Perikles."""

__version__ = "0.1.0"
