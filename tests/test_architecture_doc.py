"""docs/architecture.md describes the house that `.importlinter` enforces: its floor table
names every room of the layers contract, floor by floor, highest first."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def contract_floors() -> list[set[str]]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / ".importlinter")
    lines = parser["importlinter:contract:layers"]["layers"].splitlines()
    floors = [line.split("#")[0].strip() for line in lines]
    return [{room.strip() for room in floor.split("|")} for floor in floors if floor]


def doc_floors() -> list[set[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("## Floors, highest first", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    return [set(re.findall(r"`(perikles_env[\w.]*)`", row.split("|")[2])) for row in rows]


def test_the_floor_table_follows_the_import_contract() -> None:
    assert doc_floors() == contract_floors()


def test_the_independence_contract_is_stated() -> None:
    parser = configparser.ConfigParser()
    parser.read(ROOT / ".importlinter")
    independent = parser["importlinter:contract:training-evaluation"]
    assert independent["type"] == "independence"
    assert set(independent["modules"].split()) == {
        "perikles_env.training", "perikles_env.evaluation"}
    assert "**independent**" in (ROOT / "docs" / "architecture.md").read_text()
