"""perikles-bench --leaderboard: one Bradley-Terry scale fitted to the pool members' own
benchmark runs, its numbers checked against the games by hand, its refusals one line, and
the published board on docs/benchmark.md belonging to the current protocol."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perikles_env.bench import leaderboard
from perikles_env.bench.cli import main, rate
from perikles_env.bench.protocol import load_protocol
from perikles_env.errors import InvalidConfigError

HERE = Path(__file__).parent
TINY = str(HERE / "tiny_protocol.yaml")
DOCS = HERE.parents[1] / "docs"
ARCHIVE = HERE.parents[1] / "benchmarks" / "leaderboard"


def assert_same_board(built: object, board: object, where: str = "board") -> None:
    """``built`` equals ``board`` in every key, string and count; floats agree to 1e-9
    (the fit's last bits differ between machines' numpy kernels)."""
    if isinstance(board, dict):
        assert isinstance(built, dict) and built.keys() == board.keys(), where
        for key in board:
            assert_same_board(built[key], board[key], f"{where}.{key}")
    elif isinstance(board, list):
        assert isinstance(built, list) and len(built) == len(board), where
        for i, (a, b) in enumerate(zip(built, board, strict=True)):
            assert_same_board(a, b, f"{where}[{i}]")
    elif isinstance(board, float):
        assert built == pytest.approx(board, rel=1e-9, abs=1e-12), where
    else:
        assert built == board and type(built) is type(board), where


def test_the_fit_recovers_known_strengths() -> None:
    truth = np.array([1.0, 0.2, -0.4, -0.8])
    truth -= truth.mean()
    p = 1 / (1 + np.exp(-(truth[:, None] - truth[None, :])))
    wins = 100000 * p
    np.fill_diagonal(wins, 0)
    fitted = leaderboard.fit(wins)
    assert fitted.mean() == pytest.approx(0, abs=1e-9)
    np.testing.assert_allclose(fitted, truth, atol=1e-3)
    # an unbeaten record stays finite (the prior); pairs that never met carry nothing
    unbeaten = np.array([[0, 10.0, 0], [0, 0, 5.0], [0, 5.0, 0]])
    ratings = leaderboard.fit(unbeaten)
    assert np.isfinite(ratings).all() and ratings[0] > ratings[1] == pytest.approx(ratings[2])


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory) -> tuple[Path, Path, Path]:
    out = tmp_path_factory.mktemp("runs")
    protocol = load_protocol(TINY)
    first, _ = rate("random", protocol, out=str(out / "a"), plots=False)
    second, _ = rate("heuristic", protocol, out=str(out / "b"), plots=False)
    quick, _ = rate("random", protocol, quick=True, out=str(out / "c"), plots=False)
    return first, second, quick


def _pairwise_by_hand(run_dirs) -> dict[tuple[str, str], list[float]]:
    names = {"random": "random", "heuristic": "heuristic"}
    tally: dict[tuple[str, str], list[float]] = {}
    for run_dir in run_dirs:
        for line in (run_dir / "games.jsonl").read_text().splitlines():
            game = json.loads(line)
            for a, sa in enumerate(game["seats"]):
                for b, sb in enumerate(game["seats"]):
                    if names[sa] == names[sb]:
                        continue
                    ra, rb = game["ranks"][a], game["ranks"][b]
                    entry = tally.setdefault((names[sa], names[sb]), [0.0, 0.0])
                    entry[0] += 1.0 if ra < rb else 0.5 if ra == rb else 0.0
                    entry[1] += 1
    return tally


def test_a_leaderboard_of_two_members_matches_its_games(tiny_runs, tmp_path, capsys) -> None:
    first, second, _ = tiny_runs
    assert main(["--protocol", TINY, "--leaderboard", str(first), str(second),
                 "--out", str(tmp_path)]) == 0
    assert "2 members of perikles-bench/test rated (full suite)" in capsys.readouterr().out
    folder = tmp_path / "leaderboard-perikles-bench-test"
    data = json.loads((folder / "leaderboard.json").read_text())
    assert data["protocol"] == "perikles-bench/test" and data["suite"] == "full"
    assert data["not_rated"] == ["net", "recipe"]
    by_hand = _pairwise_by_hand([first, second])
    head = data["head_to_head"]
    for (a, b), (score, pairs) in by_hand.items():
        assert head[a][b]["score"] == pytest.approx(score / pairs)
        assert head[a][b]["pairs"] == pairs
        low, high = head[a][b]["ci"]
        assert 0 <= low <= high <= 1
    # two members: the fit is the pairwise log-odds with the prior, split about 0
    score, pairs = by_hand[("heuristic", "random")]
    expected = np.log((score + 0.25) / (pairs - score + 0.25)) / 2
    ratings = {m["name"]: m for m in data["members"]}
    assert ratings["heuristic"]["rating"] == pytest.approx(expected, abs=1e-6)
    assert ratings["random"]["rating"] == pytest.approx(-expected, abs=1e-6)
    assert [m["name"] for m in data["members"]] == ["heuristic", "random"]
    for m in data["members"]:
        low, high = m["rating_ci"]
        assert low <= m["rating"] <= high
    # as the rated agent: the win share over all of its run's games, by hand
    bench = json.loads((second / "bench.json").read_text())
    games = sum(t["games"] for t in bench["tables"])
    share = sum(t["win_share"] * t["games"] for t in bench["tables"]) / games
    mine = ratings["heuristic"]["as_agent"]["3"]
    assert mine["games"] == games and mine["win_share"] == pytest.approx(share)
    assert mine["equal_share_multiple"] == pytest.approx(3 * share)
    page = (folder / "leaderboard.md").read_text()
    assert page.startswith("<!-- leaderboard perikles-bench/test sha256=")
    assert "| 1 | heuristic | `heuristic` |" in page and page.endswith("<!-- /leaderboard -->\n")
    assert (folder / "leaderboard.png").stat().st_size > 1000
    # the same runs again: the same board, in a new folder (without the picture if asked)
    assert main(["--protocol", TINY, "--leaderboard", str(first), str(second),
                 "--out", str(tmp_path), "--no-plots"]) == 0
    again = tmp_path / "leaderboard-perikles-bench-test-2"
    assert (again / "leaderboard.json").read_text() == (folder / "leaderboard.json").read_text()
    assert (again / "leaderboard.md").read_text() == page
    assert not (again / "leaderboard.png").exists()


def test_an_archived_run_gives_the_same_board_and_is_never_overwritten(
        tiny_runs, tmp_path) -> None:
    """The published board's evidence: runs kept without their actions, gzipped, read by
    ``--leaderboard`` like the runs themselves."""
    first, second, _ = tiny_runs
    protocol = load_protocol(TINY)
    kept = [leaderboard.archive(run, tmp_path / "archive", protocol) for run in (first, second)]
    assert [p.name for p in kept] == ["random", "heuristic"]
    for run, copy in zip((first, second), kept, strict=True):
        assert sorted(p.name for p in copy.iterdir()) == [
            "bench.json", "bench_run.json", "games.jsonl.gz"]
        assert (copy / "games.jsonl.gz").stat().st_size < (run / "games.jsonl").stat().st_size / 4
        original = leaderboard.read_run(run, protocol).games
        archived = leaderboard.read_run(copy, protocol).games
        assert archived == [replace(g, actions=[]) for g in original]
        assert all(g.actions for g in original) and len(original) > 0
    built = leaderboard.build([leaderboard.read_run(p, protocol) for p in (first, second)],
                              protocol)
    rebuilt = leaderboard.build([leaderboard.read_run(p, protocol) for p in kept], protocol)
    for data in (built, rebuilt):
        for m in data["members"]:
            m.pop("run")
    assert rebuilt == built
    before = (kept[0] / "games.jsonl.gz").read_bytes()
    with pytest.raises(InvalidConfigError, match="random exists: archive random into another"):
        leaderboard.archive(first, tmp_path / "archive", protocol)
    assert (kept[0] / "games.jsonl.gz").read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "archive").iterdir()) == ["heuristic", "random"]


def test_inconsistent_pairs_are_listed() -> None:
    members = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    head = {"a": {"b": {"score": 0.3, "ci": [0.2, 0.45]}, "c": {"score": 0.45, "ci": [0.3, 0.6]}},
            "b": {"a": {"score": 0.7, "ci": [0.55, 0.8]}}}
    assert leaderboard._inconsistent(members, head) == [
        {"above": "a", "below": "b", "score": 0.3, "ci": [0.2, 0.45]}]


def _unfinished(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "unfinished"
    shutil.copytree(run_dir, copy)
    (copy / "bench.json").unlink()
    return copy


@pytest.mark.parametrize(
    "case,message",
    [
        ("not_a_run", "is not a benchmark run folder"),
        ("other_protocol", "is a run of perikles-bench/test"),
        ("unfinished", "is not finished"),
        ("twice", "both rate random"),
        ("mixed_suites", "mix the quick and the full suite"),
    ],
)
def test_bad_leaderboard_input_is_one_line_and_writes_nothing(
    tiny_runs, tmp_path, capsys, case, message
) -> None:
    first, second, quick = tiny_runs
    protocol = ["--protocol", TINY]
    dirs = {
        "not_a_run": [str(tmp_path)],
        "other_protocol": [str(first)],
        "unfinished": [str(_unfinished(first, tmp_path))],
        "twice": [str(first), str(quick)],
        "mixed_suites": [str(second), str(quick)],
    }[case]
    if case == "other_protocol":
        protocol = []
    with pytest.raises(SystemExit) as info:
        main([*protocol, "--leaderboard", *dirs, "--out", str(tmp_path / "out")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("perikles-bench: error:")
    assert not (tmp_path / "out").exists()


def test_a_run_of_an_agent_outside_the_pool_is_refused(tmp_path) -> None:
    run_dir, _ = rate("heuristic:spite=0.1", load_protocol(TINY), quick=True,
                      out=str(tmp_path), plots=False)
    with pytest.raises(InvalidConfigError, match="no member of perikles-bench/test's pool"):
        leaderboard.read_run(run_dir, load_protocol(TINY))


def test_the_published_board_belongs_to_the_current_protocol() -> None:
    """docs/benchmark.md's leaderboard block is exactly what `--leaderboard` wrote for the
    shipped protocol (its JSON in the package, whose ratings anchor every run's rating), so
    a new protocol version cannot keep an old board."""
    from perikles_env.bench.protocol import board_file, published_ratings

    text = (DOCS / "benchmark.md").read_text()
    block = leaderboard.page_block(text)
    assert block is not None, "docs/benchmark.md has no leaderboard block"
    protocol = load_protocol()
    data = json.loads(board_file(protocol).read_text())
    assert published_ratings(protocol) == (
        {m["name"]: m["rating"] for m in data["members"]}, data["suite"])
    assert (data["protocol"], data["protocol_sha256"]) == (protocol.version, protocol.sha256)
    assert block == leaderboard.markdown(data)
    assert len(data["members"]) >= 10
    ranks = [m["rating"] for m in data["members"]]
    assert ranks == sorted(ranks, reverse=True)
    assert set(json.loads(json.dumps(data["not_rated"]))) <= {m.name for m in protocol.pool}


def test_the_archived_member_runs_are_whole_full_suite_runs_of_the_protocol() -> None:
    """benchmarks/leaderboard/<version>/: the evidence of the full-suite board, built over
    several sittings. Each folder is a finished full-suite run of the member it is named
    after, holding exactly the games of that member's job list, each with its seats in
    the evaluator's order; a full-suite board, once published, is refitted from them."""
    from perikles_env.bench.cli import _config
    from perikles_env.bench.protocol import board_file
    from perikles_env.evaluation.tournament import build_jobs

    protocol = load_protocol()
    folder = ARCHIVE / protocol.version.rsplit("/", 1)[-1]
    runs = [leaderboard.read_run(path, protocol) for path in sorted(folder.iterdir())]
    assert runs, f"{folder} holds no run"
    spec = {m.name: m.spec for m in protocol.pool}
    for run in runs:
        assert run.path.name == run.member and not run.quick
        _, config = _config(protocol, spec[run.member], False, None, 2, "runs", False)
        jobs = {(j.matchup, j.seed_index, j.rotation): (j.seed, j.lineup)
                for j in build_jobs(config)}
        games = {(g.matchup, g.seed_index, g.rotation): (g.seed, g.seats) for g in run.games}
        assert len(games) == len(run.games) == len(jobs)
        for key, (seed, lineup) in jobs.items():
            n = len(lineup)
            assert games[key] == (seed, [lineup[(s - key[2]) % n] for s in range(n)]), key
    board = json.loads(board_file(protocol).read_text())
    if board["suite"] == "full":
        assert {run.member for run in runs} == set(spec)
        assert_same_board(leaderboard.build(runs, protocol), board)


def test_an_anchored_strength_recovers_the_truth() -> None:
    from perikles_env.bench.rating import strength

    anchors = np.array([0.5, -0.5, 1.5])
    theta = 0.2
    meetings = np.array([4e6, 4e6, 4e6])
    wins = meetings / (1 + np.exp(anchors - theta))
    assert strength(wins, meetings, anchors) == pytest.approx(theta, abs=1e-4)
    # a member never met carries nothing; nobody met: no rating
    assert strength(wins * [1, 1, 0], meetings * [1, 1, 0], anchors) == pytest.approx(
        theta, abs=1e-4)
    assert np.isnan(strength(np.zeros(3), np.zeros(3), anchors))


@pytest.mark.parametrize("board", [{"random": -1.0, "heuristic": 0.3}, {"random": -1.0}])
def test_a_run_is_rated_on_the_published_leaderboard_s_scale(tmp_path, monkeypatch, board):
    from perikles_env.bench import report
    from perikles_env.bench.rating import strength

    monkeypatch.setattr(report, "published_ratings", lambda protocol: (board, "quick"))
    run_dir, data = rate("heuristic:spite=0.1", load_protocol(TINY), out=str(tmp_path),
                         plots=False)
    r = data["rating"]
    assert "leaderboard (quick suite)" in r["scale"]
    # by hand: the agent's pairwise finishes against each member's seats in its games
    wins, meetings = {"random": 0.0, "heuristic": 0.0}, {"random": 0.0, "heuristic": 0.0}
    for line in (run_dir / "games.jsonl").read_text().splitlines():
        game = json.loads(line)
        me = game["seats"].index("heuristic:spite=0.1")
        for other, spec in enumerate(game["seats"]):
            if other == me:
                continue
            a, b = game["ranks"][me], game["ranks"][other]
            wins[spec] += 1.0 if a < b else 0.5 if a == b else 0.0
            meetings[spec] += 1
    names = [n for n in ("random", "heuristic") if n in board]
    expected = strength(np.array([wins[n] for n in names]),
                        np.array([meetings[n] for n in names]), np.array([board[n] for n in names]))
    assert r["rating"] == pytest.approx(expected, abs=1e-9)
    assert r["left_out"] == ([] if "heuristic" in board else ["heuristic"])
    low, high = r["rating_ci"]
    assert low <= r["rating"] <= high
    if "heuristic" not in board:
        assert "Left out of it (not on the leaderboard): heuristic." in (
            run_dir / "bench.md").read_text()
