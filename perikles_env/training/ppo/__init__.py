"""The MaskablePPO trainer (``perikles-train``): config, vector envs (Python and C++), the
self-play pool, imitation pretraining, callbacks, checkpoints and the run report."""
