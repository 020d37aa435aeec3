"""docs/render.md's video example runs as written, and the README's picture exists."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


def test_the_video_example_writes_an_animated_gif(tmp_path, monkeypatch) -> None:
    text = (ROOT / "docs" / "render.md").read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/render.md", "exec"), {})
    with Image.open(tmp_path / "episode.gif") as gif:
        assert gif.n_frames == 11 and gif.size == (1200, 820)


def test_the_readme_shows_a_board_picture() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [path] = re.findall(r"!\[[^\]]*\]\((docs/img/[^)]+\.png)\)", readme)
    with Image.open(ROOT / path) as picture:
        assert picture.size == (1200, 820)
