"""Cost of a board picture per frame, and proof that envs which do not render pay nothing.

Frames are the states of one seeded random 4-player game, sampled every ``--every``
decisions. Timed separately: drawing the SVG (``board_svg``), rasterising it to an
``H x W x 3`` array (``svg_to_rgb``: resvg, then PNG decoding with Pillow), and a whole
``env.render()`` in ``rgb_array`` mode. Then random-play steps per second of an env with
``render_mode=None`` and of one with ``"rgb_array"`` (which renders only when asked, so the
two should match), and whether the rasteriser was imported by the non-rendering env.

Usage: ``python benchmarks/render_speed.py [--every 10] [--steps 3000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time

from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.render import board_svg
from perikles_env.render.raster import svg_to_rgb

_IDLE_ENV = """
import sys, time, numpy as np
from perikles_env import env
e = env(num_players=4, render_mode={mode!r})
rng = np.random.default_rng(0)
e.reset(seed=0)
start, steps = time.perf_counter(), 0
while steps < {steps}:
    if not e.agents:
        e.reset()
        continue
    obs, _, term, trunc, _ = e.last()
    e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    steps += 1
print(steps / (time.perf_counter() - start), "resvg_py" in sys.modules or "PIL" in sys.modules)
"""


def sample_states(every: int) -> list[Game]:
    game = new_game(GameConfig(num_players=4), seed=0)
    chooser = random.Random(0)
    states, decision = [], 0
    while not game.is_terminal:
        if decision % every == 0:
            states.append(game.clone())
        game.apply_action(chooser.choice(game.legal_actions()))
        decision += 1
    return states + [game]


def ms_per_call(items: list, call) -> float:
    start = time.perf_counter()
    for item in items:
        call(item)
    return (time.perf_counter() - start) / len(items) * 1e3


def idle_env_steps(mode: str | None, steps: int) -> tuple[float, bool]:
    """Steps per second of random play in a fresh process, and whether it loaded resvg."""
    code = _IDLE_ENV.format(mode=mode, steps=steps)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), out[1] == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    states = sample_states(args.every)
    svgs = [board_svg(g) for g in states]
    svg_ms = statistics.median(ms_per_call(states, board_svg) for _ in range(3))
    rgb_ms = ms_per_call(svgs, svg_to_rgb)
    half_ms = ms_per_call(svgs, lambda s: svg_to_rgb(s, 0.5))
    print(f"{len(states)} frames of a seeded random 4-player game")
    print(f"SVG drawing            {svg_ms:7.1f} ms/frame")
    print(f"rasterise 1200x820     {rgb_ms:7.1f} ms/frame  ({1000 / (svg_ms + rgb_ms):.1f} fps)")
    print(f"rasterise 600x410      {half_ms:7.1f} ms/frame")
    runs: dict[str | None, list[float]] = {None: [], "rgb_array": []}
    loaded = False
    for _ in range(args.rounds):  # alternating, so that a noisy machine hits both alike
        for mode, speeds in runs.items():
            speed, imported = idle_env_steps(mode, args.steps)
            speeds.append(speed)
            loaded |= imported and mode is None
    plain, lazy = (statistics.median(v) for v in runs.values())
    print(f"env steps/s, render_mode=None       {plain:8.0f}  (rasteriser imported: {loaded})")
    print(f"env steps/s, render_mode=rgb_array  {lazy:8.0f}  (render() never called)")


if __name__ == "__main__":
    main()
