"""``reward.potential: expected`` (perikles_env/single_agent/rewards.py): the shaping potential
measured with the search leaf model, so a counter committed where it changes the battle odds
(C.5-C.6) is paid when placed; the estimate reads only what the learner may know (F)."""

from __future__ import annotations

import pytest
from test_wrapper import play_random

from perikles_env.analysis.battlefield import Battlefield
from perikles_env.analysis.params import HeuristicParams
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.phases import Phase
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import PeriklesSingleAgentEnv, RewardConfig
from perikles_env.single_agent.rewards import potential
from tests.agents.helpers import play
from tests.agents.hidden import perturb_hidden


def random_states(players: int, seeds: range, every: int = 1):
    """Every ``every``-th state of seeded games of random agents (read-only)."""
    for seed in seeds:
        for t, (g, _, _) in enumerate(play(["random"] * players, seed)):
            if t % every == 0:
                yield g


def test_expected_shaping_telescopes_to_minus_the_first_potential():
    cfg = RewardConfig(win=0.0, vp_margin=1.0, shaping=1.0, vp_scale=10.0, potential="expected")
    env = PeriklesSingleAgentEnv(num_players=4, learner_seat=2, reward=cfg)
    _, total, info, _ = play_random(env, seed=6)
    scores = info["scores"]
    margin = max(-1.0, min(1.0, (scores[2] - max(scores[0], scores[1], scores[3])) / 10.0))
    env.reset(seed=6)
    phi0 = potential(env.game, 2, 10.0, "expected")
    assert total == pytest.approx(margin - phi0)


def test_attack_reinforcement_is_paid_when_placed():
    """A commit to the side its player leads as main attacker is paid at once: his expected
    potential moves by exactly what the new odds promise (the tile's VP to him, as much less
    to the main defender, the owner's statue value lost by a defeat, A.2; over the mean
    opponent), while the VP standing (``scores``) does not move. Odds can fall: a lone weak
    hoplite turns an empty hoplite round into one against the militia (E25, E26). Where the
    counter leaves the odds in the same CRT column (C.5) nothing is paid."""
    neutral = HeuristicParams(spite=0.0)
    paid = unchanged = 0
    for g in random_states(4, range(60)):
        if g.phase != Phase.COMMIT:
            continue
        p = g.current
        for action in g.legal_actions():
            kind, klass, slot, side = A.decode(action)
            if kind != "PLACE" or side != A.ATTACK or g.main[slot * 2 + A.ATTACK] != p:
                continue
            tile = D.LOCATION_TILES[g.loc_display[slot]]
            defender = g.main[slot * 2 + A.DEFEND]
            if g.persian:
                continue  # Persian co-leaders share a side's VP (B.11)
            model = Battlefield(PlayerView(g, p), neutral)
            before = model.attack_probability(slot)
            after = g.clone()
            after.apply_action(action)
            if after.phase != Phase.COMMIT:
                continue
            odds = Battlefield(PlayerView(after, p), neutral).attack_probability(slot)
            assert after.scores() == g.scores()
            gain = potential(after, p, 10.0, "expected") - potential(g, p, 10.0, "expected")
            # Each player's change of expected VP: the tile to the winner, and the statue
            # value lost from one more defeat of the owner (A.2) per statue held or due.
            delta = odds - before
            change = [
                delta * tile.vp * ((q == p) - (q == defender))
                - delta
                * model.statue_drop[tile.city]
                * (g.statues[tile.city * 5 + q] + (g.leader[tile.city] == q))
                for q in range(4)
            ]
            expected = (change[p] - (sum(change) - change[p]) / 3) / 10.0
            assert gain == pytest.approx(expected)
            paid += odds != before
            unchanged += odds == before
            break
        if paid >= 10 and unchanged >= 3:
            break
    assert paid >= 10 and unchanged >= 3


@pytest.mark.parametrize("players", [3, 5])
def test_expected_potential_ignores_what_the_learner_cannot_know(players):
    """RULES.md F: re-drawing every hidden component (decks, RNG, others' specials, the
    strengths of face-down counters of cities the learner does not control) leaves it."""
    compared = 0
    for i, g in enumerate(random_states(players, range(6), every=7)):
        for p in range(players):
            other = perturb_hidden(g, p, seed=i)
            assert potential(other, p, 10.0, "expected") == pytest.approx(
                potential(g, p, 10.0, "expected")
            )
            compared += 1
    assert compared > 100


def test_unknown_potential_is_a_config_error():
    with pytest.raises(InvalidConfigError, match="reward.potential"):
        RewardConfig(potential="oracle")
