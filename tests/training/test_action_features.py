"""Per-action features (perikles_env/analysis/action_features.py) and the action-scoring
policy that reads them (ActionScoringPolicy in perikles_env/agents/ppo_policy.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from perikles_env.agents import make_agent
from perikles_env.agents.heuristic.agent import score_actions
from perikles_env.agents.ppo_file import load_policy, save_model
from perikles_env.agents.ppo_policy import POLICIES, ActionScoringPolicy
from perikles_env.analysis import action_features as AF
from perikles_env.analysis import battle_features
from perikles_env.analysis.encoding import default_encoder, layout_signature
from perikles_env.analysis.observation import observation_size
from perikles_env.analysis.view import PlayerView
from perikles_env.engine import NUM_ACTIONS, Phase
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.queries import NEEDS_PERMISSION, placement_status
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import PeriklesSingleAgentEnv
from tests.agents.helpers import play
from tests.agents.hidden import perturb_hidden
from tests.engine.builders import game_at_commit, klass, put

# Phases whose heuristic scorer is exactly the election model's score after the action.
PURE_POLITICS = (
    Phase.SETUP_PLACE,
    Phase.ANY_CITY,
    Phase.CANDIDATE_TILE,
    Phase.PROPOSE,
    Phase.ASSASSIN_TILE,
)


def rows(game, player) -> np.ndarray:
    return AF.action_features(game, player).reshape(NUM_ACTIONS, AF.PER_ACTION)


def heuristic_best(game) -> set[int]:
    legal = game.legal_actions()
    scores = score_actions(make_agent("heuristic").params, PlayerView(game, game.current), legal)
    return {a for a, s in zip(legal, scores, strict=True) if s >= max(scores) - 1e-9}


def test_only_legal_actions_of_the_player_to_act_have_features() -> None:
    scored = set()
    for g, p, _ in play(["heuristic"] * 4, seed=11):
        f = rows(g, p)
        legal = g.legal_actions()
        illegal = np.ones(NUM_ACTIONS, dtype=bool)
        illegal[legal] = False
        assert not f[illegal].any()
        assert not rows(g, (p + 1) % 4).any()  # not his decision: nothing to score
        if f[:, AF.SCORED].any():
            scored.add(g.phase)
        assert (np.abs(f) <= 1).all()
    assert {Phase.SETUP_PLACE, Phase.INFLUENCE_PICK, Phase.PROPOSE, Phase.COMMIT} <= scored


def test_politics_column_ranks_like_the_heuristic_election_model() -> None:
    """Where the heuristic's score is the election model's score after the action, the
    action with the best ``politics`` feature is one of its best actions; tile picks too,
    whenever the heuristic takes a tile (not a special)."""
    checked = {}
    for seed in (1, 2):
        for g, p, _ in play(["heuristic"] * 4, seed=seed):
            legal = g.legal_actions()
            if len(legal) < 2:
                continue
            f = rows(g, p)
            best = heuristic_best(g)
            if g.phase in PURE_POLITICS:
                top = max(legal, key=lambda a: f[a, AF.POLITICS])
                # ties of the rounded float32 feature: any action with the top value
                tops = {a for a in legal if f[a, AF.POLITICS] == f[top, AF.POLITICS]}
                assert tops & best, (g.phase, tops, best)
            elif g.phase == Phase.INFLUENCE_PICK and all(
                A.TAKE_TILE <= a < A.PLAY_PERIKLES for a in best
            ):
                tiles = [a for a in legal if A.TAKE_TILE <= a < A.PLAY_PERIKLES]
                top = max(f[a, AF.POLITICS] for a in tiles)
                assert {a for a in tiles if f[a, AF.POLITICS] == top} & best
            else:
                continue
            checked[g.phase] = checked.get(g.phase, 0) + 1
    assert checked.get(Phase.INFLUENCE_PICK, 0) > 20 and checked.get(Phase.PROPOSE, 0) > 10


def test_commit_features_by_hand() -> None:
    """Player 0 leads Sparta and attacks Plataea (Athens, 4 VP, hoplites only) with one
    Spartan H1 against one militia hoplite (C.5, E25): another Spartan hoplite raises his
    odds, a stronger one at least as much, two at least as much as one; the cost is the
    counter's strength; END_STEP is scored with nothing at stake."""
    g = game_at_commit(n=4, leaders={"sparta": 0, "argos": 1}, locations=["plataea", "solygeia"])
    put(g, 0, A.ATTACK, 0, klass("sparta", "H", 1))
    g.main[0 * 2 + A.ATTACK] = 0
    assert g.current == 0 and g.phase == Phase.COMMIT
    f = rows(g, 0)
    places = [a for a in g.legal_actions() if A.decode(a)[0] == "PLACE"]
    attack_here = sorted(
        (a for a in places if A.decode(a)[2:] == (0, A.ATTACK)),
        key=lambda a: D.CLASS_STRENGTH[A.decode(a)[1]],
    )
    assert len(attack_here) >= 3
    gains = [f[a, AF.WAR] for a in attack_here]
    assert gains == sorted(gains) and gains[0] > 0
    for a in attack_here:
        _, k, _, _ = A.decode(a)
        assert f[a, AF.WAR_OWN] == pytest.approx(f[a, AF.WAR])  # nobody else has a stake
        assert f[a, AF.WAR_PAIR] >= f[a, AF.WAR]
        assert f[a, AF.COST] == pytest.approx(D.CLASS_STRENGTH[k] / 7)
        assert f[a, AF.COST_KEPT] == 0.0  # his last commit step: nothing is kept for later
    for a in places:
        _, k, slot, side = A.decode(a)
        status = placement_status(g, 0, D.CLASS_CITY[k], slot, side)
        assert f[a, AF.PERMISSION] == float(status == NEEDS_PERMISSION)
        assert f[a, AF.SCORED] == 1.0
    assert f[A.END_STEP, AF.SCORED] == 1.0 and not f[A.END_STEP, : AF.PERMISSION].any()


