"""``python -m training.war_profile`` from a clone runs ``perikles_env.training.war_profile``."""

from perikles_env.training.war_profile import main

if __name__ == "__main__":
    raise SystemExit(main())
