"""Imitation agreement (perikles_env/training/agreement.py): tie-aware, per decision kind."""

from __future__ import annotations

import json

import pytest

from perikles_env.agents import make_agent
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine import actions as A
from perikles_env.engine.phases import Phase
from perikles_env.errors import InvalidConfigError
from perikles_env.training.agreement import (
    KINDS,
    best_actions,
    decision_kind,
    main,
    measure_agreement,
)


def test_the_teacher_agrees_with_itself_on_every_kind() -> None:
    report = measure_agreement("heuristic", games=1, seed=900_000).to_dict()
    assert report["overall"]["decisions"] > 100
    assert set(report["kinds"]) <= set(KINDS)
    for kind, row in report["kinds"].items():
        assert row["agreement"] == 1.0, kind


def test_random_play_agrees_near_chance_and_ties_count() -> None:
    report = measure_agreement("random", games=2, seed=900_000).to_dict()
    overall = report["overall"]
    # a random legal choice agrees at the chance rate (|best| / |legal| per decision)
    assert abs(overall["agreement"] - overall["chance"]) < 0.08
    assert overall["agreement"] < 0.5
    assert report["kinds"]["commit_place"]["tied"] > 0  # the heuristic often ties on commits


def test_another_personality_disagrees_somewhere() -> None:
    report = measure_agreement("heuristic:spite=0,aggression=2", games=1).to_dict()
    assert 0.3 < report["overall"]["agreement"] < 1.0


def test_best_actions_are_the_top_scores_with_ties() -> None:
    game = new_game(GameConfig(num_players=4), seed=3)
    teacher = make_agent("heuristic")
    best = best_actions(teacher, game, game.current)  # setup: one cube in a city (B.1)
    legal = game.legal_actions()
    assert best and set(best) <= set(legal)
    # the teacher's own choice is always in the best set, whatever its tie-break draws
    import numpy as np

    for s in range(5):
        assert teacher.act_state(game.clone(), game.current, np.random.default_rng(s)) in best


def test_decision_kind_splits_commits_by_the_best_set() -> None:
    place = A.PLACE
    assert decision_kind(Phase.COMMIT, [place, A.END_STEP]) == "commit_place"
    assert decision_kind(Phase.COMMIT, [A.END_STEP]) == "commit_other"
    assert decision_kind(Phase.PROPOSE, [A.PROPOSE]) == "proposal"
    assert decision_kind(Phase.CANDIDATE_TILE, [A.PROPOSE]) == "proposal"
    assert decision_kind(Phase.INFLUENCE_PICK, [A.TAKE_TILE]) == "tile_pick"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidConfigError, match="games"):
        measure_agreement("random", games=0)
    with pytest.raises(InvalidConfigError, match="teacher must be a heuristic"):
        measure_agreement("random", games=1, teacher="random")
    with pytest.raises(InvalidConfigError, match="noise"):
        measure_agreement("random", games=1, teacher="heuristic:noise=0.5")


def test_cli_prints_the_table_and_writes_json(tmp_path, capsys) -> None:
    out = tmp_path / "agreement.json"
    assert main(["--agent", "random", "--games", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| commit_place |" in text and "| overall |" in text
    data = json.loads(out.read_text())
    assert data["agent"] == "random" and data["games"] == 1


def test_demonstrations_play_the_heuristic_s_own_moves_and_record_its_ties() -> None:
    """pretrain.teacher_move scores a heuristic teacher once and draws its move from the
    best set with the same generator calls as HeuristicAgent: the same games, plus ties."""
    import numpy as np

    from perikles_env.training.ppo.pretrain import teacher_move

    teacher = make_agent("heuristic")
    game = new_game(GameConfig(num_players=4, record_events=False), seed=21)
    a_rng, b_rng = np.random.default_rng(5), np.random.default_rng(5)
    ties = 0
    while not game.is_terminal:
        p = game.current
        expected = teacher.act_state(game.clone(), p, a_rng)
        action, best = teacher_move(teacher, game, p, b_rng)
        assert action == expected and action in best
        ties += len(best) > 1
        game.apply_action(action)
    assert ties > 20
    other = make_agent("random")
    start = new_game(GameConfig(num_players=4), seed=1)
    action, best = teacher_move(other, start, start.current, np.random.default_rng(0))
    assert best == [action]  # any other teacher: its own action alone
