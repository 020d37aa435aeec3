"""``python -m training.evaluate`` from a clone runs ``perikles-evaluate``."""

from perikles_env.evaluation.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
