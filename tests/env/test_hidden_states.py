"""Information at the awkward moments (docs/rules.md F): a pending permission request, a battle
in progress (revealed counters, C.2), Persian co-leaders (B.11); determinize in those states,
and determinize as a function of public information only."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from perikles_env.analysis.observation import encode_observation
from perikles_env.engine import Game, GameConfig, Phase, new_game
from perikles_env.engine import data as D
from perikles_env.engine.determinize import determinize, known_cities, revealed_slot
from perikles_env.engine.rng import Rng

NC = D.NUM_CLASSES
BATTLE = (Phase.BATTLE_SPECIAL, Phase.CASUALTY)


def first_state(n: int, seed: int, stop, limit: int = 3000) -> Game:
    """The first state of a seeded random game where ``stop`` holds."""
    g = new_game(GameConfig(num_players=n), seed=seed, backend="python")
    r = random.Random(seed)
    for _ in range(limit):
        assert not g.is_terminal, "no such state in this game"
        if stop(g):
            return g
        g.apply_action(r.choice(g.legal_actions()))
    raise AssertionError("no such state within the limit")


def same_type_classes(k: int) -> list[int]:
    return [j for j in D.CLASSES_OF[D.CLASS_CITY[k]][D.CLASS_TYPE[k]] if j != k]


def swap_box_with_pool(g: Game, box: int, k: int) -> Game | None:
    """A copy where one class-``k`` counter in ``box`` and one pool counter of another
    strength of the same city and type trade places (same public multisets), or None."""
    for j in same_type_classes(k):
        if g.pool[j]:
            h = g.clone()
            h.at[box * NC + k] -= 1
            h.at[box * NC + j] += 1
            h.pool[j] -= 1
            h.pool[k] += 1
            return h
    return None


def obs_equal(a: Game, b: Game, p: int) -> bool:
    return np.array_equal(encode_observation(a, p), encode_observation(b, p))


# ---- B.7.8: the strength of a requested counter is the requester's secret ------------------


@pytest.mark.parametrize("n,seed", [(3, 0), (4, 1), (5, 2)])
def test_permission_request_shows_city_type_slot_side_but_not_strength(n: int, seed: int) -> None:
    g = first_state(n, seed, lambda g: g.phase == Phase.PERMISSION)
    k, slot, side = g.pending
    assert g.pool[k] >= 1  # still in the requester's hand until granted
    others = [j for j in same_type_classes(k) if g.pool[j]]
    if not others:
        pytest.skip("no other strength in the pool to swap with")
    h = g.clone()  # the request names another strength of the same city and type
    h.pending[0] = others[0]
    city = D.CLASS_CITY[k]
    # (The requester's own view does not show the strength either: the encoder shows the
    # request's city, type, slot and side only, the same for every observer.)
    for p in range(n):
        if not known_cities(g, p) >> city & 1:
            assert obs_equal(g, h, p), f"request strength leaks to p{p}"
    moved = g.clone()  # a different slot is public
    moved.pending[1] = (slot + 1) % D.LOCATION_SLOTS
    assert all(not obs_equal(g, moved, p) for p in range(n))


@pytest.mark.parametrize("n,seed", [(3, 1), (4, 2), (5, 3)])
def test_determinize_during_a_permission_request(n: int, seed: int) -> None:
    g = first_state(n, seed, lambda g: g.phase == Phase.PERMISSION)
    k = g.pending[0]
    for p in range(n):
        for s in range(6):
            d = determinize(g, p, random.Random(s))
            d.check_invariants()
            assert obs_equal(d, g, p)
            assert d.pending[1:] == g.pending[1:]
            dk = d.pending[0]
            assert (D.CLASS_CITY[dk], D.CLASS_TYPE[dk]) == (D.CLASS_CITY[k], D.CLASS_TYPE[k])
            assert d.pool[dk] >= 1
            if known_cities(g, p) >> D.CLASS_CITY[k] & 1:
                assert dk == k
            # The sampled state plays on: the decider can answer the request.
            d.apply_action_checked(d.legal_actions()[0])


# ---- C.2: counters at the location being resolved are face up for everybody --------------


def battle_with_hidden_later_slots(g: Game) -> bool:
    if g.phase not in BATTLE:
        return False
    later = range(g.b_slot * 4 + 4, D.LOCATION_SLOTS * 4)
    return any(g.at[b * NC + k] for b in later for k in range(NC))


@pytest.mark.parametrize("n,seed", [(3, 1), (4, 0), (5, 1)])
def test_revealed_slot_strengths_are_public_later_slots_stay_hidden(n: int, seed: int) -> None:
    g = first_state(n, seed, battle_with_hidden_later_slots)
    revealed = revealed_slot(g)
    assert revealed == g.b_slot >= 0
    checked_revealed = checked_hidden = 0
    for box in range(D.LOCATION_SLOTS * 4):
        for k in D.EXISTING_CLASSES:
            if not g.at[box * NC + k]:
                continue
            h = swap_box_with_pool(g, box, k)
            if h is None:
                continue
            city = D.CLASS_CITY[k]
            for p in range(n):
                if box // 4 == revealed or known_cities(g, p) >> city & 1:
                    assert not obs_equal(g, h, p), (box, k, p)
                    checked_revealed += box // 4 == revealed
                else:
                    assert obs_equal(g, h, p), f"face-down {D.class_name(k)} leaks to p{p}"
                    checked_hidden += 1
    assert checked_hidden > 0
    if not checked_revealed:
        pytest.skip("no swappable counter at the revealed location in this state")


@pytest.mark.parametrize("n,seed", [(3, 2), (4, 1), (5, 2)])
def test_determinize_keeps_the_revealed_location(n: int, seed: int) -> None:
    g = first_state(n, seed, battle_with_hidden_later_slots)
    rev = slice(g.b_slot * 4 * NC, (g.b_slot * 4 + 4) * NC)
    for p in range(n):
        ats = set()
        for s in range(8):
            d = determinize(g, p, random.Random(s))
            d.check_invariants()
            assert obs_equal(d, g, p)
            assert d.at[rev] == g.at[rev]
            assert d.stack == g.stack and d.dead == g.dead
            ats.add(tuple(d.at))
            d.apply_action_checked(d.legal_actions()[0])
        others_hidden = any(
            g.at[b * NC + k]
            for b in range(g.b_slot * 4 + 4, D.LOCATION_SLOTS * 4)
            for k in range(NC)
            if not known_cities(g, p) >> D.CLASS_CITY[k] & 1
        )
        if others_hidden:
            assert len(ats) > 1, f"face-down counters never resampled for p{p}"


# ---- B.11: Persian co-leaders share what they know about Persian counters ---------------


def persians_with_hidden_counters(g: Game) -> bool:
    if bin(g.persian).count("1") < 2 or g.phase != Phase.COMMIT:
        return False
    persian = D.CLASSES_OF_CITY[D.PERSIA]
    return any(g.at[b * NC + k] for b in range(D.LOCATION_SLOTS * 4) for k in persian)


@pytest.mark.parametrize("n,seed", [(4, 1), (5, 0)])
def test_persian_co_leaders_see_persian_strengths_others_do_not(n: int, seed: int) -> None:
    g = first_state(n, seed, persians_with_hidden_counters)
    persians = [p for p in range(n) if g.persian >> p & 1]
    checked = 0
    for box in range(D.LOCATION_SLOTS * 4):
        for k in D.CLASSES_OF_CITY[D.PERSIA]:
            if not g.at[box * NC + k] or (h := swap_box_with_pool(g, box, k)) is None:
                continue
            for p in range(n):
                assert obs_equal(g, h, p) == (p not in persians), (box, k, p)
            checked += 1
    assert checked > 0
    for p in persians:  # a co-leader's samples keep every Persian counter where it is
        for s in range(4):
            d = determinize(g, p, random.Random(s))
            for k in D.CLASSES_OF_CITY[D.PERSIA]:
                assert d.pool[k] == g.pool[k]
                assert [d.at[b * NC + k] for b in range(28)] == [
                    g.at[b * NC + k] for b in range(28)
                ]


# ---- determinize reads public information only ---------------------------------------------


@pytest.mark.parametrize("n,seed", [(3, 5), (4, 6), (5, 7)])
def test_determinize_output_depends_only_on_what_the_player_knows(n: int, seed: int) -> None:
    """Two states that differ only in what p cannot see give p the same samples (same
    seed): the sampler itself cannot leak hidden information into a search."""
    g = first_state(n, seed, lambda g: g.phase == Phase.COMMIT and sum(g.at) >= 4)
    for p in range(n):
        h = g.clone()
        h.influence_deck.reverse()
        h.loc_deck.reverse()
        h.rng = Rng(h.rng.state ^ 0x5EED)
        holders = [q for q in range(n) if q != p and h.special[q] >= 0]
        if holders and h.unseen_specials:
            q = holders[0]
            h.special[q], h.unseen_specials[0] = h.unseen_specials[0], h.special[q]
            h.unseen_specials.sort()
        for box in range(D.LOCATION_SLOTS * 4):
            ks = [k for k in D.EXISTING_CLASSES if h.at[box * NC + k]]
            hidden = [k for k in ks if not known_cities(h, p) >> D.CLASS_CITY[k] & 1]
            if hidden and (swapped := swap_box_with_pool(h, box, hidden[0])) is not None:
                h = swapped
                break
        assert h != g and obs_equal(g, h, p)
        for s in range(3):
            assert determinize(g, p, s) == determinize(h, p, s)


def test_determinize_accepts_every_rng_kind_and_is_reproducible() -> None:
    g = first_state(4, 3, lambda g: g.phase == Phase.COMMIT and sum(g.at) >= 4)
    for make in (random.Random, np.random.default_rng, Rng, int):
        a, b = determinize(g, 1, make(42)), determinize(g, 1, make(42))
        assert a == b and a is not g
        assert obs_equal(a, g, 1)
    assert g == first_state(4, 3, lambda g: g.phase == Phase.COMMIT and sum(g.at) >= 4)
    with pytest.raises(TypeError):
        determinize(g, 1, "seed")


# ---- packaging -----------------------------------------------------------------------------


def test_engine_and_package_import_without_numpy() -> None:
    """The engine is stdlib only; ``import perikles_env`` must not pull numpy in."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('numpy', 'gymnasium', 'pettingzoo'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import perikles_env\n"
        "from perikles_env.engine import GameConfig, new_game\n"
        "from perikles_env.engine.determinize import determinize\n"
        "g = new_game(GameConfig(num_players=3), seed=1)\n"
        "d = determinize(g, 0, 7)\n"
        "assert d.legal_actions() == g.legal_actions()\n"
        "try:\n"
        "    perikles_env.env\n"
        "except ImportError:\n"
        "    print('lazy ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "lazy ok"


