"""``opponents.curriculum``: stages checked in the config, the pool's league at each stage
(every fixed agent named from the start), and a training run whose games are dealt from
the stage's league once it reaches it."""

from __future__ import annotations

from pathlib import Path

import pytest
from stable_baselines3.common.callbacks import BaseCallback

from perikles_env.errors import InvalidConfigError
from perikles_env.training.ppo.callbacks import CurriculumCallback
from perikles_env.training.ppo.config import load_config
from perikles_env.training.ppo.self_play_pool import SelfPlayPool
from perikles_env.training.ppo.train import make_model, make_vec_env

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
STAGES = (
    "opponents.curriculum=[{until: 200, weights: {random: 1}}, "
    "{until: 400, weights: {random: 1, 'heuristic:noise=2': 3}}]"
)


def config(*overrides: str):
    return load_config(CONFIGS / "smoke.yaml", [
        "opponents.weights={heuristic: 1, self_latest: 1}", "opponents.snapshot_every=300",
        STAGES, *overrides,
    ])


@pytest.mark.parametrize(("stages", "words"), [
    ("[{until: 400, weights: {random: 1}}, {until: 200, weights: {heuristic: 1}}]", "increase"),
    ("[{until: 100, weights: {self_latest: 1}}]", "fixed agents"),
    ("[{until: 100, weights: {random: 0}}]", "positive weight"),
    ("[{until: 100, weights: {'ismcts:sims=abc': 1}}]", "ismcts"),
    ("[{until: 0, weights: {random: 1}}]", "until"),
])
def test_bad_stages_are_refused_by_name(stages, words):
    with pytest.raises(InvalidConfigError, match=words):
        config(f"opponents.curriculum={stages}")


def test_the_pool_names_every_agent_and_weighs_the_stage():
    pool = SelfPlayPool(config().opponents)
    assert [pool.stage_at(s) for s in (0, 199, 200, 399, 400, 10**9)] == [0, 0, 1, 1, 2, 2]
    every = ["random", "heuristic:noise=2", "heuristic"]
    first = pool.pool()
    assert list(first.specs) == every and list(first.weights) == [1.0, 0.0, 0.0]
    pool.add_snapshot("snap_a.zip")  # a snapshot plays only in the final league
    assert pool.advance(250) and not pool.advance(300)
    assert list(pool.pool().weights) == [1.0, 3.0, 0.0]
    assert pool.advance(400)
    final = pool.pool()
    assert list(final.specs) == [*every, "ppo:snap_a.zip,deterministic=false"]
    assert list(final.weights) == [0.0, 0.0, 1.0, 1.0]


def test_a_league_without_stages_keeps_its_pool():
    pool = SelfPlayPool(config("opponents.curriculum=[]").opponents)
    assert list(pool.pool().specs) == ["heuristic"] and pool.stage == 0
    assert not pool.advance(10**9)


class DealLog(BaseCallback):
    """The opponents of every game the C++ env deals, with the learner steps at that time."""

    def __init__(self) -> None:
        super().__init__()
        self.deals: list[tuple[int, frozenset[str]]] = []
        self._episodes: dict[int, int] = {}

    def _on_step(self) -> bool:
        vector = self.training_env.venv.vector
        for i in range(vector.num_envs):
            if vector.episodes(i) != self._episodes.get(i):
                self._episodes[i] = vector.episodes(i)
                specs = frozenset(vector.seat_specs(i)) - {"learner"}
                self.deals.append((self.model.num_timesteps, specs))
        return True

    def between(self, low: int, high: int) -> set[str]:
        return set().union(*(specs for steps, specs in self.deals if low < steps <= high))


def test_training_deals_each_stages_league_from_its_step_on():
    c = config("env.vector=native", "env.num_players=3", "opponents.snapshot_every=0",
               "opponents.weights={heuristic: 1}", "ppo.n_steps=32", "train.n_envs=2",
               "opponents.curriculum=[{until: 200, weights: {random: 1}}, "
               "{until: 1200, weights: {random: 1, 'heuristic:noise=2': 3}}]")
    pool = SelfPlayPool(c.opponents)
    env = make_vec_env(c, pool.pool())
    model = make_model(c, env, None)
    log = DealLog()
    # rollouts of 64 steps: stage 0 deals until step 256, stage 1 from 256 to 1216
    model.learn(2560, callback=[CurriculumCallback(pool), log])
    assert log.between(-1, 256) == {"random"}
    assert log.between(256, 1216) <= {"random", "heuristic:noise=2"}
    assert "heuristic:noise=2" in log.between(256, 1216)
    assert log.between(1280, 2560) == {"heuristic"}
    assert pool.stage == 2
    env.close()
