"""The self-play entries of ``opponents.weights`` (``selfplay.py``), in a module of their own
so that the config and the native env can both name them without importing each other."""

SELF_LATEST = "self_latest"
SELF_PAST = "self_past"
SELF_KEYS = (SELF_LATEST, SELF_PAST)
