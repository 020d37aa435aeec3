"""The vector env's league (``perikles_env/vector/league.py``, ``native/env/vector_env.hpp``):
every game replayed on the Python engine with the documented streams (player count, seat,
one opponent draw per seat by weight or one for the table, the sampled personalities' knobs,
the native players' moves: the Python heuristic with the tie-breaking contract, uniform
random) gives the same rows:
seat, controller, observation with the C++ feature blocks, mask, rewards and ends. Rows
of other controllers are left alone (-1); new weights reach only games dealt later; bad
input is refused before any game starts."""

from __future__ import annotations

import numpy as np
import pytest

from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.agents.tiebreak import tie_break
from perikles_env.analysis.encoding import default_encoder
from perikles_env.analysis.params import PERSONALITIES, HeuristicParams, personality_range
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine.rng import Rng
from perikles_env.errors import IllegalActionError, InvalidConfigError
from perikles_env.vector.league import League, heuristic_params
from perikles_env.vector.seat_draw import cumulative, draw_seats
from tests.native.vec_helpers import draw_table, require_native_vec

native = require_native_vec()
from perikles_env.vector import VectorEnv  # noqa: E402

LEAGUE = {
    "heuristic": 0.4,
    "heuristic:aggression=1.5,caution=0.2": 0.2,
    "personalities": 0.3,
    "random": 0.2,
    "past": 0.2,
}
UNIT = 2.0**-53


