"""The heuristic's battle model gives the engine's real odds (C.2-C.8 with exact C.5-C.6)."""

from __future__ import annotations

import pytest
from engine.builders import game_at_battles, klass  # tests/engine (rootdir-relative)

from perikles_env.agents import HeuristicParams, PlayerView
from perikles_env.analysis.battlefield import Battlefield
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.phases import Phase
from perikles_env.engine.rng import Rng


def _sicily():
    """docs/rules.md C.9: Athens attacks Sicily (T then H; one militia of each type)."""
    return game_at_battles(
        leaders={"athens": 0, "sparta": 1},
        locations=["sicily"],
        mains={(0, 0): 0, (0, 1): 1},
        counters=[
            (0, 0, 0, klass("athens", "T", 4), 1),
            (0, 0, 0, klass("athens", "T", 3), 1),
            (0, 0, 0, klass("athens", "H", 3), 1),
            (0, 1, 0, klass("sparta", "T", 3), 1),
            (0, 1, 0, klass("sparta", "T", 1), 1),
            (0, 1, 0, klass("sparta", "H", 4), 1),
            (0, 1, 0, klass("sparta", "H", 2), 1),
        ],
        specials={2: D.PHORMIO},  # stops the engine at the offer before the first dice round
    )


def _attacker_claims(g, seed: int) -> bool:
    g = g.clone()
    g.rng = Rng(seed)
    tile = g.loc_display[0]
    while not g.loc_done[tile]:
        if g.phase == Phase.BATTLE_SPECIAL:
            g.apply_action(A.BATTLE_PASS)
        else:
            g.apply_action(g.legal_actions()[0])
    return bool(g.loc_claim[tile] & 1)


def test_attack_probability_matches_the_engine() -> None:
    g = _sicily()
    assert g.phase == Phase.BATTLE_SPECIAL and g.b_slot == 0 and g.b_round == 0
    for viewer in (0, 1, 2):  # the location is revealed: every viewer knows the strengths
        bf = Battlefield(PlayerView(g, viewer), HeuristicParams())
        model = bf.attack_probability(0)
        assert bf.strength[(0 * 2 + 0) * 2 + D.TRIREME] == 7
        assert bf.strength[(0 * 2 + 1) * 2 + D.HOPLITE] == 6
    runs = 4000
    wins = sum(_attacker_claims(g, seed) for seed in range(runs))
    assert model == pytest.approx(wins / runs, abs=0.03)
    assert 0.05 < model < 0.95


def test_values_credit_the_main_players_and_the_defeat() -> None:
    """C.8: the main attacker takes the tile on a win; the owner city takes a defeat, which
    costs statue holders (B.9) the drop of the statue value."""
    g = _sicily()
    g.statues[D.SPARTA * 5 + 3] = 2  # player 3 holds two Spartan statues
    bf = Battlefield(PlayerView(g, 3), HeuristicParams())
    p = bf.attack_probability(0)
    values = bf.values(0)
    vp = D.LOCATION_TILES[D.LOCATION_IDS["sicily"]].vp
    drop = bf.statue_drop[D.SPARTA]
    assert drop > 0
    assert values[0] == pytest.approx(p * vp)
    assert values[1] == pytest.approx((1 - p) * vp - p * drop)  # Sparta's leader
    assert values[3] == pytest.approx(-2 * p * drop)
    assert values[2] == 0.0
