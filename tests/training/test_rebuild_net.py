"""``make network``: the chain that rebuilds the shipped search network from nothing. Every
stage's command is one its tool accepts (at full size and at the smoke size), every file a
stage reads is one an earlier stage writes, and a second run goes on where the first
stopped: finished stages skipped, an interrupted training run resumed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from perikles_env.agents.search.net_agent import SHIPPED_NET
from perikles_env.jobs.run_folder import COMPLETE, INTERRUPTED, write_status
from perikles_env.launch import rebuild_net as R
from perikles_env.training.expert.config import load_config as load_expert_config
from perikles_env.training.ppo.config import load_config as load_ppo_config
from perikles_env.training.search_warmstart import arg_parser, default_league


def _accepted(stage: R.Stage, args: list[str]) -> None:
    """``args`` as the stage's tool reads them, validated without running anything."""
    if stage.tool == R.WARM_START:
        parsed = arg_parser().parse_args(args)
        assert default_league(parsed.league)
        return
    config = args[args.index("--config") + 1]
    overrides = [args[i + 1] for i, a in enumerate(args) if a == "--override"]
    load = load_ppo_config if stage.tool == R.PPO else load_expert_config
    loaded = load(config, overrides)
    assert loaded.name == stage.name


@pytest.mark.parametrize("smoke", [False, True], ids=["full", "smoke"])
def test_every_stage_is_a_command_its_tool_accepts(tmp_path: Path, smoke: bool) -> None:
    for stage in R.STAGES:
        cmd = R.command(stage, tmp_path, smoke)
        assert cmd[1:3] == list(stage.tool)
        _accepted(stage, cmd[3:])
        # the configs read the networks they start from: one where the stage leaves its own
        (tmp_path / stage.output).parent.mkdir(parents=True, exist_ok=True)
        if stage.output.endswith(".pkn"):
            shutil.copy(SHIPPED_NET, tmp_path / stage.output)


def test_each_stage_reads_only_what_an_earlier_stage_wrote(tmp_path: Path) -> None:
    written: set[str] = set()
    for stage in R.STAGES:
        args = " ".join(R.command(stage, tmp_path))
        read = set(re.findall(re.escape(str(tmp_path)) + r"/([\w./-]+\.(?:zip|pkn))", args))
        read.discard(stage.output)
        assert read <= written, f"{stage.name} reads {read - written}"
        assert read or stage is R.STAGES[0]
        written.add(stage.output)
    assert R.STAGES[-1].output == "population/net.pkn"


def test_a_second_run_skips_what_is_done_and_resumes_what_was_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, warm, expert = R.STAGES[:3]
    write_status(tmp_path / first.name, COMPLETE)
    (tmp_path / warm.output).write_bytes(b"a network")
    write_status(tmp_path / expert.name, INTERRUPTED)
    assert R.main(["--out", str(tmp_path), "--until", "net_tune", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[1/4] first_network") and lines[0].endswith(
        f"done ({tmp_path / first.output})")
    assert lines[1].startswith("[2/4] warm") and lines[1].endswith("done (" + str(
        tmp_path / "warm.pkn") + ")")
    assert lines[2].startswith("[3/4] expert")
    assert lines[3].endswith(f"perikles_env.launch.expert --resume {tmp_path / 'expert'}")
    assert lines[4].startswith("[4/4] net_tune")
    assert "--config net_tune" in lines[5] and "--resume" not in lines[5]
    assert len(lines) == 6  # nothing ran, no network named


def test_out_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("")
    assert R.main(["--out", str(tmp_path / "f")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


@pytest.mark.slow
def test_the_whole_chain_at_the_smoke_size_ends_in_a_network_for_every_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from perikles_env.agents.search.net_file import load_net

    out = tmp_path / "network"
    assert R.main(["--out", str(out), "--smoke"]) == 0
    assert load_net(out / "population" / "net.pkn").players == (3, 4, 5)
    capsys.readouterr()
    assert R.main(["--out", str(out), "--smoke"]) == 0  # all done: nothing runs again
    done = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in done[:-1]] == [
        f"[{i}/{len(R.STAGES)}] {s.name}" for i, s in enumerate(R.STAGES, 1)]
    assert all(line.endswith(")") and ": done (" in line for line in done[:-1])
