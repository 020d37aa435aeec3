"""The C++ core's own self-test (``native/tests/``, one part per folder of ``native/``), without
Python in the loop: engine, 300 seeded uniform random games (3, 4 and 5 players; 900 under
``-m slow``) with invariants checked after every decision (cube and counter conservation,
schema ranges, ``load_error``, sorted in-range legal actions), determinism, clone independence
and determinization; analysis, the tie-breaking contract, the odds and a View that reads no
secret; env, the encoder's layout, the observation and mask at every decision of the same
games, the feature blocks and the vector env with 1 and 2 threads; players, the heuristic's and
the search's legal, seed-determined decisions.

Built with CMake into ``build/selftest`` (``-DPERIKLES_SELFTEST=ON``, only the
``perikles_selftest`` target; the directory is kept, so later runs rebuild only what changed)
with the compiler CMake picks for the extension too (``$CXX``, else ``c++``). Skipped where
cmake or a C++ compiler is missing, unless ``PERIKLES_REQUIRE_NATIVE=1`` (``make test``, CI):
then it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "selftest"


def _missing(what: str) -> None:
    if os.environ.get("PERIKLES_REQUIRE_NATIVE") == "1":
        pytest.fail(f"PERIKLES_REQUIRE_NATIVE=1 but {what}: cannot build the C++ self-test")
    pytest.skip(f"{what}: the C++ self-test (native/tests/) is not built")


def _compiler() -> str | None:
    """The C++ compiler CMake would use: ``$CXX``, else the first of c++, g++, clang++."""
    if os.environ.get("CXX"):
        return shutil.which(os.environ["CXX"].split()[0])
    return next((path for name in ("c++", "g++", "clang++") if (path := shutil.which(name))), None)


def _run(command: list[str], timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout[-3000:] + done.stderr[-3000:]


def _configured_here() -> bool:
    """Whether build/selftest holds a CMake cache of this checkout (not a copied one)."""
    cache = BUILD / "CMakeCache.txt"
    if not cache.exists():
        return False
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith("CMAKE_HOME_DIRECTORY:"):
            return Path(line.split("=", 1)[1]).resolve() == ROOT
    return False


def build_selftest() -> Path:
    cmake = shutil.which("cmake")
    if cmake is None:
        _missing("cmake is not installed")
    compiler = _compiler()
    if compiler is None:
        _missing("no C++ compiler ($CXX, c++, g++ or clang++)")
    assert cmake is not None and compiler is not None
    if not _configured_here():
        shutil.rmtree(BUILD, ignore_errors=True)
        configure = [
            cmake, "-S", str(ROOT), "-B", str(BUILD), "-DPERIKLES_SELFTEST=ON",
            "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_CXX_COMPILER={compiler}",
            f"-DPython_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        done = _run(configure, timeout=300)
        assert done.returncode == 0, f"cmake configure failed:\n{_tail(done)}"
    build = [cmake, "--build", str(BUILD), "--target", "perikles_selftest", "-j", "2"]
    done = _run(build, timeout=900)
    assert done.returncode == 0, f"building perikles_selftest failed:\n{_tail(done)}"
    names = ("perikles_selftest", "perikles_selftest.exe")
    (binary,) = [BUILD / name for name in names if (BUILD / name).exists()]
    return binary


def expected_passed(games: int) -> dict[str, int]:
    """The cases each folder's part runs with ``games`` games per player count: one per game
    and count for the engine; the env's 33 fixed cases on top of its per-game ones."""
    return {"engine": 3 * games, "analysis": 32, "env": 3 * games + 33, "players": 38}


@pytest.mark.parametrize("games", [
    pytest.param(100, id="100 games per count"),
    pytest.param(300, id="300 games per count", marks=pytest.mark.slow),
])
def test_cpp_selftest_plays_random_games_and_keeps_every_invariant(games: int) -> None:
    binary = build_selftest()
    done = subprocess.run([str(binary), str(games)], capture_output=True, text=True,
                          timeout=600)
    report = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, report
    lines = done.stdout.strip().splitlines()
    expected = expected_passed(games)
    for folder, passed in expected.items():
        line = f"{folder}: {passed} passed, 0 failed"
        assert any(printed.startswith(line) for printed in lines), report
    total = sum(expected.values())
    assert lines[-1].endswith(f"{total} passed, 0 failed"), report