def test_cost_kept_grows_with_the_commit_steps_left() -> None:
    """B.7.5: a counter placed now cannot be used in a later step; with two steps left
    (three tiles held, one spent on this step) two thirds of its strength is kept value."""
    g = game_at_commit(
        n=4,
        leaders={"sparta": 0, "argos": 1},
        locations=["plataea", "solygeia"],
        tiles={0: (0, 3), 1: (0, 1), 2: (0, 1), 3: (0, 1)},
    )
    assert g.current == 0 and PlayerView(g, 0).steps_left(0) == 2
    f = rows(g, 0)
    places = [a for a in g.legal_actions() if A.decode(a)[0] == "PLACE"]
    assert places
    for a in places:
        strength = D.CLASS_STRENGTH[A.decode(a)[1]]
        assert f[a, AF.COST_KEPT] == pytest.approx(strength / 7 * 2 / 3)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_features_ignore_what_the_player_cannot_know(players) -> None:
    """docs/rules.md F: re-drawing every hidden component leaves the features unchanged."""
    compared = nonzero = 0
    for seed in range(2):
        for t, (g, p, _) in enumerate(play(["heuristic"] * players, seed)):
            if t % 3:
                continue
            f = AF.action_features(g, p)
            for s in range(2):
                assert np.array_equal(AF.action_features(perturb_hidden(g, p, seed=t + s), p), f)
            compared += 1
            nonzero += bool(f.any())
    assert compared > 100 and nonzero > 50


def test_env_and_encoder_append_the_block() -> None:
    env = PeriklesSingleAgentEnv(num_players=4, learner_seat=2, features=["battle", "actions"])
    obs, _ = env.reset(seed=5)
    assert obs.shape == (observation_size() + battle_features.SIZE + AF.SIZE,)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs[-AF.SIZE :], AF.action_features(env.game, 2))
    sig = layout_signature(["battle", "actions"])
    assert (
        sig["size"] == obs.size
        and sig["fingerprint"] != layout_signature(["battle"])["fingerprint"]
    )


