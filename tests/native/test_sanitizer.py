"""The differential, bad-input (the loader fuzz), seam, determinize, rule-query, encoder,
vector-env (the two-thread race included: one round there), search and backend-option suites
(and read-only agents on the live game) against an AddressSanitizer +
UndefinedBehaviorSanitizer build of the C++ extension ``_native`` (slow: a separate build,
~3-6 min on 2 cores). Any memory error or undefined behaviour aborts the
run (``-fno-sanitize-recover``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.native.helpers import require_native

require_native()
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_differential_suite_under_asan_and_ubsan(tmp_path: Path) -> None:
    if shutil.which("cmake") is None or shutil.which("g++") is None:
        pytest.skip("needs cmake and g++")
    build = tmp_path / "build"
    configure = [
        "cmake", "-S", str(ROOT), "-B", str(build), "-DPERIKLES_SANITIZE=ON",
        f"-DPython_EXECUTABLE={sys.executable}", "-DCMAKE_BUILD_TYPE=Debug",
    ]
    subprocess.run(configure, check=True, capture_output=True, timeout=300)
    subprocess.run(["cmake", "--build", str(build), "-j", "2"], check=True, capture_output=True,
                   timeout=900)
    (extension,) = build.glob("_native.*.so")
    # libstdc++ preloaded too: Python itself does not link it, and ASan's C++-exception
    # interceptor must find it at start-up
    preload = [
        subprocess.check_output(["g++", f"-print-file-name={lib}"], text=True).strip()
        for lib in ("libasan.so", "libstdc++.so")
    ]
    env = dict(os.environ)
    env.update(
        LD_PRELOAD=" ".join(preload),
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        PERIKLES_NATIVE_PATH=str(extension),
        PERIKLES_REQUIRE_NATIVE="1",
        PERIKLES_RACE_ROUNDS="1",  # tests/native/test_vector_race.py: ~10x slower here
    )
    suites = [
        "tests/native/test_differential.py", "tests/native/test_bad_input.py",
        "tests/native/test_scenarios.py", "tests/native/test_api.py", "tests/native/test_seam.py",
        "tests/native/test_native_determinize.py", "tests/native/test_native_queries.py",
        "tests/native/test_encoder.py", "tests/native/test_vector_env.py",
        "tests/native/test_backend_option.py", "tests/agents/test_game_for.py",
        "tests/native/test_heuristic_identity.py", "tests/native/test_vector_league.py",
        "tests/native/test_league_politics.py", "tests/native/test_league_war.py",
        "tests/agents/test_heuristic.py", "tests/native/test_search_core.py",
        "tests/agents/test_search.py", "tests/native/test_search_net_core.py",
        "tests/native/test_vector_race.py",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-x", *suites],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000,
    )
    report = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    assert "runtime error" not in done.stderr and "AddressSanitizer" not in done.stderr, report
    assert " passed" in done.stdout, report
