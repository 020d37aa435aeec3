"""The wheel is a complete product outside a clone: it installs ``perikles_env``
(training tools and YAML configs included) and no generic top-level ``training`` package;
``perikles-train --config default`` and ``perikles-evaluate`` run from an empty folder that
holds its own ``training/`` package, and a saved model loads from any working directory.

The fresh venv gets only the wheel (``--no-deps``); its third-party dependencies are borrowed
from the test's own environment through a ``.pth`` path entry, so nothing is downloaded and
the project itself can come only from the wheel.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("stable_baselines3")


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out),
         # the wheel's pure-Python contents are what is tested here; building the native
         # core again would only cost minutes (tests/native covers it)
         "--config-settings=cmake.define.PERIKLES_NATIVE=OFF"],
        cwd=out,
        timeout=900,
    )
    (path,) = out.glob("perikles_env-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(home)], cwd=home)
    python = home / "bin" / "python"
    purelib = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    # the dependencies (numpy, torch, sb3, ...) from this environment, after the venv's own
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    ours.append(sysconfig.get_paths()["purelib"])
    (purelib / "_deps_from_test_env.pth").write_text("\n".join(dict.fromkeys(ours)) + "\n")
    _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
         str(wheel)],
        cwd=home,
    )
    return home


@pytest.fixture()
def stranger_folder(tmp_path: Path) -> Path:
    """An empty working folder with its own ``training`` package, as users have."""
    pkg = tmp_path / "training"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("MINE = True\n")
    (pkg / "policy.py").write_text("raise ImportError('the user folder training.policy')\n")
    return tmp_path


def test_wheel_contents(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info",
                                                                             ".data"))}
    assert tops == {"perikles_env"}, tops
    for config in ("default", "smoke", "long", "eval_smoke"):
        assert f"perikles_env/configs/{config}.yaml" in names
    assert "perikles_env/training/ppo/train.py" in names
    assert "perikles_env/launch/ppo.py" in names  # the console scripts start here
    assert "perikles_env/py.typed" in names  # PEP 561: type checkers read the inline hints
    assert "perikles_env/evaluation/runner.py" in names
    assert "perikles_env/bench/protocols/v1.yaml" in names  # the benchmark's pinned protocol
    assert "perikles_env/bench/protocols/exploit_v1.yaml" in names  # --exploit's recipe
    assert not [n for n in names if n.endswith(".whl")]


def test_wheel_description_is_the_readme(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    text = archive.read(metadata).decode()
    assert "Description-Content-Type: text/markdown" in text
    body = text.split("\n\n", 1)[1]
    assert body.startswith("# perikles_env"), body[:200]
    assert (ROOT / "README.md").read_text().strip() in body


def test_installed_package_comes_from_the_wheel(venv: Path, stranger_folder: Path) -> None:
    done = _run(
        [str(venv / "bin" / "python"), "-c",
         "import perikles_env, training; print(perikles_env.__file__); print(training.MINE)"],
        cwd=stranger_folder,
    )
    first, second = done.stdout.splitlines()
    assert Path(first).is_relative_to(venv), first  # not the clone
    assert second == "True"  # the user's own training package is untouched


def test_train_and_evaluate_from_a_stranger_folder(venv: Path, stranger_folder: Path) -> None:
    bin_dir = venv / "bin"
    overrides = [
        "train.total_timesteps=256", "train.n_envs=2", "train.workers=1",
        "train.vec_env=dummy", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
        "train.progress_bar=false", "train.tensorboard=false", "eval.every=0",
        "eval.final_games={random: 4}", "eval.games={random: 4}", "eval.opponents=[random]",
        "eval.workers=1", "opponents.weights={random: 1.0}", "pretrain.decisions=0",
        "eval.agreement_games=0", "name=wheel", "out=runs",
    ]
    _run(
        [str(bin_dir / "perikles-train"), "--config", "default"]
        + [arg for o in overrides for arg in ("--override", o)],
        cwd=stranger_folder,
        timeout=900,
    )
    (run_dir,) = (stranger_folder / "runs").glob("wheel*")
    model = run_dir / "model.zip"
    assert model.is_file()
    assert (run_dir / "report.md").is_file()

    elsewhere = stranger_folder / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "training").symlink_to(stranger_folder / "training")
    done = _run(
        [str(bin_dir / "perikles-evaluate"), "--agents", f"ppo:{model},random,random,random",
         "--players", "4", "--games", "4", "--workers", "1", "--out", str(elsewhere / "ev")],
        cwd=elsewhere,
        timeout=900,
    )
    assert "ppo" in done.stdout
    assert list((elsewhere / "ev").rglob("results.json"))


def test_shipped_eval_config_by_name(venv: Path, stranger_folder: Path) -> None:
    done = _run(
        [str(venv / "bin" / "python"), "-c",
         "from perikles_env.jobs.config_files import find_config, shipped_config_names\n"
         "print(find_config('smoke')); print(find_config('configs/eval_smoke.yaml'))\n"
         "print(shipped_config_names())"],
        cwd=stranger_folder,
    )
    smoke, eval_smoke, names = done.stdout.splitlines()
    assert Path(smoke).is_relative_to(venv) and Path(eval_smoke).is_relative_to(venv)
    assert "'default'" in names and "'long'" in names
