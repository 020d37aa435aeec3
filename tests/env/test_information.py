"""What each player may know (docs/rules.md F): differential leak tests, feature-by-feature
observation contents, mask exactness, clone/pickle and determinize."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from perikles_env import env
from perikles_env.analysis.observation import (
    OBS_SIZE,
    OFFSETS,
    ObservationEncoder,
    encode_observation,
)
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, Phase, new_game
from perikles_env.engine import data as D
from perikles_env.engine.determinize import determinize, known_cities
from perikles_env.environment.render import render_text


def block(obs: np.ndarray, name: str) -> np.ndarray:
    a, b = OFFSETS[name]
    return obs[a:b]


def play_until(n: int, seed: int, stop, limit: int = 2000) -> Game:
    """Random play until ``stop(game)`` holds (or the game ends)."""
    g = new_game(GameConfig(num_players=n), seed=seed, backend="python")
    r = random.Random(seed)
    for _ in range(limit):
        if g.is_terminal or stop(g):
            break
        g.apply_action(r.choice(g.legal_actions()))
    return g


def commit_with_hidden_counters(n: int, seed: int) -> Game:
    """A phase-5 state with face-down counters of several cities at locations."""

    def enough(g: Game) -> bool:
        return g.phase == Phase.COMMIT and sum(g.at) >= 6

    return play_until(n, seed, enough)


# ---- differential leak tests -------------------------------------------------------------


def observations(g: Game) -> list[np.ndarray]:
    return [encode_observation(g, p) for p in range(g.n)]


@pytest.mark.parametrize("n,seed", [(3, 1), (4, 2), (5, 3)])
def test_hidden_special_tiles_deck_order_and_rng_do_not_leak(n: int, seed: int) -> None:
    g = commit_with_hidden_counters(n, seed)
    base = observations(g)
    for i in range(n):
        others = [q for q in range(n) if q != i and g.special[q] >= 0]
        variants = []
        if others and g.unseen_specials:  # another player's tile swapped with an unseen one
            h = g.clone()
            q = others[0]
            h.special[q], h.unseen_specials[0] = h.unseen_specials[0], h.special[q]
            h.unseen_specials.sort()
            variants.append(h)
        h = g.clone()
        h.influence_deck.reverse()
        variants.append(h)
        h = g.clone()
        h.loc_deck.reverse()
        variants.append(h)
        h = g.clone()
        h.rng.state ^= 0xDEADBEEF
        variants.append(h)
        for h in variants:
            assert h != g
            assert np.array_equal(encode_observation(h, i), base[i]), i


@pytest.mark.parametrize("n,seed", [(3, 4), (4, 5), (5, 6)])
def test_face_down_strengths_of_others_do_not_leak(n: int, seed: int) -> None:
    g = commit_with_hidden_counters(n, seed)
    checked = 0
    for i in range(n):
        known = known_cities(g, i)
        # Swap strengths of one (city, type) between a box and the pool, or two boxes,
        # for a city that i does not control: i's observation must not change.
        for k in D.EXISTING_CLASSES:
            city = D.CLASS_CITY[k]
            if known >> city & 1:
                continue
            same_type = [j for j in D.CLASSES_OF[city][D.CLASS_TYPE[k]] if j != k]
            for box in range(D.LOCATION_SLOTS * 4):
                if not g.at[box * D.NUM_CLASSES + k]:
                    continue
                for j in same_type:
                    if g.pool[j]:
                        h = g.clone()
                        h.at[box * D.NUM_CLASSES + k] -= 1
                        h.at[box * D.NUM_CLASSES + j] += 1
                        h.pool[j] -= 1
                        h.pool[k] += 1
                        assert np.array_equal(encode_observation(h, i), encode_observation(g, i))
                        # ...but the controlling leader sees the difference.
                        owner = next(q for q in range(n) if known_cities(g, q) >> city & 1)
                        assert not np.array_equal(
                            encode_observation(h, owner), encode_observation(g, owner)
                        )
                        checked += 1
                        break
    assert checked > 0


@pytest.mark.parametrize("n,seed", [(3, 7), (4, 8), (5, 9)])
def test_visible_changes_change_the_observation(n: int, seed: int) -> None:
    g = commit_with_hidden_counters(n, seed)
    for i in range(n):
        base = encode_observation(g, i)
        h = g.clone()
        h.cubes[D.MEGARA * 5 + (i + 1) % n] += 1
        h.supply[(i + 1) % n] -= 1
        assert not np.array_equal(encode_observation(h, i), base)
        h = g.clone()  # own special tile
        h.special[i] = (g.special[i] + 1) % D.NUM_SPECIALS if g.special[i] >= 0 else 0
        assert not np.array_equal(encode_observation(h, i), base)
        known = known_cities(g, i)
        own = [k for k in range(D.NUM_CLASSES) if h.pool[k] and known >> D.CLASS_CITY[k] & 1]
        for k in own:  # own pool strengths are visible to him
            same = [j for j in D.CLASSES_OF[D.CLASS_CITY[k]][D.CLASS_TYPE[k]] if j != k]
            h = g.clone()
            h.pool[k] -= 1
            h.pool[same[0]] += 1
            assert not np.array_equal(encode_observation(h, i), base)
            break


# ---- contents, feature by feature ----------------------------------------------------------


def test_relative_seat_blocks_match_engine_state() -> None:
    g = play_until(4, 11, lambda g: g.phase == Phase.COMMIT)
    for p in range(4):
        obs = encode_observation(g, p)
        cubes = block(obs, "cubes").reshape(6, 5)
        leaders = block(obs, "leaders").reshape(6, 5)
        supply = block(obs, "supply")
        for r in range(4):
            q = (p + r) % 4
            assert supply[r] == pytest.approx(g.supply[q] / 30)
            for c in range(6):
                assert cubes[c, r] == pytest.approx(g.cubes[c * 5 + q] / 10)
                assert leaders[c, r] == (g.leader[c] == q)
        assert not cubes[:, 4].any() and supply[4] == 0  # seat slot 4 absent at 4 players
        assert block(obs, "num_players").tolist() == [0, 1, 0]
        assert block(obs, "phase")[int(Phase.COMMIT)] == 1
        assert block(obs, "acting_seat")[(g.current - p) % 4] == 1
        own = block(obs, "own_special")
        assert own.sum() == 1 and own[g.special[p] if g.special[p] >= 0 else 8] == 1


def test_military_blocks_match_engine_state() -> None:
    g = commit_with_hidden_counters(4, 12)
    for p in range(4):
        obs = encode_observation(g, p)
        known = known_cities(g, p)
        counts = block(obs, "box_counts").reshape(7, 2, 2, 7, 2) * 4
        own_pool = block(obs, "own_pool") * 4
        unseen = block(obs, "unseen_strengths") * 4
        for slot in range(7):
            for side in range(2):
                for box in range(2):
                    base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
                    for c in range(7):
                        for t in range(2):
                            expect = sum(g.at[base + k] for k in D.CLASSES_OF[c][t])
                            assert counts[slot, side, box, c, t] == pytest.approx(expect)
        for k in range(D.NUM_CLASSES):
            city = D.CLASS_CITY[k]
            hidden_here = sum(g.at[b * D.NUM_CLASSES + k] for b in range(28))
            if known >> city & 1:
                assert own_pool[k] == pytest.approx(g.pool[k]) and unseen[k] == 0
            else:
                assert own_pool[k] == 0
                assert unseen[k] == pytest.approx(g.pool[k] + hidden_here)
        assert np.allclose(block(obs, "stacks") * 4, g.stack)
        assert np.allclose(block(obs, "dead_pool") * 4, g.dead)


def test_cached_encoder_matches_stateless_encoding_over_whole_games() -> None:
    enc = ObservationEncoder()
    for n, seed in ((3, 1), (5, 2)):
        g = new_game(GameConfig(num_players=n), seed=seed)
        r = random.Random(seed)
        while not g.is_terminal:
            p = r.randrange(n)
            assert np.array_equal(enc.encode(g, p), encode_observation(g, p))
            g.apply_action(r.choice(g.legal_actions()))


def test_oracle_option_appends_hidden_information() -> None:
    plain, oracle = env(num_players=4), env(num_players=4, oracle=True)
    plain.reset(seed=3)
    oracle.reset(seed=3)
    a = plain.observe("player_0")["observation"]
    b = oracle.observe("player_0")["observation"]
    assert a.shape == (OBS_SIZE,) and b.shape[0] > OBS_SIZE
    assert np.array_equal(a, b[:OBS_SIZE])
    game = oracle.unwrapped.game
    specials = b[OBS_SIZE : OBS_SIZE + 8 * 5].reshape(8, 5)
    for q in range(4):
        assert specials[game.special[q], q] == 1


def test_render_hides_others_secrets() -> None:
    g = commit_with_hidden_counters(4, 13)
    for p in range(4):
        text = render_text(g, p)
        for q in range(4):
            if q != p and g.special[q] >= 0 and g.special[q] != g.special[p]:
                assert D.SPECIAL_NAMES[g.special[q]] not in text.split("specials played")[0]
        known = known_cities(g, p)
        for k in D.EXISTING_CLASSES:
            if not known >> D.CLASS_CITY[k] & 1 and D.class_name(k) + "x" in text:
                pytest.fail(f"{D.class_name(k)} strength shown to p{p}")


# ---- masks, clones, determinize -------------------------------------------------------------


def test_mask_is_exactly_the_engine_legality() -> None:
    e = env(num_players=5)
    e.reset(seed=21)
    rng = np.random.default_rng(21)
    steps = 0
    for _agent in e.agent_iter(400):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        game = e.unwrapped.game
        if steps % 5 == 0:
            expected = np.array([game.is_legal(a) for a in range(NUM_ACTIONS)], dtype=np.int8)
            assert np.array_equal(obs["action_mask"], expected)
        steps += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("how", ["deepcopy", "pickle", "clone_state"])
def test_copies_mid_game_preserve_the_game(how: str) -> None:
    e = env(num_players=4)
    e.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(150):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    if how == "deepcopy":
        other = copy.deepcopy(e)
    elif how == "pickle":
        other = pickle.loads(pickle.dumps(e))
    else:
        other = env(num_players=4)
        other.reset(seed=99)
        other.unwrapped.restore_state(e.unwrapped.clone_state())
    assert other.unwrapped.game == e.unwrapped.game
    assert other.agent_selection == e.agent_selection
    for _ in range(100):
        if e.unwrapped.game.is_terminal:
            break
        a = int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
        assert np.array_equal(
            e.observe(e.agent_selection)["observation"],
            other.observe(other.agent_selection)["observation"],
        )
        e.step(a)
        other.step(a)
    assert other.unwrapped.game.to_dict() == e.unwrapped.game.to_dict()


@pytest.mark.parametrize("n,seed", [(3, 31), (4, 32), (5, 33)])
def test_determinize_is_consistent_with_the_players_information(n: int, seed: int) -> None:
    g = commit_with_hidden_counters(n, seed)
    for p in range(n):
        seen = encode_observation(g, p)
        samples = [determinize(g, p, random.Random(s)) for s in range(12)]
        for s in samples:
            s.check_invariants()
            assert np.array_equal(encode_observation(s, p), seen)
            assert s.special[p] == g.special[p]
            assert sorted(s.influence_deck) == sorted(g.influence_deck)
        # Hidden parts really vary across samples.
        assert len({tuple(s.influence_deck) for s in samples}) > 1
        assert len({s.rng.state for s in samples}) > 1
        if any(g.special[q] >= 0 for q in range(n) if q != p):
            assert len({tuple(s.special) for s in samples}) > 1
    unknown_at = [k for k in range(len(g.at)) if g.at[k]]
    assert unknown_at  # the state has face-down counters
    assert len({tuple(determinize(g, 0, random.Random(s)).at) for s in range(12)}) > 1


def test_env_determinize_accepts_agent_names_and_numpy_generators() -> None:
    e = env(num_players=3)
    e.reset(seed=2)
    g = e.unwrapped.determinize("player_1", np.random.default_rng(0))
    assert np.array_equal(encode_observation(g, 1), encode_observation(e.unwrapped.game, 1))
