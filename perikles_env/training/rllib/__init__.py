"""Ray RLlib (new API stack) training for Perikles: needs the ``rllib`` extra.

``env.py`` adapts the PettingZoo AEC env to RLlib's ``MultiAgentEnv``, ``train.py`` is the
``perikles-train-rllib`` trainer (multi-agent PPO, one shared masked policy), ``config.py``
its YAML schema, ``policy_export.py`` the pickle-free policy files and ``agent.py`` the
``rllib:<checkpoint>`` agent. Nothing here is imported by ``import perikles_env``; see
docs/ecosystem.md ("Ray RLlib").
"""
