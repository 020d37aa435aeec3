"""Launcher for ``python -m training.evaluate`` from a clone; the code is ``perikles_env.training.evaluate``."""

from perikles_env.training.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
