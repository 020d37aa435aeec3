"""``configs/schema/*.json``: the JSON Schemas of the four config kinds, for editors.

    python -m perikles_env.config_schema_export            # rewrite configs/schema/
    python -m perikles_env.config_schema_export --check    # exit 1 if one is stale

Each shipped YAML config names its schema on its first line (``# yaml-language-server:
$schema=schema/train.json``), which editors with a YAML language server use to complete
keys and flag bad values while typing. A test keeps the files equal to the models.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perikles_env.cli import CliParser
from perikles_env.evaluation.config import EvalFile
from perikles_env.files import write_text
from perikles_env.jobs.config_schema import json_schema
from perikles_env.training.expert.config import ExpertConfig
from perikles_env.training.ppo.config import TrainConfig
from perikles_env.training.rllib.config import RLlibConfig

SCHEMAS: dict[str, Any] = {
    "train": TrainConfig, "evaluate": EvalFile, "rllib": RLlibConfig, "search": ExpertConfig,
}
FOLDER = Path(__file__).resolve().parents[1] / "configs" / "schema"


def schema_texts() -> dict[str, str]:
    """File name -> the JSON text it must hold."""
    return {
        f"{name}.json": json.dumps(json_schema(model), indent=2, sort_keys=True) + "\n"
        for name, model in SCHEMAS.items()
    }


def stale(folder: Path = FOLDER) -> list[str]:
    """The schema files of ``folder`` that are missing or differ from the models."""
    out = []
    for name, text in schema_texts().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            out.append(name)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = CliParser(prog="python -m perikles_env.config_schema_export", description=__doc__)
    p.add_argument("--out", type=Path, default=FOLDER, help="folder to write")
    p.add_argument("--check", action="store_true", help="only report stale files (exit 1)")
    args = p.parse_args(argv)
    if args.check:
        names = stale(args.out)
        for name in names:
            print(f"stale: {args.out / name}", file=sys.stderr)
        return 1 if names else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in schema_texts().items():
        write_text(args.out / name, text)
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
