"""Shared, read-only analysis of engine states for agents, feature blocks and the environment.

What one player may see (``PlayerView``), expected battles (``Battlefield``), election
projections (``PoliticalModel``), exact odds, leaf values for search and the observation
encoder. Everything here reads the engine through its public queries and never changes a game.
"""
