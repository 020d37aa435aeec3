"""The training tools fail cleanly: bad player counts, unknown agents,
missing or corrupt model files and bad configs give exit code 2 and one line on stderr naming
the problem, never a traceback."""

from __future__ import annotations

import subprocess

import pytest

from tests.cli import assert_clean_failure, run_module


def run(module: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return run_module(module, *args, cwd=cwd, timeout=180)


@pytest.fixture(scope="module")
def corrupt_model(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("model") / "model.zip"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    return str(path)


EVALUATE = "perikles_env.evaluation.cli"
TRAIN = "perikles_env.launch.ppo"
WAR = "perikles_env.training.war_profile"
AGREEMENT = "perikles_env.training.agreement"


@pytest.mark.parametrize(
    "module,args,words",
    [
        (EVALUATE, ["--agents", "nosuch,random,random"], ["unknown agent 'nosuch'"]),
        (EVALUATE, ["--agents", "random,random"], ["3..5", "2"]),
        (EVALUATE, ["--agents", "random", "--players", "7"], ["3..5", "7"]),
        (EVALUATE, ["--agents", "ppo:missing.zip,random,random"], ["missing.zip"]),
        (EVALUATE, ["--config", "nosuch"], ["nosuch", "shipped configs"]),
        (EVALUATE, ["--agents", "random", "--backend", "gpu"], ["--backend"]),
        (TRAIN, ["--config", "nosuch"], ["nosuch", "shipped configs"]),
        (TRAIN, ["--config", "smoke", "--override", "ppo.learning_rate=abc"],
         ["ppo.learning_rate"]),
        (TRAIN, ["--config", "smoke", "--override", "env.num_players=7"], ["env.num_players"]),
        (TRAIN, ["--config", "smoke", "--override", "env.backend=gpu"], ["env.backend"]),
        (TRAIN, ["--config", "smoke", "--override", "opponents.weights={nosuch: 1.0}"],
         ["nosuch"]),
        (WAR, ["--agents", "nosuch,random"], ["unknown agent 'nosuch'"]),
        (WAR, ["--agents", "random", "--players", "9"], ["--players", "9"]),
        (WAR, ["--agents", "ppo:missing.zip", "--games", "1"], ["missing.zip"]),
        (AGREEMENT, ["--agent", "nosuch"], ["unknown agent 'nosuch'"]),
        (AGREEMENT, ["--agent", "random", "--games", "0"], ["--games"]),
        (AGREEMENT, ["--agent", "random", "--json", "."], ["--json", "is a folder"]),
    ],
)
def test_tool_fails_cleanly(module, args, words, tmp_path) -> None:
    assert_clean_failure(run(module, *args, cwd=tmp_path), *words)


@pytest.mark.parametrize("module,flag", [(EVALUATE, "--agents"), (WAR, "--agents"),
                                         (AGREEMENT, "--agent")])
def test_tool_fails_cleanly_on_a_corrupt_model_file(module, flag, corrupt_model) -> None:
    spec = f"ppo:{corrupt_model}" + (",random,random" if flag == "--agents" else "")
    assert_clean_failure(run(module, flag, spec), "model.zip")
