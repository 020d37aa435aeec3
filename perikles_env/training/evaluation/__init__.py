"""Parts of the evaluator: game runner, statistics, results, report, plots, config."""