# ---- errors after the end -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["raise", "penalize"])
def test_stepping_a_finished_game_with_an_action_is_a_clear_error(mode: str) -> None:
    from perikles_env import env
    from perikles_env.errors import IllegalActionError

    e = env(num_players=3, illegal_action=mode)
    e.reset(seed=6)
    if mode == "penalize":
        e.step(956)  # never legal at setup: ends the episode
    else:
        rng = np.random.default_rng(6)
        while not e.unwrapped.game.is_terminal:
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert all(e.terminations.values())
    before = e.unwrapped.game.to_dict()
    with pytest.raises(IllegalActionError, match="done"):
        e.step(0)
    assert e.unwrapped.game.to_dict() == before
    e.step(None)  # removing a finished agent is the normal PettingZoo way
    assert len(e.agents) == 2


def test_acting_out_of_turn_through_act_is_a_clear_error() -> None:
    from perikles_env import env
    from perikles_env.errors import IllegalActionError

    e = env(num_players=4)
    e.reset(seed=9)
    other = next(a for a in e.agents if a != e.agent_selection)
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    before = e.unwrapped.game.to_dict()
    with pytest.raises(IllegalActionError, match=f"not {other}'s turn"):
        e.unwrapped.act(other, legal)
    assert e.unwrapped.game.to_dict() == before
    acting = e.agent_selection
    e.unwrapped.act(acting, legal)
    assert e.unwrapped.game.to_dict() != before
