"""The layout of ``native/`` (docs/native.md, "Layout of native/"): one folder per floor, each
with a header that is its table of contents, includes only downwards, and the build files
(CMakeLists.txt, the Makefile's dependency wildcards) seeing every source. Reads the tree only."""

from __future__ import annotations

import glob
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "native"
# Lowest floor first: a file may include its own floor and the floors before it.
FLOORS = ("engine", "analysis", "env", "players", "bind")
CONTENTS = {
    "engine": "game.hpp",
    "analysis": "analysis.hpp",
    "env": "env.hpp",
    "players": "players.hpp",
    "bind": "common.hpp",
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def _sources(folder: str) -> list[Path]:
    return sorted(p for p in (NATIVE / folder).rglob("*") if p.suffix in (".hpp", ".cpp"))


def _includes(path: Path) -> list[str]:
    return INCLUDE.findall(path.read_text())


def test_every_source_lives_in_a_floor_or_the_tests() -> None:
    loose = [p.name for p in NATIVE.iterdir() if p.is_file()]
    folders = sorted(p.name for p in NATIVE.iterdir() if p.is_dir())
    assert loose == []
    assert folders == sorted((*FLOORS, "tests"))


def test_each_floor_has_a_table_of_contents_naming_its_files() -> None:
    for floor, header in CONTENTS.items():
        text = (NATIVE / floor / header).read_text()
        head = text.split("#pragma once")[0]
        assert f"native/{floor}/" in head, f"{floor}/{header} does not say which folder it maps"
        for path in _sources(floor):
            name = str(path.relative_to(NATIVE / floor))
            if name != header:
                assert name in head, f"{floor}/{header} does not list {name}"


def test_includes_resolve_and_only_go_down() -> None:
    seen = 0
    for floor in (*FLOORS, "tests"):
        rank = FLOORS.index(floor) if floor in FLOORS else FLOORS.index("players")
        for path in _sources(floor):
            where = path.relative_to(ROOT)
            for target in _includes(path):
                seen += 1
                assert (NATIVE / target).is_file(), f"{where} includes a missing {target}"
                top = target.split("/")[0]
                assert top in FLOORS or top == "tests", f"{where}: {target} has no floor"
                if top == "tests":
                    assert floor == "tests", f"{where} includes the self-test"
                    continue
                assert FLOORS.index(top) <= rank, f"{where} ({floor}) includes {target}, a floor up"
    assert seen > 50


def test_the_engine_needs_no_other_floor() -> None:
    for path in _sources("engine"):
        assert all(t.startswith("engine/") for t in _includes(path)), path


def test_cmake_builds_every_source_once() -> None:
    cmake = (ROOT / "CMakeLists.txt").read_text()
    # a source's own compile options name it again without building it again
    cmake = re.sub(r"set_source_files_properties\([^)]*\)", "", cmake)
    named = re.findall(r"native/[\w/]+\.cpp", cmake)
    assert len(named) == len(set(named)), "a source named twice in CMakeLists.txt"
    expected = {str(p.relative_to(ROOT)) for floor in (*FLOORS, "tests") for p in _sources(floor)
                if p.suffix == ".cpp"}
    assert set(named) == expected


def test_the_makefile_rebuilds_on_every_native_change() -> None:
    makefile = (ROOT / "Makefile").read_text()
    (patterns,) = re.findall(r"\$\(wildcard (native/[^)]*)\)", makefile)
    matched = {
        Path(p).resolve() for pattern in patterns.split() for p in glob.glob(str(ROOT / pattern))
    }
    every = {p.resolve() for floor in (*FLOORS, "tests") for p in _sources(floor)}
    assert every <= matched, sorted(str(p.relative_to(ROOT)) for p in every - matched)
