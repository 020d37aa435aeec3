"""``perikles-bench``: rate one agent against the versioned reference pool
(``protocols/v1.yaml``, docs/benchmark.md)."""
