"""The trainers evaluate only through the ``Evaluator`` they are handed
(``perikles_env/jobs/evaluator.py``): each call carries the config's lineup, players, games,
seed and workers, and the command lines hand in the tournament evaluator itself."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from perikles_env.jobs.evaluator import Evaluator


class Recorder:
    """An evaluator that records its calls and answers fixed numbers."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], dict[str, Any]]] = []
        self.forgotten: list[str] = []

    def evaluate(self, specs: list[str], **options: Any) -> Any:
        self.calls.append((list(specs), options))
        stats = SimpleNamespace(win_rate=0.25, win_ci=(0.1, 0.4))
        return SimpleNamespace(
            win_rate=lambda spec: 0.25 if spec == specs[0] else 0.75,
            truncated_games=0,
            matchups=[SimpleNamespace(agents={specs[0]: stats})],
            records=[None] * options["games"],
        )

    def as_evaluator(self) -> Evaluator:
        return Evaluator(evaluate=self.evaluate, forget_agent=self.forgotten.append,
                         summary=lambda result: "summary")


def test_ppo_periodic_evaluation_asks_the_evaluator_it_is_given(tmp_path: Path) -> None:
    from perikles_env.training.ppo.config import load_config
    from perikles_env.training.ppo.train import eval_row

    config = load_config("smoke")
    model = tmp_path / "step.zip"
    model.write_bytes(b"a model file the evaluator would load")
    recorder = Recorder()
    row = eval_row(config, str(model), 512, recorder.as_evaluator())
    spec = f"ppo:{model}"
    assert row == {"timesteps": 512, "win_rate_vs_random": 0.25}
    assert recorder.calls == [([spec, "random"], {
        "players": 4, "games": 3, "seed": 1000, "workers": 1, "plots": False,
    })]
    assert recorder.forgotten == [spec]  # the file is replaced at the next evaluation
    assert not model.exists()


def test_expert_evaluation_asks_the_evaluator_it_is_given(tmp_path: Path) -> None:
    from perikles_env.training.expert.config import load_config
    from perikles_env.training.expert.loop import evaluate_net

    config = load_config("search_smoke", [f"out={tmp_path}"])
    recorder = Recorder()
    net = tmp_path / "net.pkn"
    out = evaluate_net(config, net, recorder.as_evaluator())
    assert sorted(out) == ["net vs heuristic", "search vs heuristic"]
    assert out["search vs heuristic"] == {"win_rate": 0.25, "ci": [0.1, 0.4], "games": 4}
    lineups = [specs for specs, _ in recorder.calls]
    assert [f"net:{net}", "heuristic"] in lineups
    assert all(specs[0].startswith(("search:model=", "net:")) for specs in lineups)
    for _, options in recorder.calls:
        assert options == {"players": config.net.num_players, "games": 4, "seed": 1000,
                           "workers": 1, "plots": False}


def test_expert_evaluation_says_which_line_it_plays(tmp_path: Path, capsys) -> None:
    """An evaluation with search can run longer than many iterations: a line as each starts."""
    from perikles_env.training.expert.config import load_config
    from perikles_env.training.expert.loop import evaluate_net

    config = load_config("search_smoke", [f"out={tmp_path}"])
    evaluate_net(config, tmp_path / "net_0002.pkn", Recorder().as_evaluator(), progress=True)
    assert capsys.readouterr().out.splitlines() == [
        "perikles-search-train: evaluating net_0002.pkn: search vs heuristic, 4 games (1/2)",
        "perikles-search-train: evaluating net_0002.pkn: net vs heuristic, 4 games (2/2)",
    ]
    evaluate_net(config, tmp_path / "net_0002.pkn", Recorder().as_evaluator())
    assert capsys.readouterr().out == ""


def test_the_command_lines_hand_in_the_tournament_evaluator() -> None:
    from perikles_env.cli import TOOLS
    from perikles_env.evaluation import evaluate
    from perikles_env.evaluation.cli import summary
    from perikles_env.evaluation.for_trainers import TOURNAMENT
    from perikles_env.evaluation.runner import forget_agent

    assert TOURNAMENT == Evaluator(evaluate=evaluate, forget_agent=forget_agent, summary=summary)
    assert TOOLS["perikles-train"][0] == "perikles_env.launch.ppo"
    assert TOOLS["perikles-search-train"][0] == "perikles_env.launch.expert"
    assert TOOLS["perikles-train-rllib"][0] == "perikles_env.launch.rllib"
