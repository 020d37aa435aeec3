"""The JSON Schemas in configs/schema/ match the config models, and every shipped config names
the schema of its kind; the schema and the models accept and refuse the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from perikles_env.config_schema_export import FOLDER, SCHEMAS, schema_texts, stale

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_schema_files_are_current() -> None:
    assert FOLDER == CONFIGS / "schema"
    assert stale() == [], "run: python -m perikles_env.config_schema_export"
    assert sorted(p.name for p in FOLDER.glob("*.json")) == sorted(schema_texts())


def test_a_changed_schema_file_is_reported_stale(tmp_path: Path) -> None:
    for name, text in schema_texts().items():
        (tmp_path / name).write_text(text)
    assert stale(tmp_path) == []
    (tmp_path / "train.json").write_text("{}\n")
    assert stale(tmp_path) == ["train.json"]


def _kind(path: Path) -> str:
    for prefix, kind in (("eval_", "evaluate"), ("rllib_", "rllib"), ("search_", "search")):
        if path.name.startswith(prefix):
            return kind
    return "train"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_each_shipped_config_names_its_schema(path: Path) -> None:
    first = path.read_text().splitlines()[0]
    assert first == f"# yaml-language-server: $schema=schema/{_kind(path)}.json"


def test_schemas_describe_the_models() -> None:
    import json

    train = json.loads(schema_texts()["train.json"])
    assert train["additionalProperties"] is False
    ppo = train["$defs"]["PPOSection"]["properties"]
    assert ppo["n_steps"]["exclusiveMinimum"] == 0 and ppo["n_steps"]["default"] == 512
    assert ppo["activation"]["enum"] == ["tanh", "relu"]
    rllib = json.loads(schema_texts()["rllib.json"])
    assert "lambda" in rllib["properties"] and "lambda_" not in rllib["properties"]
    assert set(SCHEMAS) == {"train", "evaluate", "rllib", "search"}
