"""``ppo:<path>``: a model file plays legal, reproducible games; loading never runs code
from the file and refuses a model made for another observation
layout."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from perikles_env.agents import AgentError, make_agent
from tests.agents.helpers import play

sb3_contrib = pytest.importorskip("sb3_contrib")
single_agent = pytest.importorskip("perikles_env.single_agent")
ppo_file = pytest.importorskip("perikles_env.agents.ppo_file")


def train_tiny(path: Path, features: tuple[str, ...] = ()) -> Path:
    """A MaskablePPO trained for a handful of steps on the single-agent env, saved in the
    project's model format."""
    env = single_agent.PeriklesSingleAgentEnv(num_players=3, opponents="random", features=features)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )
    model.learn(total_timesteps=32)
    ppo_file.save_model(path, model.policy, features, model.num_timesteps)
    return path


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("ppo") / "tiny.zip")


def test_ppo_agent_feeds_the_feature_blocks_it_was_trained_with(tmp_path: Path) -> None:
    """A model trained with ``features=["battle"]`` records them; as ``ppo:<path>`` it
    gets the battle block appended to its observation."""
    from perikles_env.analysis.encoding import default_encoder

    path = train_tiny(tmp_path / "battle.zip", features=("battle",))
    agent = make_agent(f"ppo:{path}")
    assert agent.features == ["battle"]
    moves = [(g.clone(), x) for g, p, x in play([f"ppo:{path}", "random", "random"], 5) if p == 0]
    assert len(moves) > 20
    encode = default_encoder(["battle"]).encode
    for g, chosen in moves[:: max(1, len(moves) // 8)]:
        obs = encode(g, 0)
        mask = np.zeros(agent.policy.action_space.n, dtype=bool)
        mask[g.legal_actions()] = True
        assert agent.act(obs, mask, np.random.default_rng(0)) == chosen


@pytest.mark.parametrize("deterministic", [True, False])
def test_ppo_agent_plays_legal_reproducible_games(tiny_model: Path, deterministic: bool) -> None:
    spec = f"ppo:{tiny_model}" + ("" if deterministic else ",deterministic=false")
    a = [x for _, p, x in play([spec, "random", "random"], seed=3) if p == 0]
    b = [x for _, p, x in play([spec, "random", "random"], seed=3) if p == 0]
    assert a == b and len(a) > 20


def test_saved_file_restores_the_exact_network(tmp_path: Path) -> None:
    """Weights read back equal the trained ones; same observation, same action logits."""
    import torch

    env = single_agent.PeriklesSingleAgentEnv(num_players=4, opponents="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=32,
        seed=1,
        policy_kwargs={"net_arch": [24, 8]},
        device="cpu",
    )
    model.learn(total_timesteps=32)
    path = ppo_file.save_model(tmp_path / "m.zip", model.policy, (), model.num_timesteps)
    policy, loaded = ppo_file.load_policy(path)
    assert loaded.meta["num_timesteps"] == 32
    assert loaded.meta["policy"] == {
        "class": "MaskableActorCriticPolicy",
        "net_arch": [24, 8],
        "activation": "tanh",
    }
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(policy.state_dict()[name], tensor), name
    obs, _ = env.reset(seed=2)
    with torch.no_grad():
        a = model.policy.get_distribution(torch.as_tensor(obs[None])).distribution.logits
        b = policy.get_distribution(torch.as_tensor(obs[None])).distribution.logits
    assert torch.equal(a, b)


def test_ppo_agent_act_respects_the_mask(tiny_model: Path) -> None:
    agent = make_agent(f"ppo:{tiny_model},deterministic=false")
    env = single_agent.PeriklesSingleAgentEnv(num_players=3, opponents="random")
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    rng = np.random.default_rng(0)
    picks = {agent.act(obs, mask, rng) for _ in range(30)}
    assert all(mask[a] for a in picks)


def test_missing_directory_and_damaged_files_fail_when_the_agent_is_made(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="not found"):
        make_agent(f"ppo:{tmp_path / 'nope.zip'}")
    with pytest.raises(AgentError, match="not a file"):
        make_agent(f"ppo:{tmp_path}")
    (tmp_path / "junk.zip").write_bytes(b"not a zip at all")
    with pytest.raises(AgentError, match="not a readable zip"):
        make_agent(f"ppo:{tmp_path / 'junk.zip'}")


def test_truncated_model_file_is_refused(tiny_model: Path, tmp_path: Path) -> None:
    data = tiny_model.read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ppo_file.ModelFileError, match="damaged|readable"):
        make_agent(f"ppo:{cut}")


def test_random_damage_is_always_a_model_file_error(tiny_model: Path, tmp_path: Path) -> None:
    """Flipped bytes anywhere in the file: the agent is refused with ``ModelFileError`` (the
    zip's checksums catch damaged data), never another exception or a wrong network."""
    data = bytearray(tiny_model.read_bytes())
    rng = np.random.default_rng(0)
    for trial in range(40):
        damaged = bytearray(data)
        for position in rng.integers(0, len(data), size=1 + trial % 3):
            damaged[int(position)] ^= 0xFF
        path = tmp_path / f"damaged{trial}.zip"
        path.write_bytes(bytes(damaged))
        try:
            agent = make_agent(f"ppo:{path}")
            agent.policy  # noqa: B018
        except ppo_file.ModelFileError:
            continue
        # the damage hit bytes no reader relies on (e.g. a timestamp): same network
        same = make_agent(f"ppo:{tiny_model}").policy.state_dict()
        for name, tensor in agent.policy.state_dict().items():
            assert (tensor == same[name]).all(), name


# ---- crafted files: nothing in a model file may run code -----------------------------------


class _Payload:
    """Unpickling this creates ``marker``: the proof that a loader ran code from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):  # noqa: ANN204
        return (open, (self.marker, "w"))


def _sb3_zip(path: Path, marker: Path) -> Path:
    """An SB3-style model zip whose ``data`` entry holds a pickled payload (as SB3 stores
    ``policy_class`` and schedules)."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'type'>", ":serialized:": blob}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("_stable_baselines3_version", "2.3.0")
    return path


