"""``python -m training.evaluate`` from a clone runs ``perikles_env.training.evaluate``."""

from perikles_env.training.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