class Twin:
    """One game of the env replayed in Python (``native/env/vector_env.hpp`` for the order)."""

    def __init__(self, seed: int, counts, seat, league: League, max_decisions: int) -> None:
        self.seeds, self.policy = Rng(seed), Rng(seed ^ native._native_vec.POLICY_SALT)
        self.counts, self.seat, self.league = counts, seat, league
        self.max_decisions = max_decisions
        self.cdf = cumulative(league.weights)  # the league's one seat draw (seat_draw.py)
        self.deal(seed)

    def uniforms(self, count: int) -> np.ndarray:
        return np.array([(self.policy.next64() >> 11) * UNIT for _ in range(count)])

    def deal(self, seed: int) -> None:
        while True:
            n, self.learner = draw_table(self.policy, self.counts, self.seat)
            self.seats = self.draw_seats(n)
            self.personalities = self.draw_personalities(n)
            self.game_seed = seed
            self.game = new_game(
                GameConfig(num_players=n, record_events=False), seed=seed, backend="python"
            )
            self.play_natives()
            if not self.game.is_terminal and not self.truncated():
                return
            seed = self.seeds.next64()

    def draw_seats(self, n: int) -> list[int]:
        positive = [k for k, w in enumerate(self.league.weights) if w > 0]
        if len(positive) == 1:  # one opponent with weight: no draw
            return [-1 if p == self.learner else positive[0] for p in range(n)]
        picks = iter(draw_seats(self.uniforms, self.cdf, self.league.same_table, n - 1))
        return [-1 if p == self.learner else next(picks) for p in range(n)]

    def draw_personalities(self, n: int) -> dict[int, HeuristicParams]:
        """Seat by seat, each ranged knob in declaration order: low + (high - low) * u."""
        low, high = personality_range()
        drawn = {}
        for p in range(n):
            if self.spec(p) != PERSONALITIES:
                continue
            knobs = {}
            for name in HeuristicParams.names():
                lo, hi = getattr(low, name), getattr(high, name)
                knobs[name] = lo + (hi - lo) * self.uniforms(1)[0] if hi > lo else lo
            drawn[p] = HeuristicParams(**knobs)
        return drawn

    def truncated(self) -> bool:
        return not self.game.is_terminal and self.game.decisions >= self.max_decisions

    def spec(self, seat: int) -> str:
        k = self.seats[seat]
        return "learner" if k < 0 else self.league.specs[k]

    def controller(self) -> int:
        spec = self.spec(self.game.current)
        return 1 + self.league.controllers.index(spec) if spec in self.league.controllers else 0

    def play_natives(self) -> None:
        g = self.game
        while not g.is_terminal and not self.truncated():
            spec = self.spec(g.current)
            if spec == "learner" or spec in self.league.controllers:
                return
            legal = g.legal_actions()
            if spec == "random":
                g.apply_action(legal[self.policy.randrange(len(legal))])
            elif len(legal) == 1:
                g.apply_action(legal[0])
            else:
                params = self.personalities.get(g.current) or heuristic_params(spec)
                scores = score_actions(params, PlayerView(g, g.current), legal)
                g.apply_action(legal[tie_break(scores, self.policy.next64(), params.noise)])

    def step(self, action: int) -> tuple[bool, bool, int]:
        before = self.game.decisions
        self.game.apply_action(action)
        self.play_natives()
        return self.game.is_terminal, self.truncated(), self.game.decisions - before


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("threads", [1, 2])
def test_every_row_equals_the_python_league(threads: int) -> None:
    num_envs, seed, features = 3, 90, ("battle", "actions")
    env = VectorEnv(
        num_envs,
        [3, 4, 5],
        opponents=LEAGUE,
        controllers=["past"],
        learner_seat=None,
        features=features,
        threads=threads,
        same_table=0.3,
    )
    league = env.league
    twins = [Twin(seed + i, [3, 4, 5], None, league, env.max_decisions) for i in range(num_envs)]
    encoder = default_encoder(features)
    state = env.reset(seed)
    rng = np.random.default_rng(3)
    ended, by_controller, natives = 0, {0: 0, 1: 0}, set()
    while ended < 4:
        for i, t in enumerate(twins):
            g = t.game
            assert state.current[i] == g.current and state.controller[i] == t.controller(), i
            assert env.seat_specs(i) == [t.spec(p) for p in range(g.n)]
            assert same_bytes(state.observation[i], encoder.encode(g, g.current)), f"game {i} obs"
            assert np.flatnonzero(state.action_mask[i]).tolist() == g.legal_actions()
            natives.update(s for s in env.seat_specs(i) if s not in ("learner", "past"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in state.action_mask], np.int32)
        for k in by_controller:
            by_controller[k] += int((state.controller == k).sum())
        state = env.step(actions)
        for i, t in enumerate(twins):
            terminated, truncated, decisions = t.step(int(actions[i]))
            assert (state.terminated[i], state.truncated[i]) == (terminated, truncated)
            assert state.decisions[i] == decisions
            if terminated:
                ended += 1
                n = t.game.n
                assert state.final_scores[i, :n].tolist() == t.game.scores()
                assert np.allclose(state.rewards[i, :n], t.game.win_rewards())
                t.deal(t.seeds.next64())
    assert min(by_controller.values()) > 0  # learner and snapshot rows both came back
    assert natives == {"heuristic", "heuristic:aggression=1.5,caution=0.2", "random", PERSONALITIES}
    drawn = {v for t in twins for p in t.personalities.values() for v in p.values()}
    assert len(drawn) > 4  # every sampled seat its own knobs


def test_rows_of_other_controllers_stay_as_they_are() -> None:
    env = VectorEnv(
        4, 4, opponents={"random": 1, "past": 1}, controllers=["past"], learner_seat=None
    )
    state = env.reset(5)
    for _ in range(50):
        if len(set(state.controller.tolist())) == 2:
            break
        state = env.step(env.random_actions().copy())
    mine = state.controller == 0
    before = [np.copy(a) for a in state]
    actions = np.where(mine, env.random_actions(), -1).astype(np.int32)
    after = env.step(actions)
    for name, a, b in zip(after._fields, after, before, strict=True):
        if name in ("rewards", "terminated", "truncated", "final_scores", "decisions"):
            assert not np.asarray(a)[~mine].any(), name  # nothing to report there
        else:
            assert np.array_equal(np.asarray(a)[~mine], b[~mine]), name
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(np.full(4, -1, np.int32), allow_skip=False)


