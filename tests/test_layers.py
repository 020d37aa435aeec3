"""The architecture contract (README "Layout"): layers only import downwards, the
engine imports only the standard library and loads no numpy, there are no import cycles, and
no code outside the engine uses the engine's private (``_underscore``) names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "perikles_env"
ENGINE = PACKAGE / "engine"


def test_import_linter_contracts_hold() -> None:
    """`.importlinter` (layers; engine forbidden from third-party packages) is kept."""
    done = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
         "lint_imports_command()"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components over every import (function-level ones too,
    ``TYPE_CHECKING`` ones excluded): each component must be a single module."""
    import grimp  # a dev dependency (with import-linter): a missing one fails, never skips
    graph = grimp.build_graph("perikles_env", exclude_type_checking_imports=True)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    # a package's __init__ re-exporting its own submodules is not a cycle of logic
    for m in modules:
        edges[m] = [d for d in edges[m] if not d.startswith(m + ".")]
    cycles = _strongly_connected(modules, edges)
    assert not cycles, f"import cycles: {cycles}"


def _strongly_connected(nodes: list[str], edges: dict[str, list[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in nodes:
        if v not in index:
            visit(v)
    return found


def _engine_private_names() -> set[str]:
    """Every ``_name`` the engine defines: functions, methods, class attributes, slots and
    ``self._x`` attributes (dunders excluded)."""
    names: set[str] = set()
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)  # __slots__ entries
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _outside_engine_sources() -> list[Path]:
    roots = [PACKAGE, ROOT / "training", ROOT / "benchmarks", ROOT / "scripts"]
    files = [p for r in roots if r.is_dir() for p in r.rglob("*.py")]
    return sorted(p for p in files if ENGINE not in p.parents)


def test_no_private_engine_names_outside_the_engine() -> None:
    """Code outside ``perikles_env/engine`` never reaches into the engine's private names
    (``game._illegal``, ``Game._strength``, ``from ..engine.x import _helper``). Tests may."""
    private = _engine_private_names()
    offenders = []
    for path in _outside_engine_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        local = _locally_defined(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "engine" in node.module:
                offenders += [
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {a.name}"
                    for a in node.names
                    if a.name.startswith("_")
                ]
            elif isinstance(node, ast.Attribute) and node.attr in private:
                if node.attr not in local:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} uses .{node.attr}")
    assert not offenders, "\n".join(offenders)


def _locally_defined(tree: ast.AST) -> set[str]:
    """Private names a module defines itself (its own ``self._x``, ``def _f``): using those
    is not a reach into the engine even when the engine has a name that looks the same."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute):
                        names.add(sub.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # own __slots__
    return names


def test_importing_the_engine_loads_no_third_party_module() -> None:
    """``import perikles_env.engine`` (and playing a game) works with the standard library
    alone: numpy, gymnasium and pettingzoo stay unloaded."""
    code = (
        "import sys\n"
        "from perikles_env.engine import GameConfig, new_game\n"
        "g = new_game(GameConfig(num_players=3), seed=1)\n"
        "while not g.is_terminal and len(g.event_log) < 200:\n"
        "    g.apply_action(g.legal_actions()[0])\n"
        "bad = sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo', 'torch', 'yaml')\n"
        "             if m in sys.modules)\n"
        "print('LOADED', bad)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout, done.stdout
