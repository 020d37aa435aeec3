"""The finish every trainer's ``learning_curve.png`` shares (PPO and expert iteration):
win rate % on a 0-100 axis, grid and legend, written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perikles_env.files import atomic_write


def save_win_rate_plot(fig: Any, ax: Any, path: Path) -> None:
    """Finish a learning-curve figure (win rate % from 0 to 100, grid, legend) and write
    it as a PNG atomically."""
    import matplotlib.pyplot as plt

    ax.set_ylabel("win rate %")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_write(path, lambda f: fig.savefig(f, dpi=100, format="png"))
    plt.close(fig)
