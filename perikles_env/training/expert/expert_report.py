"""The report of an expert-iteration run: ``summary.json``, ``report.md`` (per iteration:
games, positions, losses, evaluation win rates with 95 % CIs) and ``learning_curve.png``
(win rate against iterations per evaluated matchup), written atomically."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from perikles_env.files import write_text
from perikles_env.training.learning_curves import save_win_rate_plot

CURVE = "learning_curve.png"


def write_learning_curve(history: list[dict[str, Any]], path: Path) -> bool:
    """Evaluation win rates (with their CIs) against iterations; False when none."""
    evals = [h for h in history if h.get("eval")]
    if not evals:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for key in sorted({k for h in evals for k in h["eval"]}):
        pts = [(h["iteration"], h["eval"][key]) for h in evals if key in h["eval"]]
        x = [p[0] for p in pts]
        ax.plot(x, [100 * p[1]["win_rate"] for p in pts], marker="o", label=key)
        ax.fill_between(
            x, [100 * p[1]["ci"][0] for p in pts], [100 * p[1]["ci"][1] for p in pts], alpha=0.15
        )
    ax.set_xlabel("iteration")
    save_win_rate_plot(fig, ax, path)
    return True


def markdown(summary: dict[str, Any]) -> str:
    history = summary["history"]
    done = summary["status"] == "complete"
    net = summary.get("net")
    lines = [
        f"# Expert-iteration run `{summary['name']}`" + ("" if done else " (INTERRUPTED)"),
        "",
        f"* command: `{summary['command']}`",
        f"* iterations: {summary['iterations']} of {summary['budget_iterations']} in "
        f"{summary['seconds'] / 60:.1f} min"
        + (" (stopped by `budget.minutes`)" if summary.get("stopped_by_time") else ""),
        f"* warm start: {summary['warm_start'] or 'none (random weights)'}",
    ]
    if not done:
        lines.append(
            f"* continue with `perikles-search-train --resume {shlex.quote(summary['run_dir'])}`"
        )
    if net:
        lines.append(f"* network: `{net}` (play it as `search:model={net}` or `net:{net}`)")
    lines += [
        "",
        "## Iterations",
        "",
    ]
    keys = sorted({k for h in history for k in h.get("eval", {})})
    anchored = any("anchor_kl" in (h["learn"].get("held_out") or {}) for h in history)
    head = ("| iteration | games | positions | window | policy loss | value loss "
            "| new positions: policy / value | policy entropy: network / targets "
            + ("| KL from the anchor " if anchored else "") + "| min |")
    lines += [head + "".join(f" {k} |" for k in keys),
              "|" + "---:|" * (9 + anchored + len(keys))]
    for h in history:
        learn = h["learn"]
        new = learn.get("held_out")  # absent in runs from before it was recorded
        cells = [
            str(h["iteration"]), str(h["games"]), f"{h['positions']:,}", f"{h['window_rows']:,}",
            f"{learn['policy'][-1]:.3f}" if learn["policy"] else "-",
            f"{learn['value'][-1]:.3f}" if learn["value"] else "-",
            f"{new['policy']:.3f} / {new['value']:.3f}" if new else "-",
            f"{new['policy_entropy']:.3f} / {new['target_entropy']:.3f}"
            if new and "policy_entropy" in new else "-",  # recorded since after held_out
            *([f"{new['anchor_kl']:.3f}" if new and "anchor_kl" in new else "-"]
              if anchored else []),
            f"{h['seconds'] / 60:.1f}",
        ]
        for k in keys:
            e = h.get("eval", {}).get(k)
            cells.append(
                f"{100 * e['win_rate']:.1f} % [{100 * e['ci'][0]:.0f}, {100 * e['ci'][1]:.0f}]"
                f" ({e['games']})" if e else "-"
            )
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Win rates: the network (`search`: with search at `eval.sims` simulations; `net`: "
        "alone) in one seat, the opponent in every other seat, all seat rotations on shared "
        "seeds; 95 % Wilson intervals, games in parentheses. Losses: the last epoch's on the "
        "replay window, and the network's on the iteration's new positions before the update "
        "(held out: a value loss falling on the window but not here is the value fitting "
        "the recent games). Entropies: of the network's policy and of the search's targets "
        "on the new positions (both rising from one iteration to the next: the targets "
        "flatten the policy they were searched from)."
        + (" KL from the anchor: KL(the first network's policy || the network's) on the new "
           "positions (`learn.anchor_weight`)." if anchored else ""),
    ]
    if summary.get("learning_curve"):
        lines += ["", f"![learning curve]({summary['learning_curve']})"]
    lines += league_table(history)
    lines += ["", "## Configuration", "", "```yaml", summary["config_yaml"].rstrip(), "```", ""]
    return "\n".join(lines)


def league_table(history: list[dict[str, Any]]) -> list[str]:
    """The last iteration's league: each entry's share of the seats drawn and the
    searching network's pairwise score against it (population.py)."""
    league = history[-1].get("league") if history else None
    if not league or set(league) == {"self"}:
        return []
    lines = [
        "", f"## League (iteration {history[-1]['iteration']})", "",
        "| seat | weight | searcher's pairwise score |", "|---|---:|---:|",
    ]
    for label, entry in sorted(league.items(), key=lambda kv: -kv[1]["weight"]):
        score = "-" if label == "self" else f"{100 * entry['score']:.1f} %"
        lines.append(f"| `{label}` | {100 * entry['weight']:.1f} % | {score} |")
    lines += [
        "",
        "Pairwise score: how often the searching network finished ahead of that seat (level "
        "counts a half), decayed over iterations; the weights follow it when "
        "`selfplay.priority.power` is above 0.",
    ]
    return lines


def write_report(run_dir: Path, summary: dict[str, Any]) -> None:
    if write_learning_curve(summary["history"], run_dir / CURVE):
        summary["learning_curve"] = CURVE
    write_text(
        run_dir / "summary.json",
        json.dumps({k: v for k, v in summary.items() if k != "config_yaml"}, indent=1),
    )
    write_text(run_dir / "report.md", markdown(summary))
