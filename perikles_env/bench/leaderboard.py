"""The leaderboard of a protocol: its pool members rated on one scale from their own
benchmark runs (docs/benchmark.md, "Leaderboard").

``perikles-bench --leaderboard RUN_DIR ...`` reads finished runs of one protocol and one
suite (full or quick) whose agents are pool members, each member once. One Bradley-Terry
model is fitted to every pairwise finish between two different members in those games:
the rated agent against each opponent, and, in mixed tables, opponents of different
members against each other (finishing level counts a half to each). A member never seen
(the quick suite skips the slow ones) is not rated. The strengths are natural-log odds,
their mean 0 (the pool's level), each pair that met given half a game of prior (a quarter
win each way) so an unbeaten record stays finite. The 95 % intervals come from a seeded
bootstrap over each run's games.

Beside the ratings: each member's win share as the rated agent at every count (x the equal
share, Wilson interval), and the head-to-head matrix: the pairwise score of a row member
against a column member, with its bootstrap interval. A pair whose rating order
contradicts a head-to-head score whose interval excludes 1/2 is listed as inconsistent.

``archive`` keeps a member's finished run as the published board's evidence (the records
without their actions, gzipped; ``scripts/archive_bench_runs.py``): a full-suite board
takes hours of runs, made over several sittings, and is refitted from the archive alone.
"""

from __future__ import annotations

import gzip
import json
import shutil
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import perikles_env
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.eval_report import game_line, read_games
from perikles_env.evaluation.runner import GameRecord
from perikles_env.evaluation.stats import wilson_interval

from .protocol import Protocol
from .report import IDENTITY, read_identity

GAMES = "games.jsonl"  # a finished evaluation run's game records
ARCHIVED = "games.jsonl.gz"  # an archived run's: the same records without their actions
PRIOR = 0.5  # pseudo-games per pair that met, split evenly
RESAMPLES = 200
MARK = "<!-- leaderboard"  # the first line of the block docs/benchmark.md holds
END = "<!-- /leaderboard -->"


class Run:
    """One finished benchmark run of a pool member: its games as pairwise tallies."""

    def __init__(self, path: Path, member: str, quick: bool, games: list[GameRecord]) -> None:
        self.path, self.member, self.quick, self.games = path, member, quick, games


def read_run(path: Path, protocol: Protocol) -> Run:
    """A finished run of ``protocol`` whose agent is a pool member, or a one-line error."""
    ident = read_identity(path, protocol)
    games = next((name for name in (GAMES, ARCHIVED) if (path / name).is_file()), None)
    if not (path / "bench.json").is_file() or games is None:
        raise InvalidConfigError(
            f"{path} is not finished (no bench.json): finish it with perikles-bench --resume")
    by_spec = {m.spec: m.name for m in protocol.pool if m.spec is not None}
    member = by_spec.get(ident.get("agent"))
    if member is None:
        raise InvalidConfigError(
            f"{path} rates {ident.get('agent')!r}, which is no member of {protocol.version}'s "
            "pool")
    if tuple(ident.get("players", ())) != tuple(protocol.players):
        raise InvalidConfigError(
            f"{path} played {ident.get('players')} players only, the leaderboard needs "
            f"{list(protocol.players)}")
    return Run(path, member, bool(ident["quick"]), read_games(path, games))


def archive(run_dir: Path, parent: Path, protocol: Protocol) -> Path:
    """Keep a finished member run as the leaderboard's evidence: ``parent/<member>/`` gets
    its identity, its report and its game records without their actions, gzipped (about
    a fiftieth of the size; the seeds and seats replay any game, the engine being
    deterministic). ``--leaderboard`` reads the folder like the run itself. Refused,
    changing nothing, when that folder exists."""
    run = read_run(run_dir, protocol)
    dest = parent / run.member
    if dest.exists():
        raise InvalidConfigError(f"{dest} exists: archive {run.member} into another folder")
    rows = "".join(game_line(replace(game, actions=[])) for game in run.games)
    packed = gzip.compress(rows.encode(), mtime=0)
    staging = parent / f".{run.member}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in (IDENTITY, "bench.json"):
        shutil.copyfile(run_dir / name, staging / name)
    (staging / ARCHIVED).write_bytes(packed)
    staging.rename(dest)  # the folder appears whole or not at all
    return dest


