"""``perikles-evaluate --resume`` replays every kept game (seed + actions) and refuses a
folder whose kept results differ from the replay, naming the line; before, an edited
score, rank or action was reported as if played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import perikles_env.evaluation.eval_report as report
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.cli import main
from perikles_env.evaluation.tournament import resume
from tests.training.test_evaluate_resume import _interrupted


@pytest.mark.parametrize(
    ("field", "edit"),
    [
        ("scores", lambda row: row["scores"].__setitem__(0, row["scores"][0] + 5)),
        ("ranks", lambda row: row["ranks"].reverse()),
        ("win_share", lambda row: row["win_share"].reverse()),
        ("location_vp", lambda row: row["location_vp"].__setitem__(1, 99)),
        ("statues", lambda row: row["statues"].__setitem__(0, 3)),
        ("decisions", lambda row: row["decisions"].__setitem__(2, row["decisions"][2] + 1)),
        ("turns", lambda row: row.__setitem__("turns", row["turns"] + 1)),
        ("truncated", lambda row: row.__setitem__("truncated", True)),
        ("forfeit", lambda row: row.__setitem__("forfeit", 1)),
        ("actions", lambda row: row["actions"].__setitem__(5, row["actions"][6])),
        ("actions", lambda row: row["actions"].pop()),
        ("actions", lambda row: row["actions"].append(0)),
        ("actions", lambda row: row.__setitem__("actions", [*row["actions"][:3], "1"])),
    ],
)
def test_an_edited_kept_line_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str, edit
) -> None:
    run_dir = _interrupted(tmp_path, monkeypatch, keep=3)
    partial = run_dir / report.PARTIAL
    lines = partial.read_bytes().splitlines(keepends=True)
    row = json.loads(lines[1])
    edit(row)
    forged = lines[0] + json.dumps(row).encode() + b"\n" + lines[2]
    partial.write_bytes(forged)
    with pytest.raises(InvalidConfigError, match=f"line 2 .*its {field} differ from a replay"):
        resume(run_dir)
    assert partial.read_bytes() == forged  # refused before anything was played or cut


def test_the_untouched_folder_still_resumes_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    run_dir = _interrupted(tmp_path, monkeypatch, keep=3)
    partial = run_dir / report.PARTIAL
    lines = partial.read_bytes().splitlines(keepends=True)
    row = json.loads(lines[2])
    row["scores"][1] += 1
    partial.write_bytes(lines[0] + lines[1] + json.dumps(row).encode() + b"\n")
    assert main(["--resume", str(run_dir), "--quiet"]) == 2
    assert "line 3" in capsys.readouterr().err
    partial.write_bytes(b"".join(lines))
    assert main(["--resume", str(run_dir), "--quiet"]) == 0
    assert json.loads((run_dir / "status.json").read_text())["status"] == "complete"
