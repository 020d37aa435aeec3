"""Aliases of the evaluator's entry points (the evaluator is ``perikles_env.evaluation``)."""

from perikles_env.evaluation.cli import main as main
from perikles_env.evaluation.cli import summary as summary
from perikles_env.evaluation.result import EvalResult as EvalResult
from perikles_env.evaluation.tournament import build_jobs as build_jobs
from perikles_env.evaluation.tournament import evaluate as evaluate
from perikles_env.evaluation.tournament import run as run

if __name__ == "__main__":
    import sys

    sys.exit(main())
