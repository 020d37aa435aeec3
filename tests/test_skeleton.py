"""Project-structure checks."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ENGINE_DIR = Path(__file__).resolve().parent.parent / "perikles_env" / "engine"
ALLOWED_PACKAGES = {"perikles_env"}


def _imported_top_level_modules(path: Path) -> set[str]:
    """Top-level module names of all absolute imports in a file (relative ones are in-package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_engine_imports_only_stdlib() -> None:
    if not ENGINE_DIR.is_dir():
        pytest.skip("perikles_env/engine does not exist yet")
    files = sorted(ENGINE_DIR.rglob("*.py"))
    assert files, "perikles_env/engine has no Python files"
    offenders: list[str] = []
    for path in files:
        for name in sorted(_imported_top_level_modules(path)):
            if name not in sys.stdlib_module_names and name not in ALLOWED_PACKAGES:
                offenders.append(f"{path.relative_to(ENGINE_DIR.parent.parent)}: {name}")
    assert not offenders, "engine must import only the standard library:\n" + "\n".join(offenders)