def demo_batch(count: int = 120):
    encoder = default_encoder(["battle", "actions"])
    obs, masks = [], []
    for g, p, _ in play(["heuristic"] * 4, seed=7):
        obs.append(encoder.encode(g, p))
        m = np.zeros(NUM_ACTIONS, dtype=bool)
        m[g.legal_actions()] = True
        masks.append(m)
        if len(obs) == count:
            break
    return encoder, torch.as_tensor(np.stack(obs)), np.stack(masks)


def scoring_policy(encoder):
    torch.manual_seed(0)
    return ActionScoringPolicy(
        encoder.space,
        gym.spaces.Discrete(NUM_ACTIONS),
        lambda _: 1e-3,
        net_arch=[32, 32],
        activation_fn=torch.nn.ReLU,
    )


def test_scoring_policy_scores_only_scored_ids_exactly_like_the_dense_formula() -> None:
    encoder, obs, masks = demo_batch()
    policy = scoring_policy(encoder)
    with torch.no_grad():
        logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
        per_action = obs[:, -AF.SIZE :].reshape(len(obs), NUM_ACTIONS, AF.PER_ACTION)
        hidden = policy.action_context(latent)[:, None, :] + policy.action_embed(per_action)
        dense = (
            policy.action_net(latent)
            + policy.action_score(hidden).squeeze(-1)
            + policy.action_linear(per_action).squeeze(-1)
        )
        expected = torch.log_softmax(dense.masked_fill(~torch.as_tensor(masks), -1e8), dim=1)
    m = torch.as_tensor(masks)
    torch.testing.assert_close(logits[m], expected[m], atol=1e-4, rtol=1e-4)
    # the state network never reads the per-action block
    assert policy.features_extractor.features_dim == obs.shape[1] - AF.SIZE


def test_scoring_policy_starts_leaning_towards_the_politics_and_war_gains() -> None:
    encoder, obs, masks = demo_batch()
    policy = scoring_policy(encoder)
    weights = policy.action_linear.weight.detach()[0]
    assert weights[AF.POLITICS] == 7.0 and weights[AF.WAR] == 7.0
    assert float(weights.abs().sum()) == 14.0


def test_scoring_model_file_round_trip(tmp_path) -> None:
    """The class is on the allow-list; saved and loaded it plays the same, as ppo:<path>."""
    assert POLICIES["ActionScoringPolicy"] is ActionScoringPolicy
    encoder, obs, masks = demo_batch(40)
    policy = scoring_policy(encoder)
    path = save_model(tmp_path / "m.zip", policy, ["battle", "actions"], num_timesteps=0)
    loaded, model = load_policy(path)
    assert model.meta["policy"]["class"] == "ActionScoringPolicy"
    with torch.no_grad():
        a = policy.get_distribution(obs, action_masks=masks).distribution.probs
        b = loaded.get_distribution(obs, action_masks=masks).distribution.probs
    torch.testing.assert_close(a, b)
    agent = make_agent(f"ppo:{path}")
    for g, p, _ in play(["random"] * 4, seed=2):
        assert g.is_legal(agent.act_state(g.clone(), p, np.random.default_rng(0)))
        if g.turn > 1:
            break


def test_config_needs_the_actions_block_last() -> None:
    from perikles_env.training.ppo.config import load_config

    smoke = "configs/smoke.yaml"
    with pytest.raises(InvalidConfigError, match="end env.features with actions"):
        load_config(smoke, ["ppo.action_head=scoring", "env.features=[actions, battle]"])
    config = load_config(smoke, ["ppo.action_head=scoring", "env.features=[battle, actions]"])
    assert config.ppo.action_head == "scoring"
