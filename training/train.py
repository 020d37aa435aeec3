"""``python -m training.train`` from a clone runs ``perikles_env.training.ppo.train``."""

from perikles_env.training.ppo.train import main

if __name__ == "__main__":
    raise SystemExit(main())
