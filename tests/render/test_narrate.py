"""The phrasing module (perikles_env/render/narrate.py): every action id legal in any phase of
seeded random games has words without raw codes, every event kind the engine can log is
phrased, dice rolls name their targets and the tokens they gave, and the battle odds shown
before a battle decision match what the engine's dice do."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.render.narrate import (
    EVENT_KINDS,
    battle_odds,
    battle_summary,
    describe_action,
    describe_event,
    describe_events,
)

ENGINE = Path(__file__).resolve().parents[2] / "perikles_env" / "engine"
# What raw codes look like: calls, enum names, snake_case ids, offsets, counter/tile ids.
RAW = re.compile(
    r"\w\(|[A-Z]{2,}_[A-Z]|\b[a-z]+_[a-z]+\b|=p\d|\b[a-z]+-[HT]\d|\b[a-z]+-(plain|any|"
    r"candidate|assassin)\b|slaverevolt|persianfleet|thessalianallies|[TH]>[TH]|\[|\]|"
    r"(?<![A-Za-z])'[a-z]"
)


def _games(seeds=range(6)):
    for seed in seeds:
        players = 3 + seed % 3
        game = new_game(GameConfig(num_players=players), seed=seed, backend="python")
        yield game, random.Random(seed)


def test_every_legal_action_in_every_phase_has_words() -> None:
    kinds: set[str] = set()
    phases: set[Phase] = set()
    for game, chooser in _games():
        while not game.is_terminal:
            phases.add(game.phase)
            for action in game.legal_actions():
                kinds.add(A.decode(action)[0])
                for viewer in (None, game.current, (game.current + 1) % game.n):
                    text = describe_action(game, action, viewer)
                    assert text and not RAW.search(text), (game.phase.name, text)
            game.apply_action(chooser.choice(game.legal_actions()))
    assert kinds == set(A.RANGES), set(A.RANGES) - kinds
    assert phases == set(Phase) - {Phase.GAME_OVER}
    with pytest.raises(ValueError, match="action must be an id"):
        describe_action(game, A.NUM_ACTIONS, None)


def test_a_placement_shows_its_strength_only_to_those_who_know_it() -> None:
    game, chooser = next(_games([2]))
    while game.phase != Phase.COMMIT:
        game.apply_action(chooser.choice(game.legal_actions()))
    action = next(a for a in game.legal_actions() if A.decode(a)[0] == "PLACE")
    klass = A.decode(action)[1]
    mine = describe_action(game, action, game.current)
    public = describe_action(game, action, None)
    assert f" {D.CLASS_STRENGTH[klass]} to " in mine and public == mine.replace(
        f" {D.CLASS_STRENGTH[klass]} to ", " to "
    )


def test_every_event_kind_the_engine_logs_is_phrased() -> None:
    logged = set()
    for path in ENGINE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        logged |= set(re.findall(r'_log\(\s*"(\w+)"', text))
    assert logged and logged <= EVENT_KINDS, logged - EVENT_KINDS
    seen = set()
    for game, chooser in _games():
        while not game.is_terminal:
            game.apply_action(chooser.choice(game.legal_actions()))
        texts = describe_events(game.event_log, you=0)
        assert len(texts) == len(game.event_log)
        for event, text in zip(game.event_log, texts, strict=True):
            seen.add(event[0])
            assert text and not RAW.search(text), (event, text)
        assert describe_events(game.event_log, 0, start=5) == texts[5:]
    assert seen >= logged - {"pick_skipped", "action_skipped", "propose_pass", "slave_revolt"}


def test_dice_rolls_name_their_targets_and_tokens() -> None:
    events = [
        ("new_turn", 2, 1, ["pylos", "sicily", "melos", "lesbos", "aetolia", "delium", "megara"],
         []),
        ("dice_round", 1, "H", 3, 6, "1:2", 1, 0),
        ("roll", 1, 8, 11),
        ("roll", 1, 10, 4),
        ("round", 1, "H", "attack", "dice"),
    ]
    texts = describe_events(events)
    assert "attacker hits on 10+ (17%), the defender on 5+ (83%)" in texts[1]
    assert "tokens at the start: attacker 1, defender 0" in texts[1]
    assert texts[2] == (
        "Dice at Sicily (location 2): attacker rolls 8 (needs 10: miss), defender 11 "
        "(needs 5: hit); tokens attacker 1, defender 1"
    )
    assert texts[3].endswith("tokens attacker 2, defender 1: the attacker wins the round")
    assert texts[4] == "Hoplite round at Sicily (location 2) won by the attacker on the dice"
    # alone, a roll says what it can
    assert describe_event(events[2]) == "Dice at location 2: attacker rolls 8, defender 11"
    assert describe_event(("mystery", 1, "x")) == "mystery: 1, x"


def _battle_state(seed: int) -> Game | None:
    game = new_game(GameConfig(num_players=4), seed=seed, backend="python")
    chooser = random.Random(seed)
    while not game.is_terminal:
        if game.phase == Phase.BATTLE_SPECIAL:
            return game
        game.apply_action(chooser.choice(game.legal_actions()))
    return None


def test_battle_odds_match_the_dice() -> None:
    """The shown P(attacker takes the location), checked against 1,500 fights of the engine
    with random dice, every later special passed."""
    for seed in range(40):
        game = _battle_state(seed)
        if game is None:
            continue
        odds = battle_odds(game, game.current)
        if odds is not None and 0.15 < odds.p_location < 0.85:
            break
    else:
        raise AssertionError("no open battle in 40 games")
    dice = random.Random(1)
    wins, runs = 0, 1500
    for _ in range(runs):
        g = game.clone()
        g.forced_dice = [dice.randint(1, 6) for _ in range(400)]
        while g.b_slot == odds.slot and not g.is_terminal:
            legal = g.legal_actions()
            g.apply_action(A.BATTLE_PASS if A.BATTLE_PASS in legal else legal[0])
        claims = [e for e in g.event_log[len(game.event_log):] if e[0] == "claim"]
        wins += any(e[1] == odds.slot and e[4] for e in claims)  # the attackers took it
    sigma = (odds.p_location * (1 - odds.p_location) / runs) ** 0.5
    assert abs(wins / runs - odds.p_location) < 4 * sigma, (wins / runs, odds)
    summary = battle_summary(game, game.current)
    assert summary is not None and odds.where in summary and "%" in summary
    assert [o[0] for o in odds.options] == game.legal_actions()
    assert battle_odds(new_game(GameConfig(num_players=3), seed=0, backend="python"), 0) is None


def test_the_engine_demo_tells_events_in_words() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "perikles_env.demo", "--players", "3", "--seed", "1",
         "--events"], capture_output=True, text=True, timeout=120, check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("A 3-player game begins; ")
    events = lines[:-2]  # then the summary lines
    assert len(events) > 100 and not [e for e in events if RAW.search(e) or e.startswith("(")]
    assert any(e.startswith("Dice at ") and "needs" in e for e in events)
