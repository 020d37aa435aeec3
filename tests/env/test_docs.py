"""docs/observation.md is generated from the encoder's LAYOUT and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from perikles_env.analysis.observation import LAYOUT, OBS_SIZE, OFFSETS

ROOT = Path(__file__).resolve().parents[2]


def test_layout_blocks_are_contiguous_and_sum_to_obs_size() -> None:
    pos = 0
    for b in LAYOUT:
        assert OFFSETS[b.name] == (pos, pos + b.size)
        pos += b.size
    assert pos == OBS_SIZE


def test_observation_doc_is_current() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_observation_docs", ROOT / "scripts" / "gen_observation_docs.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "observation.md").read_text(encoding="utf-8") == module.render()
