"""Generate docs/observation.md from the encoder's ``LAYOUT`` (the source of truth).

Usage: ``python scripts/gen_observation_docs.py`` prints; ``--write`` updates the file;
``--check`` exits 1 when the committed file is stale (tests/env/test_docs.py runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from perikles_env.analysis.observation import LAYOUT, OBS_SIZE, OFFSETS, ORACLE_LAYOUT

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "observation.md"

INTRO = f"""# Observation layout

`env.observe(agent)` returns `{{"observation": float32[{OBS_SIZE}], "action_mask": int8[957]}}`.
The vector has the same size for 3, 4 and 5 players. Every block that concerns players uses
five **relative seat** slots: slot 0 is the observer, slot 1 the player to his left (next
clockwise), and so on; slots at or beyond the player count stay 0 (`seat_present` says which
exist). Actions use the same convention (seat offsets relative to the acting player), so a
policy never needs its absolute seat.

What is deliberately absent (see "What each player may know" in docs/rules.md): other
players' unused special tiles, the strengths of face-down counters and hand counters of
cities the observer does not control (only their city and type counts are shown;
`unseen_strengths` gives the public multiset of those strengths), the order of both decks,
and the RNG. A counter's strength is visible when its city is controlled by the observer
(his led cities; Persia for Persian leaders, shared by co-leaders) or when its location is
being resolved (face up).
The legal-action mask is all zeros except for the acting agent.

Values are scaled to about [0, 1] (the "scale" column: `/4` means the count divided by 4);
larger counts can exceed 1 slightly. Multi-dimensional blocks are flattened in C order
of the brackets given in the meaning column.

With `oracle=True` (debugging, privileged critics) the oracle blocks below are appended:
they contain hidden information and must never be given to a policy that plays fairly.

## Blocks

| # | name | slice | size | meaning | scale |
|---|---|---|---|---|---|
"""

SOURCES = """
## Where the layout is declared

`LAYOUT` and `ORACLE_LAYOUT` in `perikles_env/analysis/observation.py` are the one
declaration of the blocks (name, size, meaning, scale). Everything else is generated from
them: this page (`scripts/gen_observation_docs.py --write`), and the C++ encoder's block
table, block ids (`enum B`) and sizes, `native/env/generated/observation.hpp`, together with
the feature blocks' ids (`enum Feature`, the order of `FEATURE_BLOCKS` in
`analysis/encoding.py`):

```sh
.venv/bin/python scripts/gen_observation_docs.py --write  # this page
.venv/bin/python scripts/gen_native.py                    # native/*/generated/*.hpp
make native                                               # rebuild the extension
```

`tests/env/test_docs.py` fails while this page is stale and `tests/native/test_schema.py`
while a generated header is; `perikles_env/vector/native.py` refuses to load a build whose
blocks or feature blocks differ from the Python declaration.
"""


def render() -> str:
    rows = []
    for i, b in enumerate(LAYOUT):
        a, e = OFFSETS[b.name]
        rows.append(f"| {i} | `{b.name}` | {a}:{e} | {b.size} | {b.meaning} | {b.scale} |")
    pos = OBS_SIZE
    oracle = []
    for b in ORACLE_LAYOUT:
        oracle.append(f"| `{b.name}` | {pos}:{pos + b.size} | {b.size} | {b.meaning} | {b.scale} |")
        pos += b.size
    return (
        INTRO
        + "\n".join(rows)
        + f"\n\nTotal: {OBS_SIZE} floats.\n\n## Oracle blocks (`oracle=True` only)\n\n"
        + "| name | slice | size | meaning | scale |\n|---|---|---|---|---|\n"
        + "\n".join(oracle)
        + f"\n\nTotal with oracle: {pos} floats.\n"
        + SOURCES
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render()
    if args.write:
        DOC_PATH.write_text(text, encoding="utf-8")
    elif args.check:
        if DOC_PATH.read_text(encoding="utf-8") != text:
            print("docs/observation.md is stale: run scripts/gen_observation_docs.py --write")
            sys.exit(1)
    else:
        print(text)


if __name__ == "__main__":
    main()
