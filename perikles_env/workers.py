"""Worker-process counts bounded by the machine.

Every process pool of the project (the evaluator, pretraining's demo games, the expert
loop's self-play shards, the batched subprocess vector env) asks here how many processes
to start: at most ``os.cpu_count()``, so a huge ``--workers``, config value or a count read
back from a run folder on ``--resume`` cannot start hundreds of processes. Only the number
of processes is bounded: how the work is split (shards, seeds, batches) stays as requested,
so the results do not change.
"""

from __future__ import annotations

import os
import sys

_noted: set[tuple[str, int, int]] = set()


def machine_cores() -> int:
    """The CPU count (1 when the platform cannot tell)."""
    return os.cpu_count() or 1


def bounded_workers(requested: int, what: str = "workers", tasks: int | None = None) -> int:
    """Processes to start for ``requested`` workers (and ``tasks`` pieces of work, when
    known): at least 1, at most the CPU count and ``tasks``. Lowering below the CPU count
    for lack of tasks is silent; lowering to the CPU count prints a one-line note on stderr
    (once per ``what`` and value)."""
    requested = max(1, int(requested))
    cores = machine_cores()
    count = min(requested, cores)
    if count < requested and (key := (what, requested, cores)) not in _noted:
        _noted.add(key)
        print(f"note: {what} lowered from {requested} to {cores} (the CPU count)",
              file=sys.stderr, flush=True)
    if tasks is not None:
        count = min(count, max(1, tasks))
    return count
