"""perikles-bench: the pinned protocol, its tables, reproducible runs, resume, user agents,
and one-line refusals that write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perikles_env.bench.cli import _config, main, rate, resume_run
from perikles_env.bench.plan import not_played, plan_tables
from perikles_env.bench.protocol import PROTOCOLS, RECORDED_HASHES, load_protocol
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.runner import TIMING_KEYS
from perikles_env.evaluation.tournament import build_jobs
from perikles_env.jobs.run_folder import INTERRUPTED, write_status

HERE = Path(__file__).parent
TINY = str(HERE / "tiny_protocol.yaml")


def _games(run_dir: Path) -> list[dict]:
    out = []
    for line in (run_dir / "games.jsonl").read_text().splitlines():
        record = json.loads(line)
        for key in TIMING_KEYS:
            record.pop(key, None)
        out.append(record)
    return out



def test_v3_is_the_default_shipped_pinned_and_has_the_pool():
    protocol = load_protocol()
    assert protocol.version == "perikles-bench/v3"
    assert protocol.sha256 == RECORDED_HASHES["perikles-bench/v3"]
    assert len(protocol.pool) >= 10 and protocol.players == (3, 4, 5)
    names = {m.name for m in protocol.pool}
    assert {"random", "heuristic", "warlike", "politician", "spiteful", "net", "search",
            "recipe"} <= names
    assert sum(m.spec is not None and m.spec.startswith("ismcts") for m in protocol.pool) == 3
    assert all(m.players == (3, 4, 5) and m.spec for m in protocol.pool)  # every slot filled
    assert protocol.seed >= 1_000_000  # out of the training configs' seed range
    # the members that play a model file are pinned to this install's files
    assert set(protocol.model_hashes()) == {"net", "search", "recipe"}
    protocol.check_models((3, 4, 5))
    for version in ("v1", "v2"):
        assert load_protocol(version).sha256 == RECORDED_HASHES[f"perikles-bench/{version}"]
    assert {m.name: m.players for m in load_protocol("v1").pool}["net"] == (4,)
    # v2's recipe slot played the earlier make train model, which this package replaced
    with pytest.raises(InvalidConfigError, match="member 'recipe' plays the model file"):
        load_protocol("v2").check_models((4,), quick=True)


def test_the_full_suite_fits_two_hours_for_an_agent_of_0_2_s_per_decision():
    """docs/benchmark.md, "The full suite's budget": the agent's own games,
    about 95 decisions a game, at 0.2 s each on 2 workers, leave at least a fifth of two
    hours to the opponents; v2's 200 games per table needed 12 times the two hours."""
    protocol, config = _config(load_protocol(), "heuristic", False, None, 2, "runs", False)
    assert len(config.lineups) == 3 * (11 + protocol.mixed.tables)
    games = len(build_jobs(config))
    assert games == 510
    assert games * 95 * 0.2 / 2 <= 0.8 * 2 * 3600
    v2 = load_protocol("v2")  # its tables, counted as the evaluator rounds them
    v2_games = sum(-(-v2.games.full // t.players) * t.players
                   for t in plan_tables(v2, "heuristic", quick=False))
    assert v2_games * 95 * 0.2 / 2 > 10 * 2 * 3600


def test_a_member_whose_model_file_changed_is_refused(tmp_path, capsys, four_player_network):
    """v1 was measured with the 4-player network shipped before; v3 with today's: a run
    whose members would play another file is refused, in one line, before any game."""
    for version, count in (("v1", 4), ("v3", 3)):
        with pytest.raises(InvalidConfigError, match="member 'net' plays the model file") as e:
            load_protocol(version).check_models((count,), quick=True)
        assert "four.pkn" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(SystemExit) as info:
        main(["heuristic", "--quick", "--protocol", "v1", "--out", str(tmp_path / "runs")])
    assert info.value.code == 2 and "member 'net'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_a_protocol_edited_by_hand_is_refused(tmp_path):
    edited = tmp_path / "v1.yaml"
    edited.write_text((PROTOCOLS / "v1.yaml").read_text().replace("full: 200", "full: 100"))
    with pytest.raises(InvalidConfigError, match="recorded hash") as info:
        load_protocol(str(edited))
    assert "\n" not in str(info.value)


def test_tables_skip_members_at_counts_they_do_not_play():
    protocol = load_protocol(TINY)
    tables = plan_tables(protocol, "random", quick=False)
    assert [(t.kind, t.opponents) for t in tables[:2]] == [
        ("vs", ("random", "random")), ("vs", ("heuristic", "heuristic"))]
    assert tables[2].kind == "mixed" and sorted(tables[2].opponents) == ["heuristic", "random"]
    assert len(tables) == 3 and plan_tables(protocol, "random", quick=False) == tables
    skipped = {(x["member"], x["players"]) for x in not_played(protocol)}
    assert skipped == {("net", 3), ("recipe", 3)}
    v1 = load_protocol("v1")
    quick = plan_tables(v1, "heuristic", quick=True)
    assert not any("search" in t.lineup or "ismcts:sims=100" in t.lineup for t in quick)
    assert any(t.players == 4 and t.opponents == ("net",) * 3 for t in quick)
    assert not any("net" in t.opponents for t in quick if t.players != 4)
    v3 = plan_tables(load_protocol(), "heuristic", quick=True)
    for n in (3, 4, 5):
        assert {t.opponents[0] for t in v3 if t.players == n and t.kind == "vs"} == {
            "random", "heuristic", "warlike", "politician", "spiteful", "ismcts-10", "net",
            "recipe"}


def test_two_runs_give_the_same_games_and_report(tmp_path):
    protocol = load_protocol(TINY)
    first, a = rate("heuristic", protocol, out=str(tmp_path / "a"), plots=False)
    second, b = rate("heuristic", protocol, out=str(tmp_path / "b"), plots=False)
    assert _games(first) == _games(second) and len(_games(first)) == 9
    assert a == b
    assert a["protocol"] == "perikles-bench/test" and a["package_version"]
    assert [t["games"] for t in a["tables"]] == [3, 3, 3]
    for t in a["tables"]:
        low, high = t["win_share_ci"]
        assert 0 <= low <= t["win_share"] <= high <= 1
        assert t["equal_share_multiple"] == pytest.approx(3 * t["win_share"])
    low, high = a["rating"]["rating_ci"]
    assert low <= a["rating"]["rating"] <= high
    assert (first / "bench.md").read_text().startswith("# heuristic on perikles-bench/test")


def test_an_interrupted_run_resumed_gives_the_same_report(tmp_path):
    protocol = load_protocol(TINY)
    run_dir, whole = rate("heuristic", protocol, out=str(tmp_path), plots=False)
    lines = (run_dir / "games.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "games.partial.jsonl").write_text("".join(lines[:4]))
    for name in ("games.jsonl", "results.json", "report.md", "bench.json", "bench.md"):
        (run_dir / name).unlink()
    write_status(run_dir, INTERRUPTED)
    _, resumed = resume_run(run_dir, protocol)
    assert resumed == whole
    assert len(_games(run_dir)) == 9


def test_a_run_folder_of_another_protocol_is_refused(tmp_path):
    run_dir, _ = rate("random", load_protocol(TINY), out=str(tmp_path), plots=True)
    assert (run_dir / "bench_win_share.png").stat().st_size > 1000
    before = sorted(p.name for p in run_dir.iterdir())
    with pytest.raises(InvalidConfigError, match="is a run of perikles-bench/test"):
        resume_run(run_dir, load_protocol())
    with pytest.raises(InvalidConfigError, match="not a benchmark run folder"):
        resume_run(tmp_path, load_protocol(TINY))
    assert sorted(p.name for p in run_dir.iterdir()) == before


@pytest.mark.parametrize("callable_name", ["make_agent", "make_policy"])
def test_a_users_agent_in_its_own_file_is_rated(tmp_path, capsys, callable_name):
    spec = f"{HERE / 'my_agent.py'}:{callable_name}"
    code = main([spec, "--protocol", TINY, "--out", str(tmp_path), "--no-plots"])
    assert code == 0
    (run_dir,) = tmp_path.iterdir()
    data = json.loads((run_dir / "bench.json").read_text())
    assert data["agent"] == f"python:{HERE / 'my_agent.py'}:{callable_name}"
    assert sum(t["games"] for t in data["tables"]) == 9
    assert "rating" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no_such_agent"], "unknown agent"),
        (["nomodule_xyz:make"], "cannot load python agent"),
        (["net"], "plays only 4-player games"),
        (["heuristic", "--protocol", "v9"], "no benchmark protocol"),
        (["heuristic", "--exploit", "heuristic"], "give no agent"),
        (["--exploit", "net", "--players", "3"], "plays only 4-player games"),
        (["--exploit", "heuristic", "--players", "3", "4"], "one player count"),
        (["--exploit", "no_such_agent"], "unknown agent"),
        (["--exploit", "heuristic", "--recipe", "no_such_recipe.yaml"], "no file"),
        (["--exploit", "heuristic", "--minutes", "0"], "above 0"),
        ([], "give an agent spec"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, argv, message,
                                                  four_player_network):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--out", str(tmp_path / "runs")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("perikles-bench: error:")
    assert not (tmp_path / "runs").exists()


def test_the_benchmark_page_describes_the_current_protocol():
    """docs/benchmark.md names the shipped version and every pool member's spec, and the
    commands that build the leaderboard (its block: test_leaderboard.py)."""
    text = (HERE.parents[1] / "docs" / "benchmark.md").read_text()
    protocol = load_protocol()
    assert protocol.version in text
    for member in protocol.pool:
        if member.spec is not None:
            assert member.spec in text, member.spec
    board = text.split("## Leaderboard", 1)[1].split("\n## ", 1)[0]
    assert "perikles-bench --leaderboard" in board and "--quick" in board


def test_a_python_agent_is_refused_outside_the_benchmark(tmp_path) -> None:
    """A config, a run folder or a web request naming ``python:`` never imports code: only
    perikles-bench accepts the user's own agent."""
    from perikles_env.agents import AgentError, make_agent
    from perikles_env.evaluation.config import EvalConfig

    marker = tmp_path / "ran"
    module = tmp_path / "evil.py"
    module.write_text(f"open({str(marker)!r}, 'w').close()\ndef make():\n    return None\n")
    spec = f"python:{module}:make"
    with pytest.raises(AgentError, match="only perikles-bench accepts them"):
        make_agent(spec)
    with pytest.raises(ValueError, match="only perikles-bench accepts them"):
        EvalConfig(lineups=[(spec, "random", "random")])
    assert not marker.exists()
