"""Launcher for ``python -m training.war_profile`` from a clone; the code is ``perikles_env.training.war_profile``."""

from perikles_env.training.war_profile import main

if __name__ == "__main__":
    raise SystemExit(main())
