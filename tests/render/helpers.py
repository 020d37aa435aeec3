"""Shared helpers for the picture, replay and terminal-game tests."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.records import GameRecord

SVG_NS = "{http://www.w3.org/2000/svg}"


def random_game(players: int, seed: int) -> tuple[Game, list[int]]:
    """A finished uniform-random game and its actions."""
    game = new_game(GameConfig(num_players=players), seed=seed)
    chooser = random.Random(seed)
    actions = []
    while not game.is_terminal:
        action = chooser.choice(game.legal_actions())
        game.apply_action(action)
        actions.append(action)
    return game, actions


def random_record(players: int, seed: int) -> tuple[GameRecord, Game]:
    game, actions = random_game(players, seed)
    return GameRecord(seed, players, ["random"] * players, actions), game


def commit_with_hidden_forces(players: int, seed: int) -> Game:
    """A commit-phase state with face-down counters on the board and in hands."""
    game = new_game(GameConfig(num_players=players), seed=seed)
    chooser = random.Random(seed)
    while not (game.phase == Phase.COMMIT and sum(game.at) >= 6 and any(game.pool)):
        game.apply_action(chooser.choice(game.legal_actions()))
    return game


def svg_texts(svg: str) -> list[str]:
    """Every text element's content, in document order."""
    root = ET.fromstring(svg)
    return [t.text or "" for t in root.iter(f"{SVG_NS}text")]


def group_texts(svg: str, css_class: str) -> list[str]:
    """Texts of the group with this class (e.g. 'player p2', 'location 3')."""
    root = ET.fromstring(svg)
    for g in root.iter(f"{SVG_NS}g"):
        if g.get("class") == css_class:
            return [t.text or "" for t in g.iter(f"{SVG_NS}text")]
    raise AssertionError(f"no group {css_class!r}")
