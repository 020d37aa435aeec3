"""PNG plots of an evaluation: ratings with error bars, and win rate by seat."""

from __future__ import annotations

from pathlib import Path

from perikles_env.files import atomic_write

from .eval_result import EvalResult


def _pyplot():  # noqa: ANN202 - matplotlib module
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def plot_ratings(result: EvalResult, path: Path) -> None:
    """OpenSkill mu per agent with +-2 sigma bars, one panel per player count."""
    plt = _pyplot()
    counts = sorted(result.ratings)
    fig, axes = plt.subplots(1, len(counts), figsize=(5 * len(counts), 4), squeeze=False)
    for ax, players in zip(axes[0], counts, strict=True):
        ratings = sorted(result.ratings[players].items(), key=lambda kv: kv[1]["mu"])
        names = [n for n, _ in ratings]
        mus = [r["mu"] for _, r in ratings]
        errs = [2 * r["sigma"] for _, r in ratings]
        ax.errorbar(mus, range(len(names)), xerr=errs, fmt="o", capsize=4)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels([_short(n) for n in names])
        ax.set_xlabel("OpenSkill mu (bars: +-2 sigma)")
        ax.set_title(f"{players} players")
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    atomic_write(path, lambda f: fig.savefig(f, dpi=100, format="png"))
    plt.close(fig)


def plot_seat_win_rates(result: EvalResult, path: Path) -> None:
    """Win rate of each agent by seat, one panel per matchup; dashed line at 1/N."""
    plt = _pyplot()
    matchups = result.matchups
    fig, axes = plt.subplots(1, len(matchups), figsize=(5 * len(matchups), 4), squeeze=False)
    for ax, m in zip(axes[0], matchups, strict=True):
        names = list(m.agents)
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            a = m.agents[name]
            xs = [s + i * width for s in range(m.players)]
            ax.bar(xs, [100 * w for w in a.win_rate_by_seat], width=width, label=_short(name))
        ax.axhline(100 / m.players, color="grey", linestyle="--", linewidth=1)
        ax.set_xticks([s + 0.4 - width / 2 for s in range(m.players)])
        ax.set_xticklabels([f"seat {s}" for s in range(m.players)])
        ax.set_ylabel("win rate %")
        ax.set_title(f"matchup {m.index} ({m.players} players)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_write(path, lambda f: fig.savefig(f, dpi=100, format="png"))
    plt.close(fig)


def _short(name: str, limit: int = 32) -> str:
    return name if len(name) <= limit else "..." + name[-(limit - 3) :]


def write_plots(result: EvalResult, run_dir: Path) -> list[str]:
    run_dir.mkdir(parents=True, exist_ok=True)
    plot_ratings(result, run_dir / "ratings.png")
    plot_seat_win_rates(result, run_dir / "winrate_by_seat.png")
    return ["ratings.png", "winrate_by_seat.png"]