def test_crafted_sb3_zip_runs_its_payload_under_sb3_but_never_here(tmp_path: Path) -> None:
    from stable_baselines3.common.save_util import load_from_zip_file

    control, marker = tmp_path / "control", tmp_path / "pwned"
    load_from_zip_file(_sb3_zip(tmp_path / "control.zip", control))
    assert control.exists()  # the payload is live: SB3's own loader runs it

    path = _sb3_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(ppo_file.ModelFileError, match="pickles"):
        make_agent(f"ppo:{path}")
    with pytest.raises(ppo_file.ModelFileError):
        ppo_file.read_model(path)
    assert not marker.exists()


def test_crafted_arrays_and_policy_names_are_refused(tiny_model: Path, tmp_path: Path) -> None:
    """A pickled object array inside ``policy.npz`` is never unpickled, and a policy class
    outside the allow-list is never looked up."""
    marker = tmp_path / "pwned"
    with zipfile.ZipFile(tiny_model) as z:
        meta = json.loads(z.read(ppo_file.META))
    payload = np.empty(1, dtype=object)
    payload[0] = _Payload(marker)
    evil_npz = tmp_path / "evil.npz"
    np.savez(evil_npz, **{"action_net.weight": payload})
    evil = tmp_path / "evil_arrays.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr(ppo_file.META, json.dumps(meta))
        z.writestr(ppo_file.POLICY, evil_npz.read_bytes())
    with pytest.raises(ppo_file.ModelFileError, match="pickled"):
        make_agent(f"ppo:{evil}")
    assert not marker.exists()

    renamed = tmp_path / "renamed.zip"
    meta["policy"]["class"] = "os.system"
    with zipfile.ZipFile(tiny_model) as src, zipfile.ZipFile(renamed, "w") as z:
        z.writestr(ppo_file.META, json.dumps(meta))
        z.writestr(ppo_file.POLICY, src.read(ppo_file.POLICY))
    agent = make_agent(f"ppo:{renamed}")  # reading is safe; building refuses the name
    with pytest.raises(ppo_file.ModelFileError, match="not allowed"):
        agent.policy  # noqa: B018


def test_model_for_another_observation_layout_fails_clearly(
    tiny_model: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(tiny_model) as z:
        meta = json.loads(z.read(ppo_file.META))
        weights = z.read(ppo_file.POLICY)
    for change, message in (
        ({"version": 0}, "layout v0"),
        ({"fingerprint": "0" * 64}, "fingerprint 000000000000"),
        ({"features": ["odds"]}, "unknown feature block"),
    ):
        path = tmp_path / "other.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(
                ppo_file.META,
                json.dumps({**meta, "observation": {**meta["observation"], **change}}),
            )
            z.writestr(ppo_file.POLICY, weights)
        with pytest.raises(ppo_file.ModelFileError, match=message):
            make_agent(f"ppo:{path}")


