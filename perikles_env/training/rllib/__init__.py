"""Ray RLlib (new API stack) training for Perikles: needs the ``rllib`` extra.

``env.py`` adapts the PettingZoo AEC env to RLlib's ``MultiAgentEnv``, ``train.py`` is the
``perikles-train-rllib`` trainer (multi-agent PPO, one shared masked policy), ``config.py``
its YAML schema. The pickle-free policy files and the ``rllib:<checkpoint>`` agent live in
the agents layer (``perikles_env/agents/rllib_policy.py``, ``perikles_env/agents/rllib.py``).
Nothing here is imported by ``import perikles_env``; see docs/ecosystem.md ("Ray RLlib").
"""
