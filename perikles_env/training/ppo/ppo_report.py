"""The run report: ``summary.json`` (machine), ``report.md`` (human) and
``learning_curve.png`` (win rates during training), written into the run folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perikles_env.files import write_text
from perikles_env.jobs.run_folder import resume_command
from perikles_env.training.learning_curves import save_win_rate_plot

from .callbacks import RunState


def throughput(state: RunState) -> dict[str, float]:
    seconds = max(state.train_seconds, 1e-9)
    return {
        "learner_steps_per_s": round(state.timesteps / seconds, 1),
        "env_steps_per_s": round(state.env_decisions / seconds, 1),
    }


def write_learning_curve(state: RunState, path: Path) -> bool:
    """Evaluation win rates and the rolling training win rate against learner steps; False
    (no picture) when the run has neither yet: an empty plot would say nothing."""
    rows = [r for r in state.rollouts if "rollout_win_rate" in r]
    keys = sorted({k for e in state.evals for k in e if k.startswith("win_rate_vs_")})
    if not rows and not keys:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if rows:
        ax.plot(
            [r["timesteps"] for r in rows],
            [100 * r["rollout_win_rate"] for r in rows],
            color="grey",
            alpha=0.6,
            label="training games (rolling)",
        )
    for key in keys:
        pts = [(e["timesteps"], 100 * e[key]) for e in state.evals if key in e]
        ax.plot(*zip(*pts, strict=True), marker="o", label=f"eval vs {key[len('win_rate_vs_') :]}")
    ax.set_xlabel("learner steps")
    save_win_rate_plot(fig, ax, path)
    return True


def _pretrain_lines(pre: dict[str, Any]) -> list[str]:
    if not pre:
        return []
    if "init_net" in pre:
        lines = [f"* started from the policy of the search network `{pre['init_net']['net']}`"]
        if "epochs" in pre:
            lines.append(
                f"* its critic fitted on {pre['decisions']:,} `{pre['teacher']}` decisions "
                f"from {pre['games']} games in {pre['seconds']:.0f} s (value loss "
                f"{pre['epochs'][0]['value_loss']:.3f} in the first epoch, "
                f"{pre['epochs'][-1]['value_loss']:.3f} in the last)")
        return [*lines, ""]
    last = pre["epochs"][-1]
    lines = [
        f"* pretraining: cloned {pre['decisions']:,} `{pre['teacher']}` decisions from "
        f"{pre['games']} games (teacher win rate {100 * pre['teacher_win_rate']:.0f} %) in "
        f"{pre['seconds']:.0f} s; imitation accuracy {100 * last['accuracy']:.0f} %",
    ]
    if "eval" in pre:
        rates = ", ".join(
            f"{k[len('win_rate_vs_'):]} {100 * v:.0f} %"
            for k, v in pre["eval"].items() if k.startswith("win_rate_vs_")
        )
        lines.append(f"* win rate right after pretraining: {rates}")
    if "agreement" in pre:
        lines += ["", "Imitation agreement right after pretraining:", ""]
        lines += _agreement_table(pre["agreement"])
    return [*lines, ""]


def _agreement_table(report: dict[str, Any]) -> list[str]:
    """``agreement.py``'s report: per decision kind, how often the policy's choice is one
    of the heuristic's equally best actions (and how often a random legal choice is)."""
    from perikles_env.training.agreement import markdown as agreement_markdown

    return agreement_markdown(report).rstrip("\n").split("\n")


def _rate(row: dict[str, Any]) -> str:
    """``win rate % | [CI]`` table cells of one evaluation."""
    low, high = row["win_ci"]
    return f"{100 * row['win_rate']:.1f} | [{100 * low:.1f}, {100 * high:.1f}]"


