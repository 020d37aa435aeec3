"""The tournament evaluator (``perikles-evaluate``): agents against each other with common
random numbers and seat rotations; win rates, ranks and VP with confidence intervals,
OpenSkill ratings, a report and plots. Needs the ``train`` extra.

``config`` (the schema), ``runner`` (playing games), ``stats`` and ``matchup_results``
(numbers per matchup), ``eval_result`` (``EvalResult``, the whole evaluation),
``eval_report`` and ``plots`` (files), ``tournament`` (the Python API: ``evaluate``, ``run``),
``cli`` (the command line), ``for_trainers`` (the evaluator the trainers are handed). It
uses the job plumbing (``perikles_env.jobs``) and never imports ``perikles_env.training``.
"""

from .eval_result import EvalResult as EvalResult
from .tournament import evaluate as evaluate
