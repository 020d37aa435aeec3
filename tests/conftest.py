"""Shared pytest fixtures for the perikles_env test suite."""