def test_new_weights_reach_only_games_dealt_later() -> None:
    env = VectorEnv(6, 3, opponents={"random": 1.0, "heuristic": 0.0}, learner_seat=0)
    env.reset(1)
    assert all(s == ["learner", "random", "random"] for s in (env.seat_specs(i) for i in range(6)))
    env.set_weights({"heuristic": 1.0})
    seen = set()
    for _ in range(3000):
        state = env.step(env.random_actions().copy())
        for i in np.flatnonzero(state.terminated | state.truncated):
            seen.add(tuple(env.seat_specs(int(i))))
        running = {tuple(env.seat_specs(i)) for i in range(6)}
        if len(seen) >= 2:
            break
    assert ("learner", "heuristic", "heuristic") in seen | running
    with pytest.raises(InvalidConfigError, match="not in this env's league"):
        env.set_weights({"heuristic:spite=1": 1.0})
    with pytest.raises(InvalidConfigError, match="positive sum"):
        env.set_weights({"random": 0.0})
    for bad in ({"random": 10**400}, {"random": 1e308}, {"random": "1"}):
        with pytest.raises(InvalidConfigError, match="weights must be finite numbers"):
            env.set_weights(bad)
    with pytest.raises(InvalidConfigError, match="weights must be a"):
        env.set_weights(None)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"opponents": {"heuristc": 1.0}}, "unknown opponent spec 'heuristc'"),
        ({"opponents": {"heuristic:agression=1": 1.0}}, "not one of aggression"),
        ({"opponents": {"heuristic:aggression=3": 1.0}}, "aggression must be in"),
        ({"opponents": {"random": -1.0}}, "weights must be finite numbers >= 0"),
        ({"opponents": {"random": 0.0, "heuristic": 0.0}}, "positive sum"),
        ({"opponents": {"random": "1"}}, "weights must be finite numbers"),
        ({"opponents": {"net": 1.0}}, "must be named in controllers"),
        ({"opponents": "random", "controllers": ["random"]}, "controller names"),
        ({"controllers": ["net"]}, "controllers need opponents"),
        ({"opponents": "random", "learner_seat": 3, "num_players": [3, 4]}, "learner_seat"),
        ({"features": ["battle", "odds"]}, "unknown feature block 'odds'"),
        ({"opponents": "random", "same_table": 1.5}, "same_table"),
        # each of these once raised OverflowError, TypeError or a C++
        # ValueError before; now one InvalidConfigError naming what is wrong
        ({"opponents": {"random": 1e308, "heuristic": 1e308}}, "weights must be finite numbers"),
        ({"opponents": {"random": 10**400}}, "weights must be finite numbers"),
        ({"opponents": {"random": float("nan")}}, "weights must be finite numbers"),
        ({"opponents": [["random"]]}, "opponent spec must be a non-empty string"),
        ({"opponents": {"": 1.0}}, "opponent spec must be a non-empty string"),
        ({"opponents": "random", "same_table": float("nan")}, "same_table"),
        ({"opponents": {"heuristic:noise=1e400": 1.0}}, "noise must be in"),
        ({"opponents": {"heuristic:spite=nan": 1.0}}, "spite must be in"),
    ],
)
def test_bad_league_input_is_refused_before_any_game(kwargs, message) -> None:
    kwargs = {"num_envs": 2, "num_players": 4, **kwargs}
    with pytest.raises(InvalidConfigError, match=message):
        VectorEnv(**kwargs)


def test_wrong_action_buffers_are_refused() -> None:
    env = VectorEnv(3, 4, opponents="heuristic", features=["battle"])
    env.reset(0)
    with pytest.raises(InvalidConfigError, match=r"3 integer action ids"):
        env.step(np.zeros(3, dtype=np.float32))
    with pytest.raises(InvalidConfigError, match=r"shape \(2,\)"):
        env.step(np.zeros(2, dtype=np.int32))
    assert env.obs_size == native._native_vec.OBS_SIZE + native._native_vec.BATTLE_FEATURES_SIZE
