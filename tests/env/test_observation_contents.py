"""Observation blocks against the engine state, block by block, over many states of random
games (docs/observation.md; docs/rules.md F lists all of these as public)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from perikles_env.analysis.observation import OFFSETS, ObservationEncoder
from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine import data as D

S = D.MAX_PLAYERS
M = D.NUM_MILITARY_CITIES


def block(obs: np.ndarray, name: str) -> np.ndarray:
    a, b = OFFSETS[name]
    return obs[a:b]


def sampled_states(n: int, seed: int, every: int = 7):
    """Every ``every``-th state of a random game, plus all battle states (rarer)."""
    g = new_game(GameConfig(num_players=n), seed=seed)
    r = random.Random(seed)
    i = 0
    while not g.is_terminal:
        if i % every == 0 or g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY):
            yield g
        g.apply_action(r.choice(g.legal_actions()))
        i += 1
    yield g


def rel(g: Game, p: int, q: int) -> int:
    return (q - p) % g.n


def check_public_blocks(g: Game, p: int, obs: np.ndarray) -> None:
    n = g.n
    display = block(obs, "display").reshape(D.INFLUENCE_DISPLAY_SIZE, 12)
    for s in range(D.INFLUENCE_DISPLAY_SIZE):
        t = g.display[s] if s < len(g.display) else -1
        if t < 0:
            assert not display[s].any()
            continue
        tile = D.INFLUENCE_TILES[t]
        expect = np.zeros(12, dtype=np.float32)
        expect[[0, 1 + tile.colour, 8 + tile.kind]] = 1
        assert np.array_equal(display[s], expect), (s, D.influence_name(t))
    assert block(obs, "deck_size") == pytest.approx(
        [len(g.influence_deck) / 36, len(g.loc_deck) / 21]
    )
    held = block(obs, "tiles_held").reshape(S, 2) * 5
    for q in range(n):
        assert held[rel(g, p, q)] == pytest.approx([g.held2[q], g.held1[q]])
    locs = block(obs, "locations").reshape(D.LOCATION_SLOTS, 15)
    for s, t in enumerate(g.loc_display):
        if t < 0:
            assert not locs[s].any()
            continue
        tile = D.LOCATION_TILES[t]
        assert locs[s, tile.city] == 1 and locs[s, :6].sum() == 1
        assert locs[s, 6] == pytest.approx(tile.vp / 7)
        assert locs[s, 7 + tile.order] == 1 and locs[s, 7:10].sum() == 1
        assert list(locs[s, 10:14]) == [*tile.militia, *tile.rebels]
        assert locs[s, 14] == g.loc_done[t]
    war = block(obs, "war").reshape(M, M)
    ally = block(obs, "alliance").reshape(M, M)
    perm = block(obs, "permissions").reshape(D.LOCATION_SLOTS, M)
    for a in range(M):
        for b in range(M):
            assert war[a, b] == (g.war[a] >> b & 1)
            assert ally[a, b] == (g.ally[a] >> b & 1)
    for s in range(D.LOCATION_SLOTS):
        for c in range(M):
            assert perm[s, c] == (g.perm[s] >> c & 1)
    played = block(obs, "specials_played").reshape(D.NUM_SPECIALS, S)
    held_special = block(obs, "specials_held")
    for t in range(D.NUM_SPECIALS):
        q = g.special_played[t]
        assert played[t].sum() == (q >= 0)
        if q >= 0:
            assert played[t, rel(g, p, q)] == 1
    for q in range(n):
        assert held_special[rel(g, p, q)] == (g.special[q] >= 0)
    scores = block(obs, "scores").reshape(2, S)
    engine_scores = g.scores()
    for q in range(n):
        assert scores[0, rel(g, p, q)] == pytest.approx(min(engine_scores[q] / 50, 4.0))
        assert scores[1, rel(g, p, q)] == pytest.approx(g.location_vp(q) / 30)
    statues = block(obs, "statues").reshape(D.NUM_CITIES, S) * 3
    cands = block(obs, "candidates").reshape(D.NUM_CITIES, 2, S)
    for c in range(D.NUM_CITIES):
        for q in range(n):
            assert statues[c, rel(g, p, q)] == pytest.approx(g.statues[c * S + q])
        for j in range(2):
            q = g.cand[c * 2 + j]
            assert cands[c, j].sum() == (q >= 0)
            if q >= 0:
                assert cands[c, j, rel(g, p, q)] == 1
    assert block(obs, "defeats") * 4 == pytest.approx(g.defeats)
    values = [D.statue_value(c, d) / 9 for c, d in enumerate(g.defeats)]
    assert block(obs, "statue_values") == pytest.approx(values)
    persians = block(obs, "persian_leaders")
    for q in range(n):
        assert persians[rel(g, p, q)] == (g.persian >> q & 1)


def check_battle_block(g: Game, obs: np.ndarray) -> None:
    battle = block(obs, "battle")
    L = D.LOCATION_SLOTS
    if g.phase not in (Phase.BATTLE_SPECIAL, Phase.CASUALTY):
        assert not battle.any()
        return
    slot = g.b_slot
    tile = D.LOCATION_TILES[g.loc_display[slot]]
    unit = tile.rounds[g.b_round]
    assert battle[slot] == 1 and battle[:L].sum() == 1
    assert battle[L + g.b_round] == 1
    assert battle[L + 2 : L + 4] == pytest.approx([t / 2 for t in g.b_tokens])
    # Strengths recomputed here from the revealed boxes, not through the engine helper.
    strength = [0, 0]
    for side in (0, 1):
        for box in (0, 1):
            base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
            for k in range(D.NUM_CLASSES):
                if D.CLASS_TYPE[k] == unit:
                    strength[side] += g.at[base + k] * (k % 4 + 1)
    attack = strength[0] + tile.rebels[unit]
    defence = strength[1] + tile.militia[unit]
    assert battle[L + 7 : L + 9] == pytest.approx([min(attack / 20, 4), min(defence / 20, 4)])
    column = battle[L + 9 : L + 15]
    if attack >= 1 and defence >= 1:
        assert column[D.crt_column(attack, defence)] == 1 and column.sum() == 1
    else:
        assert not column.any()


@pytest.mark.parametrize("n,seed", [(3, 40), (4, 41), (5, 42)])
def test_public_blocks_match_the_engine_for_every_observer(n: int, seed: int) -> None:
    enc = ObservationEncoder()
    battles = 0
    for g in sampled_states(n, seed):
        for p in range(n):
            obs = enc.encode(g, p)
            check_public_blocks(g, p, obs)
            check_battle_block(g, obs)
        battles += g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY)
    assert battles > 0
