"""The tournament evaluator (``perikles-evaluate``): agents against each other with common
random numbers and seat rotations; win rates, ranks and VP with confidence intervals,
OpenSkill ratings, a report and plots. Needs the ``train`` extra.

``config`` (the schema), ``runner`` (playing games), ``stats`` and ``results`` (numbers),
``result`` (``EvalResult``), ``report`` and ``plots`` (files), ``tournament`` (the Python
API: ``evaluate``, ``run``), ``cli`` (the command line).
"""

from .eval_result import EvalResult as EvalResult
from .tournament import evaluate as evaluate
