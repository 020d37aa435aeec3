"""The benchmark report of a finished run: ``bench.json`` (machine), ``bench.md`` (human)
and ``bench_win_share.png``; each carries the protocol version, its hash and the package
version, so a result can be cited as "perikles-bench/v1"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import perikles_env
from perikles_env.errors import InvalidConfigError
from perikles_env.evaluation.eval_result import EvalResult

from .plan import Table, not_played
from .protocol import Protocol, published_ratings
from .rating import anchored_rating, member_pairs, pairwise, rating, table_summary

IDENTITY = "bench_run.json"  # written before any game: what a resume must match


def identity(protocol: Protocol, agent: str, quick: bool) -> dict[str, Any]:
    return {"protocol": protocol.version, "protocol_sha256": protocol.sha256,
            "agent": agent, "quick": quick, "package_version": perikles_env.__version__}


def read_identity(run_dir: Path, protocol: Protocol, hint: str = "") -> dict[str, Any]:
    """A run folder's identity, refused in one line unless it is a benchmark run of
    ``protocol`` (``hint``: what to do instead, appended to that refusal; ``{protocol}`` in
    it becomes the run's protocol)."""
    path = run_dir / IDENTITY
    if not path.is_file():
        raise InvalidConfigError(f"{run_dir} is not a benchmark run folder (no {IDENTITY})")
    ident = json.loads(path.read_text())
    if (ident.get("protocol"), ident.get("protocol_sha256")) != (protocol.version,
                                                                 protocol.sha256):
        raise InvalidConfigError(
            f"{run_dir} is a run of {ident.get('protocol')} "
            f"(sha256 {str(ident.get('protocol_sha256'))[:12]}), not {protocol.version} "
            f"(sha256 {protocol.sha256[:12]}){hint.format(protocol=ident.get('protocol'))}")
    return ident


def build(result: EvalResult, protocol: Protocol, tables: list[Table], agent: str,
          quick: bool) -> dict[str, Any]:
    rows, per_game, by_member = [], [], []
    members = [m.name for m in protocol.pool]
    for index, table in enumerate(tables):
        mine = [r for r in result.records if r.matchup == index]
        rows.append(table_summary(table, mine, protocol.seed + index))
        per_game += pairwise(mine, (agent,) + table.opponents)
        by_member.append(member_pairs(mine, (agent,) + table.opponents, members))
    return {**identity(protocol, agent, quick), "tables": rows,
            "rating": _rating(protocol, per_game, by_member, members),
            "not_played": not_played(protocol, quick)}


def _rating(protocol: Protocol, per_game: list, by_member: list[Any], members: list[str]
            ) -> dict[str, Any]:
    """On the published leaderboard's scale where there is one, else every member at 0;
    pairs against members the leaderboard did not rate are left out (and named)."""
    board = published_ratings(protocol)
    if board is None:
        return rating(per_game, protocol.seed)
    ratings, suite = board
    import numpy as np

    anchors = np.array([ratings.get(m, np.nan) for m in members])
    data = np.concatenate(by_member) if by_member else np.zeros((0, len(members), 2))
    unrated = [m for k, m in enumerate(members)
               if np.isnan(anchors[k]) and len(data) and data[:, k, 1].sum() > 0]
    data[:, np.isnan(anchors), :] = 0.0
    scale = (f"Bradley-Terry log-odds of finishing ahead, pool members at their ratings on "
             f"the {protocol.version} leaderboard ({suite} suite)")
    out = anchored_rating(data, np.nan_to_num(anchors), protocol.seed, scale)
    out["left_out"] = unrated
    return out


def markdown(data: dict[str, Any]) -> str:
    def ci(v: list[float], pct: bool = False) -> str:
        f = (lambda x: f"{100 * x:.1f}") if pct else (lambda x: f"{x:.2f}")
        return f"[{f(v[0])}, {f(v[1])}]"

    r = data["rating"]
    lines = [f"# {data['agent']} on {data['protocol']}" + (" (quick)" if data["quick"] else ""),
             "", f"Protocol {data['protocol']} (sha256 {data['protocol_sha256'][:12]}), "
             f"perikles_env {data['package_version']}.", "",
             f"Rating: {r['rating']:.2f} {ci(r['rating_ci'])} ({r.get('scale', '')})."
             + (f" Left out of it (not on the leaderboard): {', '.join(r['left_out'])}."
                if r.get("left_out") else ""), "",
             "| players | table | opponents | games | win share % | x equal share | "
             "mean rank | mean VP |", "|---:|---|---|---:|---|---|---|---|"]
    for t in data["tables"]:
        lines.append(
            f"| {t['players']} | {t['kind']} | {', '.join(t['opponents'])} | {t['games']} | "
            f"{100 * t['win_share']:.1f} {ci(t['win_share_ci'], True)} | "
            f"{t['equal_share_multiple']:.2f} {ci(t['equal_share_multiple_ci'])} | "
            f"{t['mean_rank']:.2f} {ci(t['mean_rank_ci'])} | "
            f"{t['mean_vp']:.1f} {ci(t['mean_vp_ci'])} |")
    if data["not_played"]:
        lines += ["", "Not played:", ""]
        lines += [f"- {x['member']} at {x['players']} players: {x['why']}"
                  for x in data["not_played"]]
    return "\n".join(lines) + "\n"


def write(data: dict[str, Any], run_dir: Path, plots: bool = True) -> None:
    (run_dir / "bench.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    (run_dir / "bench.md").write_text(markdown(data))
    if plots:
        _plot(data, run_dir / "bench_win_share.png")


def _plot(data: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = data["tables"]
    labels = [f"{t['players']}p {t['kind']} {'/'.join(sorted(set(t['opponents'])))}"
              for t in tables]
    shares = [t["win_share"] for t in tables]
    # clipped at 0: at a share of 0 or 1 the interval's end can differ by a rounding error
    err = [[max(0.0, s - t["win_share_ci"][0]) for s, t in zip(shares, tables, strict=True)],
           [max(0.0, t["win_share_ci"][1] - s) for s, t in zip(shares, tables, strict=True)]]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(tables) + 1.5))
    ax.barh(range(len(tables)), shares, xerr=err)
    for i, t in enumerate(tables):
        ax.plot([1 / t["players"]] * 2, [i - 0.4, i + 0.4], "k:")  # the equal share
    ax.set_yticks(range(len(tables)), labels, fontsize=7)
    r = data["rating"]
    ax.set_title(f"{data['agent']}: rating {r['rating']:.2f} "
                 f"[{r['rating_ci'][0]:.2f}, {r['rating_ci'][1]:.2f}] ({data['protocol']})")
    ax.set_xlabel("win share (dotted: equal share)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
