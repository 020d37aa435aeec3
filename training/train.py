"""``python -m training.train`` from a clone runs ``perikles-train``
(``perikles_env.launch.ppo``)."""

from perikles_env.launch.ppo import main

if __name__ == "__main__":
    raise SystemExit(main())
