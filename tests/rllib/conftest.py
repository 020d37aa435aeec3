"""The RLlib tests need the ``rllib`` extra (``make test-rllib`` installs it and runs them);
without ray they are skipped, so the default ``make test`` stays light."""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("ray") else ["test_*.py"]