def _tallies(runs: Sequence[Run], protocol: Protocol, names: list[str]) -> list[np.ndarray]:
    """Per run, an array (games, M, M): ``[g, i, j]`` the pairwise score of member i
    against member j in game g (1, 1/2 or 0 per pair of seats)."""
    index = {n: i for i, n in enumerate(names)}
    by_spec = {m.spec: m.name for m in protocol.pool if m.spec is not None}
    out = []
    for run in runs:
        tally = np.zeros((len(run.games), len(names), len(names)), dtype=np.float32)
        for g, record in enumerate(run.games):
            if record.truncated:
                continue
            seats = [index[by_spec[spec]] for spec in record.seats]
            for a, i in enumerate(seats):
                for b, j in enumerate(seats):
                    if i == j:
                        continue
                    ra, rb = record.ranks[a], record.ranks[b]
                    tally[g, i, j] += 1.0 if ra < rb else 0.5 if ra == rb else 0.0
        out.append(tally)
    return out


def fit(wins: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths, mean 0, from ``wins[i, j]`` (i's pairwise score against
    j) by the MM algorithm (Hunter 2004), with ``PRIOR`` pseudo-games per pair that met."""
    meetings = wins + wins.T
    met = meetings > 0
    w = wins + met * PRIOR / 2
    n = meetings + met * PRIOR
    gamma = np.ones(len(w))
    total = w.sum(axis=1)
    for _ in range(2000):
        new = total / (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(gamma))) < 1e-10:
            gamma = new
            break
        gamma = new
    return np.log(gamma)


def build(runs: Sequence[Run], protocol: Protocol, seed: int | None = None) -> dict[str, Any]:
    """The leaderboard's data (module docstring) from ``runs``."""
    if not runs:
        raise InvalidConfigError("--leaderboard needs at least one benchmark run folder")
    seen: dict[str, Path] = {}
    for run in runs:
        if run.member in seen:
            raise InvalidConfigError(
                f"{run.path} and {seen[run.member]} both rate {run.member}: give one run each")
        seen[run.member] = run.path
    if len({run.quick for run in runs}) > 1:
        raise InvalidConfigError("--leaderboard: the runs mix the quick and the full suite")
    quick = runs[0].quick
    order = [m.name for m in protocol.pool if m.spec is not None]
    tallies_all = _tallies(runs, protocol, order)
    total = sum(t.sum(axis=0) for t in tallies_all)
    present = [i for i in range(len(order)) if (total[i] + total[:, i]).sum() > 0]
    names = [order[i] for i in present]
    tallies = [t[:, present][:, :, present] for t in tallies_all]
    wins = sum(t.sum(axis=0) for t in tallies).astype(np.float64)
    point = fit(wins)
    rng = np.random.default_rng(protocol.seed if seed is None else seed)
    boot, boot_scores = [], []
    for _ in range(RESAMPLES):
        sample = np.zeros_like(wins)
        for t in tallies:
            counts = np.bincount(rng.integers(0, len(t), len(t)), minlength=len(t))
            sample += np.tensordot(counts.astype(np.float64), t, axes=1)
        boot.append(fit(sample))
        with np.errstate(invalid="ignore", divide="ignore"):
            boot_scores.append(sample / (sample + sample.T))
    low, high = np.quantile(np.asarray(boot), [0.025, 0.975], axis=0)
    meetings = wins + wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        score = wins / meetings
    with warnings.catch_warnings():  # pairs that never met: no interval (never shown)
        warnings.simplefilter("ignore", RuntimeWarning)
        s_low, s_high = np.nanquantile(np.asarray(boot_scores), [0.025, 0.975], axis=0)
    members = []
    spec = {m.name: m.spec for m in protocol.pool}
    for i, name in enumerate(names):
        run = next((r for r in runs if r.member == name), None)
        members.append({
            "name": name, "spec": spec[name], "rating": float(point[i]),
            "rating_ci": [float(low[i]), float(high[i])],
            "run": run.path.name if run else None,  # None: seen only as an opponent
            "as_agent": _as_agent(run, protocol.players) if run else {},
        })
    members.sort(key=lambda m: -m["rating"])
    head = {
        a: {b: {"score": float(score[i, j]), "ci": [float(s_low[i, j]), float(s_high[i, j])],
                "pairs": float(meetings[i, j])}
            for j, b in enumerate(names) if i != j and meetings[i, j] > 0}
        for i, a in enumerate(names)
    }
    return {
        "protocol": protocol.version, "protocol_sha256": protocol.sha256,
        "package_version": perikles_env.__version__, "suite": "quick" if quick else "full",
        "scale": "Bradley-Terry log-odds of finishing ahead, pool mean 0",
        "members": members, "head_to_head": head,
        "inconsistent": _inconsistent(members, head),
        "not_rated": [m.name for m in protocol.pool if m.name not in names],
    }


def _as_agent(run: Run, players: Sequence[int]) -> dict[str, dict[str, Any]]:
    """The member's win share as the rated agent, per count, over all its tables."""
    out = {}
    for n in players:
        shares = [r.win_share[r.rotation % n] for r in run.games if len(r.seats) == n]
        if not shares:
            continue
        low, high = wilson_interval(sum(shares), len(shares))
        out[str(n)] = {"games": len(shares), "win_share": sum(shares) / len(shares),
                       "win_share_ci": [low, high], "equal_share_multiple": n * sum(shares)
                       / len(shares), "equal_share_multiple_ci": [n * low, n * high]}
    return out


def _inconsistent(members: list[dict[str, Any]], head: dict[str, dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """Pairs rated one way whose head-to-head interval lies wholly the other way."""
    rank = {m["name"]: k for k, m in enumerate(members)}
    out = []
    for a, row in head.items():
        for b, h in row.items():
            if rank[a] < rank[b] and h["ci"][1] < 0.5:
                out.append({"above": a, "below": b, "score": h["score"], "ci": h["ci"]})
    return out


def markdown(data: dict[str, Any]) -> str:
    """The block docs/benchmark.md holds (between its first and last line)."""
    counts = sorted({int(n) for m in data["members"] for n in m["as_agent"]})
    lines = [
        f"{MARK} {data['protocol']} sha256={data['protocol_sha256']} suite={data['suite']} -->",
        "",
        f"{data['protocol']} (sha256 {data['protocol_sha256'][:12]}), {data['suite']} suite, "
        f"perikles_env {data['package_version']}. Rating: {data['scale']}, 95 % bootstrap "
        "interval; x equal share: the member's win share as the rated agent over all its "
        "tables at that count, times the count (Wilson 95 % interval).",
        "",
        "| rank | member | agent spec | rating | "
        + " | ".join(f"{n} players, x equal share" for n in counts) + " |",
        "|---:|---|---|---|" + "---|" * len(counts),
    ]
    for k, m in enumerate(data["members"], start=1):
        cells = []
        for n in counts:
            a = m["as_agent"].get(str(n))
            cells.append(
                f"{a['equal_share_multiple']:.2f} [{a['equal_share_multiple_ci'][0]:.2f}, "
                f"{a['equal_share_multiple_ci'][1]:.2f}] ({a['games']})" if a else "-")
        mark = "" if m["run"] else " *"
        lines.append(
            f"| {k} | {m['name']}{mark} | `{m['spec']}` | {m['rating']:+.2f} "
            f"[{m['rating_ci'][0]:+.2f}, {m['rating_ci'][1]:+.2f}] | " + " | ".join(cells) + " |")
    if any(not m["run"] for m in data["members"]):
        lines += ["", "\\* no run of its own: rated from the games it played as an opponent."]
    names = [m["name"] for m in data["members"]]
    lines += ["", "Head to head: how often the row member finished ahead of the column member "
              "in the same game (level counts a half), all counts, in %:", "",
              "| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for a in names:
        row = data["head_to_head"].get(a, {})
        lines.append(f"| {a} | " + " | ".join(
            f"{100 * row[b]['score']:.0f}" if b in row else "-" for b in names) + " |")
    lines += [""]
    if data["inconsistent"]:
        lines.append("Rated above a member it loses to head to head: " + "; ".join(
            f"{x['above']} above {x['below']} ({100 * x['score']:.0f} % "
            f"[{100 * x['ci'][0]:.0f}, {100 * x['ci'][1]:.0f}])" for x in data["inconsistent"]
        ) + ".")
    else:
        lines.append("The ordering agrees with every head-to-head score whose interval "
                     "excludes 50 %.")
    if data["not_rated"]:
        lines += ["", "Not rated: " + ", ".join(data["not_rated"]) + "."]
    lines += [END]
    return "\n".join(lines) + "\n"


def write(data: dict[str, Any], out: Path, plots: bool = True) -> None:
    (out / "leaderboard.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    (out / "leaderboard.md").write_text(markdown(data))
    if plots:
        _plot(data, out / "leaderboard.png")


def _plot(data: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    members = data["members"][::-1]
    ratings = [m["rating"] for m in members]
    err = [[r - m["rating_ci"][0] for r, m in zip(ratings, members, strict=True)],
           [m["rating_ci"][1] - r for r, m in zip(ratings, members, strict=True)]]
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(members) + 1.5))
    ax.errorbar(ratings, range(len(members)), xerr=err, fmt="o", capsize=3)
    ax.axvline(0.0, color="k", linestyle=":")
    ax.set_yticks(range(len(members)), [m["name"] for m in members])
    ax.set_xlabel("rating (log-odds of finishing ahead; pool mean 0)")
    ax.set_title(f"{data['protocol']} leaderboard ({data['suite']} suite)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def page_block(text: str) -> str | None:
    """The leaderboard block of a page (its marker line to its end line), if any."""
    start = text.find(MARK)
    if start < 0:
        return None
    end = text.find(END, start)
    return text[start: end + len(END)] + "\n" if end >= 0 else None
