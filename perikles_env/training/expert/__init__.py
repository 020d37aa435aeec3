"""Expert iteration for the search network (docs/training.md, "Expert iteration (search +
network)"): ``config`` (the YAML schema), ``selfplay`` (games with search, recording its
targets), ``dataset`` (compact positions, the replay window), ``learner`` (the update),
``checkpoint`` (resume), ``report`` (report.md and the learning curve), ``loop`` (the
iterations) and ``cli`` (``perikles-search-train``)."""