def markdown(summary: dict[str, Any]) -> str:
    tp = summary["throughput"]
    interrupted = summary["status"] != "complete"
    lines = [
        f"# Training run `{summary['name']}`" + (" (INTERRUPTED)" if interrupted else ""),
        "",
        *(
            [
                f"**Interrupted by {summary['stop_signal'] or 'a signal'} at "
                f"{summary['timesteps']:,} of {summary['target_timesteps']:,} learner steps**: "
                f"continue with `{resume_command(Path(summary['run_dir']))}`.",
                "",
            ]
            if interrupted
            else []
        ),
        f"* command: `{summary['command']}`",
        f"* learner steps: {summary['timesteps']:,} in {summary['train_minutes']:.1f} min of "
        f"training (+ {summary['eval_minutes']:.1f} min of evaluation); "
        f"episodes: {summary['episodes']:,}"
        + (" — stopped by `train.max_minutes`" if summary["stopped_by_time_limit"] else ""),
        f"* episodes truncated at the decision limit (`env.max_decisions`): "
        f"{summary['truncated_episodes']:,}",
        f"* wall time since the run last started (setup, pretraining, training, evaluation): "
        f"{summary['wall_minutes_this_session']:.1f} min",
        f"* throughput: **{tp['learner_steps_per_s']:.0f} learner steps/s**, "
        f"**{tp['env_steps_per_s']:.0f} env steps/s** (engine decisions of all seats)",
        (
            f"* final model: `{summary['model']}` (play it as agent `ppo:{summary['model']}`)"
            if summary["model"]
            else f"* latest checkpoint: `{(summary['checkpoints'] or ['none'])[-1]}`"
        ),
        "",
        *_pretrain_lines(summary.get("pretrain") or {}),
        "## Final evaluation",
        "",
    ]
    if summary["final_eval"]:
        baseline = summary["config"]["eval"].get("baseline")
        lines += [
            "| opponents | players | games | win rate % | 95 % CI | mean VP | truncated | report |"
            + (f" `{baseline}` on the same games: win rate % | 95 % CI |" if baseline else ""),
            "|---|---:|---:|---:|---|---:|---:|---|" + ("---:|---|" if baseline else ""),
        ]
        for e in summary["final_eval"]:
            lines.append(
                f"| {e['players'] - 1} x `{e['opponent']}` | {e['players']} | {e['games']} | "
                f"{_rate(e)} | {e['mean_vp']:.1f} | {e['truncated_games']} | `{e['report']}` |"
                + (f" {_rate(e['baseline'])} |" if "baseline" in e else "")
            )
    elif interrupted:
        lines.append("(none yet: the run was interrupted before its final evaluation)")
    else:
        lines.append("(no final evaluation: `eval.final_games` is 0)")
    if summary.get("agreement"):
        lines += ["", "## Imitation agreement of the final model", ""]
        lines += _agreement_table(summary["agreement"])
    lines += ["", "## Evaluations during training", ""]
    if summary["evals"]:
        keys = sorted({k for e in summary["evals"] for k in e if k.startswith("win_rate_vs_")})
        lines += ["| learner steps | " + " | ".join(keys) + " |", "|---:|" + "---:|" * len(keys)]
        for e in summary["evals"]:
            cells = [f"{100 * e[k]:.1f} %" if k in e else "-" for k in keys]
            lines.append(f"| {e['timesteps']:,} | " + " | ".join(cells) + " |")
    elif summary["config"]["eval"]["every"] > 0:
        lines.append("(none yet: fewer learner steps than `eval.every`)")
    else:
        lines.append("(none: `eval.every` is 0)")
    if summary.get("learning_curve"):
        lines += ["", f"![learning curve]({summary['learning_curve']})"]
    lines += ["", "## Configuration", "", "```yaml", summary["config_yaml"].rstrip(), "```", ""]
    return "\n".join(lines)


def write_report(run_dir: Path, summary: dict[str, Any]) -> None:
    """Both files atomically: a reader never sees half a report."""
    write_text(
        run_dir / "summary.json",
        json.dumps({k: v for k, v in summary.items() if k != "config_yaml"}, indent=1),
    )
    write_text(run_dir / "report.md", markdown(summary))
