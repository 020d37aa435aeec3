"""The optional ``battle`` observation block (perikles_env/analysis/battle_features.py):
exact C.5-C.6 odds and the observer's stake per location, from what he may know (F)."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.analysis.battle_features import FEATURES, PER_SLOT, SIZE, battle_features
from perikles_env.analysis.encoding import LAYOUT_VERSION, default_encoder, layout_signature
from perikles_env.analysis.observation import ObservationEncoder, observation_size
from perikles_env.engine import data as D
from perikles_env.engine.actions import ATTACK
from perikles_env.engine.combat import battle_win_probability
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import PeriklesSingleAgentEnv
from tests.agents.helpers import play
from tests.agents.hidden import perturb_hidden
from tests.engine.builders import game_at_commit, klass, put

COLUMN = {name: i for i, name in enumerate(FEATURES)}


def row(features: np.ndarray, slot: int) -> dict[str, float]:
    values = features[slot * PER_SLOT : (slot + 1) * PER_SLOT]
    return {name: float(values[i]) for name, i in COLUMN.items()}


def sparta_attacks_plataea():
    """Player 0 leads Sparta and is main attacker at Plataea (Athens, 4 VP, hoplites only,
    1 militia hoplite) with H3 + H2; Athens has no leader and nobody has statues, so no
    statue value is at stake (A.2). Corinth's Solygeia in slot 1 is already resolved."""
    g = game_at_commit(
        n=4, leaders={"sparta": 0, "argos": 1}, locations=["plataea", "solygeia"]
    )
    put(g, 0, ATTACK, 0, klass("sparta", "H", 3))
    put(g, 0, ATTACK, 0, klass("sparta", "H", 2))
    g.main[0 * 2 + ATTACK] = 0
    g.loc_done[g.loc_display[1]] = 1
    return g


def hand_mean(g, player_city: int, unit: int) -> float:
    counts = [(g.pool[k], D.CLASS_STRENGTH[k]) for k in D.CLASSES_OF[player_city][unit]]
    total = sum(c for c, _ in counts)
    return sum(c * s for c, s in counts) / total


def test_attacker_odds_value_and_gains_by_hand():
    g = sparta_attacks_plataea()
    tile = D.LOCATION_TILES[g.loc_display[0]]
    assert (tile.name, tile.vp, tile.order, tile.militia) == ("plataea", 4, D.ORDER_H, (1, 0))
    f = row(battle_features(g, 0), 0)
    # One hoplite round, strength 5 against the militia's 1 (C.5, C.6, E25).
    p = battle_win_probability([(5, 1)])
    assert 0.5 < p < 1.0
    assert f["open"] == 1.0
    assert f["p_attack"] == pytest.approx(p)
    assert f["value"] == pytest.approx(p * 4 / 7)
    assert f["edge"] == pytest.approx(p * 4 / 7)  # the others have nothing at stake here
    # One more Spartan hoplite of the hand's mean strength; two of them.
    m = hand_mean(g, D.MILITARY_CITY_NAMES.index("sparta"), D.HOPLITE)
    for n in (1, 2):
        stronger = battle_win_probability([(max(1, round(5 + n * m)), 1)])
        assert f[f"gain_att_H_{n}"] == pytest.approx((stronger - p) * 4 / 7)
        assert f[f"gain_att_T_{n}"] == 0.0  # Plataea has no trireme round
        # He attacks here, so no city of his may defend it (B.7.6).
        assert f[f"gain_def_H_{n}"] == 0.0 and f[f"gain_def_T_{n}"] == 0.0


def test_resolved_location_and_terminal_game_are_all_zero():
    g = sparta_attacks_plataea()
    assert not battle_features(g, 0)[PER_SLOT : 2 * PER_SLOT].any()
    finished = next(play(["random"] * 3, seed=2))[0]
    while not finished.is_terminal:
        finished.apply_action(finished.legal_actions()[0])
    assert not battle_features(finished, 0).any()


def test_other_players_see_the_attack_from_their_side():
    """Player 1 (Argos) holds nothing at Plataea: his value is 0 and his edge is minus a
    third of the attacker's expected VP (4 players)."""
    g = sparta_attacks_plataea()
    p = battle_win_probability([(5, 1)])
    f = row(battle_features(g, 1), 0)
    assert f["value"] == 0.0
    assert f["edge"] == pytest.approx(-p * 4 / 3 / 7)


@pytest.mark.parametrize("players", [3, 5])
def test_features_ignore_what_the_observer_cannot_know(players):
    """docs/rules.md F: re-drawing every hidden component (decks, RNG, others' specials, the
    strengths of face-down counters of cities the observer does not control) changes
    nothing in any player's battle features."""
    compared = commits = 0
    for seed in range(5):
        for t, (g, _, _) in enumerate(play(["random"] * players, seed)):
            if t % 5:
                continue
            for p in range(players):
                other = perturb_hidden(g, p, seed=t)
                assert np.array_equal(battle_features(other, p), battle_features(g, p))
                compared += 1
            commits += g.phase.name == "COMMIT"
    assert compared > 200 and commits > 20


def test_battle_encoder_appends_the_block_and_stays_in_the_space():
    encoder = default_encoder(["battle"])
    assert encoder.features == ("battle",)
    assert encoder.space.shape == (observation_size() + SIZE,)
    base = ObservationEncoder()
    nonzero_gain = 0
    for g, _, _ in play(["random"] * 4, seed=3):
        obs = encoder.encode(g, g.current)
        assert encoder.space.contains(obs)
        np.testing.assert_array_equal(obs[: observation_size()], base.encode(g, g.current))
        np.testing.assert_array_equal(obs[observation_size() :], battle_features(g, g.current))
        nonzero_gain += bool(obs[observation_size() :].reshape(-1, PER_SLOT)[:, 4:].any())
    assert nonzero_gain > 10


def test_layout_signature_and_bad_feature_names():
    """What a saved model records: version, blocks, size, fingerprint;
    each block changes size and fingerprint."""
    plain, battle = layout_signature(()), layout_signature(["battle"])
    assert plain["size"] == observation_size() and battle["size"] == observation_size() + SIZE
    assert plain["features"] == [] and battle["features"] == ["battle"]
    assert plain["version"] == battle["version"] == LAYOUT_VERSION
    assert plain["fingerprint"] != battle["fingerprint"] and len(plain["fingerprint"]) == 64
    assert layout_signature(("battle",)) == battle  # deterministic
    with pytest.raises(InvalidConfigError, match="unknown feature block 'odds'"):
        default_encoder(["odds"])
    with pytest.raises(InvalidConfigError, match="repeated"):
        default_encoder(["battle", "battle"])
    with pytest.raises(InvalidConfigError, match="list of names"):
        PeriklesSingleAgentEnv(features="battle")


def test_wrapper_observes_the_battle_block():
    env = PeriklesSingleAgentEnv(num_players=4, learner_seat=1, features=["battle"])
    obs, _ = env.reset(seed=4)
    assert obs.shape == (observation_size() + SIZE,)
    np.testing.assert_array_equal(obs[observation_size() :], battle_features(env.game, 1))