def test_evaluator_reloads_a_rewritten_checkpoint(tiny_model: Path, tmp_path: Path) -> None:
    """Periodic evaluation saves each new model at the same path: the evaluator's agent
    cache must not keep playing the old one."""
    import os
    import shutil

    from perikles_env.evaluation.runner import agent_for, forget_agent

    path = tmp_path / "model.zip"
    shutil.copy(tiny_model, path)
    spec = f"ppo:{path}"
    first = agent_for(spec)
    assert agent_for(spec) is first
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + 10))
    assert agent_for(spec) is not first
    forget_agent(spec)


def test_ppo_agent_reads_the_live_game_alike_on_both_engines(tmp_path: Path) -> None:
    """``ppo:<path>`` only reads the game (``read_only``: the env hands it the live game),
    and its observation of a ``NativeGame`` (written in C++) gives it the same decisions
    as on the Python engine."""
    from perikles_env.engine import GameConfig, new_game
    from perikles_env.engine.backend import native_available

    path = train_tiny(tmp_path / "battle.zip", features=("battle",))
    backends = ["python", "native"] if native_available() else ["python"]
    decisions = {}
    for backend in backends:
        agent = make_agent(f"ppo:{path},deterministic=false")
        assert agent.read_only
        game = new_game(GameConfig(num_players=3), seed=7, backend=backend)
        rng = np.random.default_rng(7)
        chosen = []
        while not game.is_terminal:
            before = game.clone().to_dict()
            action = agent.act_state(game, game.current, rng)
            assert game.clone().to_dict() == before
            chosen.append(action)
            game.apply_action(action)
        decisions[backend] = chosen
    assert len(decisions["python"]) > 100
    assert all(d == decisions["python"] for d in decisions.values())


def test_act_batch_answers_every_row_within_its_mask(tiny_model: Path) -> None:
    """One forward pass for many games (the vector env's Python controllers): the
    deterministic batch equals ``act`` row by row; sampled picks stay legal and follow
    the policy; a row without a legal action is refused."""
    env = single_agent.PeriklesSingleAgentEnv(num_players=3, opponents="random")
    rows, masks = [], []
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        rows.append(obs)
        masks.append(env.action_masks())
    obs, mask = np.stack(rows), np.stack(masks)
    greedy = make_agent(f"ppo:{tiny_model}")
    batch = greedy.act_batch(obs, mask, np.random.default_rng(0))
    assert batch.dtype == np.int32 and batch.shape == (6,)
    rng = np.random.default_rng(0)
    assert batch.tolist() == [greedy.act(o, m, rng) for o, m in zip(obs, mask, strict=True)]
    sampled = make_agent(f"ppo:{tiny_model},deterministic=false")
    picks = np.stack([sampled.act_batch(obs, mask, np.random.default_rng(i)) for i in range(40)])
    assert all(mask[r, a] for row in picks for r, a in enumerate(row))
    assert len({tuple(p) for p in picks}) > 1  # it samples
    empty = mask.copy()
    empty[2] = False
    with pytest.raises(AgentError, match="non-empty action mask"):
        sampled.act_batch(obs, empty, rng)


def test_ppo_alone_plays_the_shipped_recipe_model(monkeypatch, tmp_path: Path) -> None:
    from perikles_env.agents import ppo

    agent = make_agent("ppo")
    assert agent.path == str(ppo.SHIPPED_PPO) and agent.supported_players == (3, 4, 5)
    recipe = ppo_file.read_model(ppo.SHIPPED_PPO).extra["recipe"]
    assert recipe["command"].startswith("make train") and recipe["learner_steps"] > 1_000_000
    for players in (3, 5):
        decisions = list(play(["ppo"] + ["heuristic"] * (players - 1), seed=players))
        game, _, _ = decisions[-1]
        assert len({p for _, p, _ in decisions}) == players and len(decisions) > 100
    monkeypatch.setattr(ppo, "SHIPPED_PPO", tmp_path / "absent.zip")
    with pytest.raises(AgentError, match="no make train model is shipped"):
        make_agent("ppo")
