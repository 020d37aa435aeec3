"""Training config validation (training/config.py) and the shipped configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from perikles_env.errors import InvalidConfigError
from perikles_env.training.ppo.config import config_from_dict, load_config, parse_override

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
NET = str(CONFIGS.parent / "perikles_env/agents/search/search_net.pkn")


EXPERT_SECTION = "## Expert iteration"


def _documented_overrides() -> tuple[list[str], list[str]]:
    """The ``--override`` texts of README.md and docs/training.md: those for
    ``perikles-train`` and those of the expert-iteration section (``perikles-search-train``),
    where a ``perikles-train`` command (a recipe's first step) counts as ``perikles-train``'s."""
    import re

    root = CONFIGS.parent
    training = (root / "docs/training.md").read_text()
    start = training.index(EXPERT_SECTION)
    end = training.find("\n## ", start + len(EXPERT_SECTION))
    expert = training[start : end if end >= 0 else len(training)]
    train = (root / "README.md").read_text() + training.replace(expert, "")
    expert = expert.replace("\\\n", " ")  # one line per shell command
    for command in re.findall(r"perikles-train [^\n]*", expert):
        train += "\n" + command
        expert = expert.replace(command, "")

    def found(text: str) -> list[str]:
        overrides = re.findall(r"--override ([\w.]+=[^\s`\\]+)", text)
        return [o for o in overrides if not o.startswith("key.")]  # the syntax placeholder

    return found(train), found(expert)


def test_overrides_shown_in_the_docs_are_valid():
    from perikles_env.training.expert.config import load_config as load_expert_config

    train, expert = _documented_overrides()
    assert len(train) >= 4 and len(expert) >= 4  # README and docs/training.md show several
    for override in train:
        load_config(CONFIGS / "default.yaml", [override])
    for override in expert:
        load_expert_config(CONFIGS / "search_long.yaml", [override])


@pytest.mark.parametrize("name", ["smoke", "default", "long", "net_tune", "net_counts"])
def test_shipped_configs_are_valid(name):
    config = load_config(CONFIGS / f"{name}.yaml")
    assert config.name == name
    assert config.train.torch_threads == 1


def test_default_config_targets_the_acceptance_evaluation():
    """README's main job: final evaluation of >= 400 4-player games vs random (and some vs
    heuristic), training time capped well inside the 20-minute budget."""
    config = load_config(CONFIGS / "default.yaml")
    assert config.eval.games_vs("random", final=True) >= 400 and 4 in config.eval.final_players
    assert config.eval.games_vs("heuristic", final=True) > 0
    assert config.train.max_minutes is not None and config.train.max_minutes <= 16


def test_eval_games_per_opponent():
    config = config_from_dict({"eval": {"games": {"random": 8}, "final_games": 12}})
    assert config.eval.games_vs("random") == 8 and config.eval.games_vs("heuristic") == 0
    assert config.eval.games_vs("heuristic", final=True) == 12


def test_defaults_and_overrides():
    config = config_from_dict(
        {"ppo": {"learning_rate": "3e-4"}},
        ["ppo.n_steps=64", "env.num_players=[3, 5]", "opponents.weights={random: 2}", "name=x"],
    )
    assert config.ppo.learning_rate == pytest.approx(3e-4)
    assert config.ppo.n_steps == 64 and config.env.num_players == [3, 5]
    assert config.opponents.weights == {"random": 2.0} and config.name == "x"
    assert config.ppo.batch_size == 256  # untouched default


def test_override_values_are_yaml_scalars():
    assert parse_override("ppo.learning_rate=1e-4") == (["ppo", "learning_rate"], 1e-4)
    assert parse_override("train.max_minutes=null") == (["train", "max_minutes"], None)
    assert parse_override("train.progress_bar=false") == (["train", "progress_bar"], False)


@pytest.mark.parametrize(
    ("data", "overrides", "message"),
    [
        ({"ppo": {"lr": 1}}, [], "ppo: unknown key 'lr' \\(known: action_head"),
        ({"bogus": 1}, [], "unknown key 'bogus' \\(known: env, eval"),
        ({}, ["train.total_steps=5"], "train: unknown key 'total_steps'"),
        ({"ppo": {"n_steps": "many"}}, [], "ppo.n_steps: must be an int, got 'many'"),
        ({"ppo": {"n_steps": 0}}, [], "ppo.n_steps: must be > 0, got 0"),
        ({"ppo": {"gamma": 1.5}}, [], "ppo.gamma: must be <= 1, got 1.5"),
        (
            {"ppo": {"activation": "gelu"}},
            [],
            "ppo.activation: must be one of 'tanh' or 'relu', got 'gelu'",
        ),
        ({"ppo": {"net_arch": []}}, [], "ppo.net_arch: must not be empty"),
        ({"ppo": {"mask_input": True}}, [], "ppo: unknown key 'mask_input'"),
        ({"ppo": {"obs_norm": True}}, [], "ppo: unknown key 'obs_norm'"),
        ({"ppo": {"shared_layers": 1}}, [], "ppo: unknown key 'shared_layers'"),
        (
            {"ppo": {"action_head": "factored"}},
            [],
            "ppo.action_head: must be one of 'flat', 'battle' or 'scoring'",
        ),
        ({"teacher": {"spec": "heuristic"}}, [], "unknown key 'teacher'"),
        ({"env": {"features": ["odds"]}}, [], "env.features: unknown feature block 'odds'"),
        ({"env": {"features": "battle"}}, [], "env.features: must be a list, got 'battle'"),
        (
            {"ppo": {"action_head": "battle"}},
            [],
            r"ppo.action_head: battle reads .* set env.features: \[battle\]",
        ),
        ({"reward": {"potential": "expected"}}, [], "reward: unknown key 'potential'"),
        ({"train": {"n_envs": True}}, [], "train.n_envs: must be an int, got True"),
        ({"train": {"vec_env": "ray"}}, [], "train.vec_env: must be one of"),
        ({"env": {"num_players": 6}}, [], "env.num_players: must be in 3..5"),
        (
            {"env": {"learner_seat": 4, "num_players": [3, 4]}},
            [],
            "env.learner_seat: must be below the smallest player count 3, got 4",
        ),
        (
            {"env": {"learner_seat": "first"}},
            [],
            "env.learner_seat: must be an int or 'random', got 'first'",
        ),
        ({"reward": {"vp_scale": 0}}, [], "reward.vp_scale: must be > 0, got 0"),
        ({"reward": {"win": 0, "vp_margin": 0}}, [], "reward: win and vp_margin cannot both be 0"),
        (
            {"opponents": {"weights": {"nobody": 1}}},
            [],
            "opponents.weights: unknown agent 'nobody'",
        ),
        (
            {"opponents": {"weights": {"random": -1}}},
            [],
            "opponents.weights.random: must be >= 0, got -1",
        ),
        (
            {"opponents": {"weights": {"random": float("nan")}}},
            [],
            "opponents.weights.random: must be a finite number",
        ),
        ({"reward": {"shaping": float("inf")}}, [], "reward.shaping: must be a finite number"),
        ({"out": 5}, [], "out: must be a string, got 5"),
        ({"out": ""}, [], "out: must be a folder path"),
        ({"name": "../x"}, [], "name: must be a plain folder name"),
        ({"name": ".."}, [], "plain folder name"),
        (
            {"opponents": {"weights": {"self_latest": 1}, "snapshot_every": 10}},
            [],
            "opponents.weights: needs a positive weight on a non-self",
        ),
        (
            {"opponents": {"weights": {"random": 1, "self_past": 1}}},
            [],
            "opponents.snapshot_every: must be > 0 when",
        ),
        (
            {"eval": {"opponents": ["heuristic:nerve=1"]}},
            [],
            r"eval.opponents\[0\]: unknown heuristic option",
        ),
        ({"eval": {"final_players": [2]}}, [], r"eval.final_players\[0\]: must be >= 3, got 2"),
        ({"eval": {"games": -1}}, [], "eval.games: must be >= 0"),
        ({"eval": {"final_games": {"ismcts": 4}}}, [], r"eval.final_games: names \['ismcts'\]"),
        ({"name": "a/b"}, [], "plain folder name"),
        ({"ppo": []}, [], "ppo: must be a mapping, got \\[\\]"),
        (
            {"ppo": {"init_net": NET}},
            [],
            "ppo.init_net: needs ppo.action_head: scoring",
        ),
        (
            {"ppo": {"init_net": NET, "action_head": "scoring"}, "env": {"features": ["actions"]},
             "pretrain": {"decisions": 10}},
            [],
            "ppo.init_net: starts from a trained policy: set pretrain.decisions: 0, or "
            "pretrain.policy_weight: 0",
        ),
        (
            {"ppo": {"init_net": NET, "action_head": "scoring"}, "env": {"features": ["actions"]}},
            [],
            r"ppo.init_net: the network has features \['battle', 'actions'\], policy \[128, 128\]",
        ),
        (
            {"ppo": {"init_net": "absent.pkn", "action_head": "scoring"},
             "env": {"features": ["actions"]}},
            [],
            "ppo.init_net: search network file not found: absent.pkn",
        ),
        ({}, ["ppo.n_steps"], "is not key=value"),
        ({}, ["ppo.clip_range=.inf"], "not allowed"),
    ],
)
def test_bad_configs_raise_clear_errors(data, overrides, message):
    with pytest.raises(InvalidConfigError, match=message):
        config_from_dict(data, overrides)


def test_load_config_names_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("ppo:\n  n_step: 3\n")
    with pytest.raises(InvalidConfigError, match=r"c\.yaml: ppo: unknown key 'n_step'"):
        load_config(path)
    with pytest.raises(InvalidConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")
    path.write_text("ppo: [1, 2\n")
    with pytest.raises(InvalidConfigError, match="not valid YAML"):
        load_config(path)


def test_ppo_opponents_are_checked_before_any_work(tmp_path):
    """A missing, directory, damaged or pickled ``ppo:`` file fails
    validation (before the run folder or pretraining), wherever the config names it."""
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04 truncated")
    for path, message in (
        (tmp_path / "missing.zip", "not found"),
        (tmp_path, "not a file"),
        (junk, "not a readable zip"),
    ):
        for data in (
            {"opponents": {"weights": {"random": 1, f"ppo:{path}": 1}}},
            {"eval": {"opponents": ["random", f"ppo:{path}"]}},
            {"pretrain": {"opponents": {f"ppo:{path}": 1}}},
        ):
            with pytest.raises(InvalidConfigError, match=message):
                config_from_dict(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("plots: maybe\n", "eval.yaml: plots: must be true or false, got 'maybe'"),
        ("out: 5\n", "eval.yaml: out: must be a string, got 5"),
        ("out: ' '\n", "eval.yaml: out: must be a folder path"),
        ("games: 0\n", "eval.yaml: games: must be > 0, got 0"),
        ("colour: 1\n", "eval.yaml: unknown key 'colour'"),
        ("name: ../../x\n", "name: must be a plain folder name"),
        ("name: a/b\n", "plain folder name"),
    ],
)
def test_bad_evaluation_configs_raise_clear_errors(tmp_path, text, message):
    from perikles_env.evaluation.config import load_config as load_eval_config

    path = tmp_path / "eval.yaml"
    path.write_text(text + "matchups:\n  - agents: [random]\n    players: [3]\n")
    with pytest.raises(InvalidConfigError, match=message):
        load_eval_config(path)


def test_init_net_needs_the_networks_separate_trunks():
    """``make train`` starts from the expert-iteration network; another network fits its
    settings too, but not with a shared trunk (which no search network has)."""
    config = load_config(CONFIGS / "default.yaml")
    assert config.ppo.init_net == "expert-iteration" and config.pretrain.decisions == 0
    assert Path(config.ppo.init_net_path()).name == "expert_iteration_net.pkn"
    assert config.eval.baseline == "net:expert-iteration"
    start = [f"ppo.init_net={NET}"]
    config = load_config(CONFIGS / "default.yaml", start)
    assert config.ppo.init_net_path() == NET and config.ppo.net_arch == [128, 128]
    with pytest.raises(InvalidConfigError, match="no shared trunk"):
        load_config(CONFIGS / "default.yaml", [*start, "ppo.trunk=[128]", "ppo.net_arch=[128]"])
    shipped = load_config(CONFIGS / "net_tune.yaml").ppo  # `net`: the shipped network
    assert shipped.init_net == "net" and Path(shipped.init_net_path()) == Path(NET)
