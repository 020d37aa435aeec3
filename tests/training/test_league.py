"""The heuristic-league recipe (configs/default.yaml) on its smoke config
(configs/heuristic_league_smoke.yaml): the league of heuristic personalities, snapshots and a
little random; the imitation warm start with its agreement; periodic evaluation against the
heuristic; the final evaluation against random, default and other-personality heuristics, each
with a CI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perikles_env.agents import make_agent
from perikles_env.analysis.params import HeuristicParams
from perikles_env.errors import InvalidConfigError
from perikles_env.launch.ppo import main
from perikles_env.training.ppo.config import load_config
from perikles_env.training.ppo.self_play_pool import SelfPlayPool

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
LEAGUE, SMOKE = CONFIGS / "default.yaml", CONFIGS / "heuristic_league_smoke.yaml"


def test_league_mixes_personalities_and_random_players() -> None:
    """The default league: the heuristic in four personalities and random players,
    all native (no snapshots: measured worse for this budget, docs/results.md)."""
    config = load_config(LEAGUE)
    pool = SelfPlayPool(config.opponents).pool()
    shares = dict(zip(pool.specs, pool.probabilities, strict=True))
    assert shares == pytest.approx(
        {
            "heuristic": 0.4,
            "heuristic:aggression=1.5,caution=0.2": 0.15,
            "heuristic:politics=1.8,aggression=0.2": 0.15,
            "heuristic:spite=1.5": 0.15,
            "random": 0.15,
        }
    )


def test_league_with_snapshots_mixes_them_in() -> None:
    weights = (
        "opponents.weights={heuristic: 0.35, 'heuristic:aggression=1.5,caution=0.2': 0.1, "
        "'heuristic:politics=1.8,aggression=0.2': 0.1, 'heuristic:spite=1.5': 0.1, "
        "random: 0.1, self_latest: 0.15, self_past: 0.1}"
    )
    config = load_config(LEAGUE, [weights])
    pool = SelfPlayPool(config.opponents)
    start = dict(zip(pool.pool().specs, pool.pool().probabilities, strict=True))
    # no snapshot yet: the self entries have no weight, the fixed ones are renormalised
    assert start == pytest.approx(
        {
            "heuristic": 0.35 / 0.75,
            "heuristic:aggression=1.5,caution=0.2": 0.1 / 0.75,
            "heuristic:politics=1.8,aggression=0.2": 0.1 / 0.75,
            "heuristic:spite=1.5": 0.1 / 0.75,
            "random": 0.1 / 0.75,
        }
    )
    for step in (1, 2, 3):
        pool.add_snapshot(f"runs/x/snapshots/s{step}.zip")
    league = pool.pool()
    shares = dict(zip(league.specs, league.probabilities, strict=True))
    latest = "ppo:runs/x/snapshots/s3.zip,deterministic=false"
    assert shares[latest] == pytest.approx(0.15)
    assert shares["ppo:runs/x/snapshots/s2.zip,deterministic=false"] == pytest.approx(0.1)
    assert shares["random"] == pytest.approx(0.1)
    personalities = [s for s in shares if s.startswith("heuristic")]
    assert sum(shares[s] for s in personalities) == pytest.approx(0.65)
    # each opponent seat draws from those shares
    draws = league.sample(np.random.default_rng(0), 30_000)
    for spec, p in shares.items():
        assert abs(draws.count(spec) / len(draws) - p) < 0.01, spec


def test_league_personalities_are_other_heuristics() -> None:
    config = load_config(LEAGUE)
    default = HeuristicParams()
    others = [s for s in config.opponents.weights if s.startswith("heuristic:")]
    assert len(others) == 3
    for spec in others:
        params = make_agent(spec).params
        assert params != default
    # the final evaluation plays each personality too, and the long budget's bar opponent
    assert set(others) <= set(config.eval.opponents)
    assert config.eval.games_vs("heuristic") > 0  # periodic evaluation against the heuristic


@pytest.mark.parametrize("key", ["pretrain.agreement_games=-1", "eval.agreement_games=-2"])
def test_negative_agreement_games_are_refused(key) -> None:
    with pytest.raises(InvalidConfigError, match=key.split("=")[0]):
        load_config(SMOKE, [key])


@pytest.fixture(scope="module")
def league_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    assert main(["--config", str(SMOKE), "--override", f"out={out}"]) == 0
    return out / "heuristic_league_smoke"


def test_smoke_recipe_reports_agreement_and_honest_win_rates(league_run) -> None:
    summary = json.loads((league_run / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["timesteps"] == 256
    pre = summary["pretrain"]
    assert pre["decisions"] >= 300 and pre["teacher"] == "heuristic"
    for report in (pre["agreement"], summary["agreement"]):
        kinds = report["kinds"]
        assert {"tile_pick", "proposal", "commit_place"} <= set(kinds)
        assert report["overall"]["decisions"] == sum(k["decisions"] for k in kinds.values())
        assert 0.0 <= report["overall"]["agreement"] <= 1.0
    assert (league_run / "eval" / "pretrained.zip").is_file()  # the model after imitation only
    # the learning curve is evaluated against the heuristic, not only random players
    (row,) = summary["evals"]
    assert {"win_rate_vs_random", "win_rate_vs_heuristic"} <= set(row)
    finals = {e["opponent"]: e for e in summary["final_eval"]}
    assert list(finals) == ["random", "heuristic", "heuristic:spite=1.5"]
    for e in finals.values():
        low, high = e["win_ci"]
        assert e["games"] == 4 and low <= e["win_rate"] <= high
    report = (league_run / "report.md").read_text()
    assert "Imitation agreement of the final model" in report and "| commit_place |" in report


def test_smoke_recipe_model_is_the_scoring_policy(league_run) -> None:
    from perikles_env.agents.ppo_file import read_model

    model = read_model(league_run / "model.zip")
    assert model.meta["policy"]["class"] == "ActionScoringPolicy"
    assert model.meta["observation"]["features"] == ["battle", "actions"]
    agent = make_agent(f"ppo:{league_run / 'model.zip'}")
    assert agent.features == ["battle", "actions"]


def test_long_league_config_adds_ismcts_to_the_final_evaluation_only() -> None:
    config = load_config(CONFIGS / "long.yaml")
    assert config.eval.games_vs("ismcts:sims=30", final=True) > 0
    assert config.eval.games_vs("ismcts:sims=30") == 0  # too slow for the learning curve
    assert config.ppo.action_head == "scoring" and config.env.features[-1] == "actions"
