"""Launcher for ``python -m training.train`` from a clone; the code is ``perikles_env.training.train``."""

from perikles_env.training.train import main

if __name__ == "__main__":
    raise SystemExit(main())
