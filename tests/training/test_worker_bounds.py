"""Worker processes are bounded by the machine (``perikles_env/workers.py``): a huge
``--workers``, config value or a count read back from a run folder on ``--resume`` starts
at most ``os.cpu_count()`` processes, with a one-line note. Before, ``perikles-evaluate
--workers 1000000`` started hundreds of processes and a gigabyte within seconds."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path
from typing import Any

import pytest

import perikles_env.evaluation.eval_report as report
import perikles_env.training.expert.self_play_games as selfplay
import perikles_env.training.ppo.pretrain as pretrain
from perikles_env import workers as W
from perikles_env.evaluation.tournament import evaluate, resume
from perikles_env.single_agent import OpponentPool, RewardConfig
from perikles_env.training.ppo.vec_env import BatchedSubprocVecEnv
from tests.training.test_evaluate_resume import LINEUP, _interrupted
from tests.training.test_vec_env import _fns

HUGE = 1_000_000


def test_the_helper_lowers_to_the_cpu_count_with_one_note(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(W.os, "cpu_count", lambda: 3)
    monkeypatch.setattr(W, "_noted", set())
    assert W.bounded_workers(HUGE, "eval.workers") == 3
    assert W.bounded_workers(HUGE, "eval.workers") == 3
    note = "note: eval.workers lowered from 1000000 to 3 (the CPU count)\n"
    assert capsys.readouterr().err == note
    assert W.bounded_workers(2, "x") == 2 and W.bounded_workers(0, "x") == 1
    assert W.bounded_workers(HUGE, "y", tasks=2) == 2  # never more processes than tasks
    assert W.bounded_workers(3, "z", tasks=8) == 3
    assert capsys.readouterr().err.count("\n") == 1  # y's note only
    monkeypatch.setattr(W.os, "cpu_count", lambda: None)
    assert W.bounded_workers(HUGE, "w") == 1


def _count_children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The live child processes each time a game is recorded."""
    seen: list[int] = []
    append = report.append_game

    def counting(run_dir: Path, record: Any) -> None:
        seen.append(len(mp.active_children()))
        append(run_dir, record)

    monkeypatch.setattr(report, "append_game", counting)
    return seen


def test_a_huge_evaluate_workers_starts_at_most_cpu_count_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    seen = _count_children(monkeypatch)
    evaluate(LINEUP, players=4, games=8, seed=3, workers=HUGE, out=str(tmp_path), name="w",
             plots=False)
    cores = W.machine_cores()
    assert len(seen) == 8 and 1 <= max(seen) <= cores
    if cores < 8:
        assert f"lowered from {HUGE} to {cores}" in capsys.readouterr().err


def test_a_huge_count_read_back_on_resume_is_bounded_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = _interrupted(tmp_path, monkeypatch, keep=4)
    config = json.loads((run_dir / report.CONFIG).read_text())
    config["workers"] = HUGE
    (run_dir / report.CONFIG).write_text(json.dumps(config))
    seen = _count_children(monkeypatch)
    assert len(resume(run_dir).records) == 12
    assert len(seen) == 8 and 1 <= max(seen) <= W.machine_cores()


class _Refused(Exception):
    pass


def _recording_context(started: list[int]) -> Any:
    """A spawn context whose Pool records its size and starts nothing."""

    class Context:
        def Pool(self, processes: int) -> Any:  # noqa: N802 - multiprocessing's name
            started.append(processes)
            raise _Refused

    return lambda method: Context()


def test_self_play_and_pretraining_pools_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """``selfplay.workers`` (up to 256 shards) and ``pretrain.workers``: the shards and
    batches stay as asked (so the games do not change), the processes are bounded."""
    started: list[int] = []
    monkeypatch.setattr(W.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(selfplay.mp, "get_context", _recording_context(started))
    with pytest.raises(_Refused):
        selfplay.play_sharded(None, None, {}, games=256, parallel=256, seed=0,  # type: ignore[arg-type]
                              workers=256)
    assert len(selfplay.shard_sizes(256, 256, 256)) == 256 and started == [2]
    with pytest.raises(_Refused):
        pretrain.collect_demos(100, 0, (4,), "heuristic", OpponentPool.of("random"),
                               RewardConfig(), 0.99, workers=HUGE)
    assert started == [2, 2]


def test_the_subprocess_vec_env_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(W.os, "cpu_count", lambda: 1)
    vec = BatchedSubprocVecEnv(_fns(3), workers=HUGE)
    try:
        assert len(vec.processes) == 1 and vec.num_envs == 3
        vec.reset()
    finally:
        vec.close()
