"""The README, the docs, the code and the tests speak of the product only: no issue numbers,
no "this session", no citations of a style guide that is not in the repository. Dated
measurements belong in docs/results.md (its tables are checked like every other file)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = (
    "README.md", "docs", "perikles_env", "configs", "native", "benchmarks", "scripts",
    "training", "tests", "CMakeLists.txt", "Makefile", "pyproject.toml",
)
THIS_FILE = Path(__file__).resolve()  # its examples of what is caught
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".txt", ".toml", ".cpp", ".hpp", ".h"}
DANGLING = re.compile(
    r"\b" + "STYLE" + r"(?:\s*\d|\.md\b)"  # the style guide of the authors, not shipped
    r"|\b(?i:issue)s?\s*[#-]?\s*\d+\b"  # "issue 18", "issue-15", "issues 3"
    r"|\b(?i:this|previous|earlier|last)\s+(?i:session)s?\b"
)
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
RESULTS = ROOT / "docs" / "results.md"


def _files() -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(
                p for p in path.rglob("*")
                if p.suffix in SUFFIXES and p.is_file() and "__pycache__" not in p.parts
            )
    return [p for p in found if p.resolve() != THIS_FILE]


def _hits(pattern: re.Pattern[str], files: list[Path]) -> list[str]:
    hits = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return hits


def test_the_pattern_catches_what_it_is_for() -> None:
    for text in ("see issue 18's recipe", "(issue-15 targets)", "With this session's envs",
                 "STYLE" + " 6", "as in " + "STYLE" + ".md", "Issue #4"):
        assert DANGLING.search(text), text
    for text in ("an issue with the mask", "STYLES", "a session of training", "tissue 3"):
        assert not DANGLING.search(text), text


def test_no_dangling_references() -> None:
    files = _files()
    assert ROOT / "README.md" in files and RESULTS in files and len(files) > 200
    hits = _hits(DANGLING, files)
    assert not hits, "history or references the reader cannot follow:\n" + "\n".join(hits)


@pytest.mark.parametrize("doc", ["README.md", "docs/training.md", "docs/ecosystem.md"])
def test_dated_measurements_live_in_results(doc: str) -> None:
    """The reference docs link to results.md for measured runs; only the README's "what
    to expect" names the date of the run it quotes."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    if doc == "README.md":  # the source line of the "What to expect" table
        start = text.index("### What to expect")
        text = text[:start] + text[text.index("\n## ", start):]
    assert not DATE.findall(text), DATE.findall(text)


def test_results_tables_say_when_and_how() -> None:
    """Every run in docs/results.md names its date, command and machine."""
    text = RESULTS.read_text(encoding="utf-8")
    sections = re.split(r"^#{2,3} ", text, flags=re.M)[1:]
    runs = [s for s in sections if "| date |" in s]
    assert len(runs) >= 20
    for section in runs:
        title = section.splitlines()[0]
        for key in ("| date |", "| command |", "| machine |"):
            assert key in section, f"{title}: no {key.strip('| ')} row"
        for date in re.findall(r"\| date \|([^\n]*)", section):
            assert DATE.search(date), f"{title}: {date}"


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_relative_links_resolve() -> None:
    broken = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            path = (doc.parent / target).resolve()
            if not path.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not broken, "\n".join(broken)


def test_readme_python_examples_run() -> None:
    """The README's code blocks run as written (the vector env's needs the C++ core)."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 3
    for code in blocks:
        if "perikles_env.vector" in code:
            pytest.importorskip("perikles_env._native")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{code}\n{done.stderr[-2000:]}"
