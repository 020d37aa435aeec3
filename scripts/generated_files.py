"""What every generator under scripts/ does with its outputs: find the stale ones, and
its command line (``--check`` fails and names each stale file; without it, write them all).

A generator declares ``OUTPUTS``, each generated path and the function that makes its text.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

Outputs = Mapping[Path, Callable[[], str]]


def stale_outputs(outputs: Outputs) -> list[Path]:
    """The generated files whose checked-in text differs from what they would be now."""
    return [p for p, make in outputs.items() if not p.exists() or p.read_text() != make()]


def generator_main(outputs: Outputs, doc: str, script: str, kind: str) -> int:
    """The command line of ``scripts/<script>`` (described by ``doc``), whose outputs are
    each a ``kind``: 1 with ``--check`` where one is stale, else 0."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help=f"fail if a {kind} is stale")
    args = parser.parse_args()
    if args.check:
        paths = stale_outputs(outputs)
        for path in paths:
            print(f"{path.relative_to(ROOT)} is stale: run python scripts/{script}")
        return 1 if paths else 0
    for path, make in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(make())
        print(f"wrote {path.relative_to(ROOT)}")
    return 0
