"""A features extractor that shares the first layer(s) between the policy and the value
network (``ppo.shared_layers``).

Why: the observation has ~1,600 features, so the first layer dominates the cost of PPO's
update on a small CPU; SB3's ``MlpPolicy`` gives the policy and the value network each
their own copy of it. Sharing it halves that cost. Saved models refer to this class,
so ``perikles_env.training.policy`` must be importable where a model is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.type_aliases import Schedule

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


class SharedMlp(BaseFeaturesExtractor):
    def __init__(
        self, observation_space: gym.spaces.Box, widths: list[int], activation: str = "tanh"
    ) -> None:
        super().__init__(observation_space, features_dim=widths[-1])
        layers: list[torch.nn.Module] = []
        size = int(observation_space.shape[0])
        for width in widths:
            layers += [torch.nn.Linear(size, width), ACTIVATIONS[activation]()]
            size = width
        self.net = torch.nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


# ---- fixed observation normalisation (``ppo.obs_norm``) ----------------------------------


def observation_statistics(
    players: Sequence[int],
    decisions: int = 20_000,
    seed: int = 0,
    features: Sequence[str] = (),
) -> tuple[list[float], list[float]]:
    """Per-feature mean and standard deviation of the observations of the acting player in
    uniformly random games (``players`` drawn in turn), ``decisions`` observations in all.

    Why random play: it needs no policy, takes seconds, and the statistics only have to put
    the features on a common scale; they are fixed before training and saved in the model.
    """
    import numpy as np

    from perikles_env.analysis.encoding import default_encoder
    from perikles_env.engine import Game, GameConfig

    rng = np.random.default_rng(seed)
    encode = default_encoder(features).encode
    rows = []
    game_index = 0
    while len(rows) < decisions:
        n = players[game_index % len(players)]
        game = Game.new(GameConfig(num_players=n), seed=int(rng.integers(2**31)))
        game_index += 1
        while not game.is_terminal and len(rows) < decisions:
            rows.append(encode(game, game.current))
            legal = game.legal_actions()
            game.apply_action(legal[int(rng.integers(len(legal)))])
    table = np.stack(rows).astype(np.float64)
    return table.mean(axis=0).tolist(), table.std(axis=0).tolist()


class NormalizedObs(BaseFeaturesExtractor):
    """``clip((obs - mean) / max(std, min_std), -clip, clip)`` with fixed statistics.

    Why: the observation mixes one-hot flags that are almost always 0 with counts scaled by
    hand; standardising them is the usual PPO practice (SB3's ``VecNormalize``). Fixed
    statistics kept as buffers travel inside ``model.zip``, so a saved model plays as
    ``ppo:<path>`` without a separate normalisation file."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        mean: list[float],
        std: list[float],
        min_std: float = 0.1,
        clip: float = 5.0,
    ) -> None:
        super().__init__(observation_space, features_dim=int(observation_space.shape[0]))
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        scale = torch.tensor(std, dtype=torch.float32).clamp(min=min_std)
        self.register_buffer("inv_scale", 1.0 / scale)
        self.clip = clip

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        z = (observations - self.mean) * self.inv_scale
        return z.clamp(-self.clip, self.clip)


# ---- factored action head (``ppo.action_head: factored``) --------------------------------


def action_factors() -> dict[str, list[int]]:
    """For each factor group, the group index of every action id (-1: not in the group).

    Why: the flat head gives each of the 957 ids its own output weights, so learning that
    "attacking at slot 3 pays" must be learnt separately for each of the 56 counter
    classes, from the few times each id is sampled. The groups add logit terms shared by
    the ids that have an argument in common (docs/actions.md): a PLACE logit also gets a
    term for its (slot, side), (city, slot, side), (type, slot, side) and counter class;
    PROPOSE, ALKIBIADES_CUBE and ASSASSINATE get a term per city and per seat/target.
    """
    from perikles_env.engine import actions as A
    from perikles_env.engine import data as D

    slots = D.LOCATION_SLOTS
    groups: dict[str, list[int]] = {}

    def put(group: str, action: int, index: int) -> None:
        groups.setdefault(group, [-1] * A.NUM_ACTIONS)[action] = index

    for action in range(A.NUM_ACTIONS):
        kind, a1, a2, a3 = A.decode(action)
        if kind == "PLACE":
            city, unit = divmod(a1 // 4, 2)
            put("place_slot_side", action, a2 * 2 + a3)
            put("place_city_slot_side", action, (city * slots + a2) * 2 + a3)
            put("place_type_slot_side", action, (unit * slots + a2) * 2 + a3)
            put("place_class", action, a1)
        elif kind in ("PROPOSE", "ALKIBIADES_CUBE", "ASSASSINATE"):
            put(f"{kind.lower()}_city", action, a1)
            put(f"{kind.lower()}_target", action, a2)
    return groups


class FactoredActionHead(torch.nn.Module):
    """Logits = a per-id linear term (SB3's head) + the shared factor terms above."""

    def __init__(self, latent_dim: int) -> None:
        super().__init__()
        groups = action_factors()
        n_actions = len(next(iter(groups.values())))
        self.per_id = torch.nn.Linear(latent_dim, n_actions)
        columns: list[list[int]] = [[] for _ in range(n_actions)]
        total = 0
        for indices in groups.values():
            for action, index in enumerate(indices):
                if index >= 0:
                    columns[action].append(total + index)
            total += max(indices) + 1
        self.shared = torch.nn.Linear(latent_dim, total)
        width = max(len(c) for c in columns)
        padded = [c + [total] * (width - len(c)) for c in columns]  # `total`: a zero column
        self.register_buffer("columns", torch.tensor(padded, dtype=torch.long).flatten())
        self.n_actions, self.width = n_actions, width
        for layer in (self.per_id, self.shared):  # SB3's init for the action head
            torch.nn.init.orthogonal_(layer.weight, gain=0.01)
            torch.nn.init.zeros_(layer.bias)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        shared = self.shared(latent)
        shared = torch.nn.functional.pad(shared, (0, 1))
        terms = shared.index_select(1, self.columns).view(-1, self.n_actions, self.width)
        return self.per_id(latent) + terms.sum(-1)


class FactoredMaskablePolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy with the factored action head."""

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = FactoredActionHead(self.mlp_extractor.latent_dim_pi)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


# ---- the legal-action mask as an actor input (``ppo.mask_input``) ---------------------------


class _ObservationHeadPolicy(MaskableActorCriticPolicy):
    """Base of the policies whose action distribution reads more than the actor's latent
    (the mask, or observation features): subclasses build it in ``_masked_distribution``
    from the actor's input features; forward, evaluation and prediction all go through it.
    """

    def _masked_distribution(
        self, pi_features: torch.Tensor, action_masks: object
    ) -> MaskableDistribution:
        raise NotImplementedError

    def _split_features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return features, features
        return features

    def forward(self, obs, deterministic=False, action_masks=None):  # type: ignore[no-untyped-def]
        pi_features, vf_features = self._split_features(obs)
        values = self.value_net(self.mlp_extractor.forward_critic(vf_features))
        distribution = self._masked_distribution(pi_features, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions, values, log_prob

    def evaluate_actions(self, obs, actions, action_masks=None):  # type: ignore[no-untyped-def]
        pi_features, vf_features = self._split_features(obs)
        distribution = self._masked_distribution(pi_features, action_masks)
        values = self.value_net(self.mlp_extractor.forward_critic(vf_features))
        return values, distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):  # type: ignore[no-untyped-def]
        features = super(MaskableActorCriticPolicy, self).extract_features(
            obs, self.pi_features_extractor
        )
        return self._masked_distribution(features, action_masks)

    def _rebuild_optimizer(self, lr_schedule: Schedule) -> None:
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


class MaskInputPolicy(_ObservationHeadPolicy):
    """MaskablePPO's MLP policy whose actor also reads the legal-action mask.

    Why: the mask only removes illegal ids from the softmax; the network itself never sees
    which placements the war and alliance rules (RULES.md B.7.6–B.7.8) leave open, and has
    to rebuild that from the board. Here the actor's first layer takes the observation
    features and the mask (as 0/1). The critic is unchanged (values come without a mask).
    The mask is no hidden information: it is the acting player's own legal actions.
    """

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        n_actions = int(self.action_space.n)
        first = next(m for m in self.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear))
        widened = torch.nn.Linear(first.in_features + n_actions, first.out_features)
        if self.ortho_init:
            torch.nn.init.orthogonal_(widened.weight, gain=2**0.5)
            torch.nn.init.zeros_(widened.bias)
        layers = list(self.mlp_extractor.policy_net)
        layers[layers.index(first)] = widened
        self.mlp_extractor.policy_net = torch.nn.Sequential(*layers)
        self._rebuild_optimizer(lr_schedule)

    def _masked_distribution(
        self, pi_features: torch.Tensor, action_masks: object
    ) -> MaskableDistribution:
        """The action distribution from features + mask (all ones when no mask is given)."""
        n = int(self.action_space.n)
        if action_masks is None:
            mask = torch.ones((pi_features.shape[0], n), dtype=pi_features.dtype)
        else:
            mask = torch.as_tensor(action_masks, dtype=pi_features.dtype).reshape(-1, n)
        latent_pi = self.mlp_extractor.forward_actor(torch.cat((pi_features, mask), dim=1))
        distribution = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution


# ---- battle-gain logit terms (``ppo.action_head: battle``) ---------------------------------


def battle_gain_columns() -> tuple[list[list[int]], list[int], list[int]]:
    """Per action id: the observation columns of the two battle ``gain`` features its
    placement matches (``gain_<side>_<type>_1`` and ``_2`` at its slot, in the battle
    block that ``env.features: [battle]`` appends), which of the 8 (side, type, n) weights
    it uses, and 1 for PLACE ids (0 for the others, whose columns are placeholders)."""
    from perikles_env.analysis.battle_features import FEATURES, PER_SLOT
    from perikles_env.analysis.observation import observation_size
    from perikles_env.engine import actions as A
    from perikles_env.engine import data as D

    base = observation_size()
    side_names, type_names = ("att", "def"), ("H", "T")
    columns, weights, is_place = [], [], []
    for action in range(A.NUM_ACTIONS):
        kind, klass, slot, side = A.decode(action)
        if kind != "PLACE":
            columns.append([0, 0])
            weights.append(0)
            is_place.append(0)
            continue
        t = D.CLASS_TYPE[klass]
        names = [f"gain_{side_names[side]}_{type_names[t]}_{n}" for n in (1, 2)]
        columns.append([base + slot * PER_SLOT + FEATURES.index(name) for name in names])
        weights.append(side * 2 + t)
        is_place.append(1)
    return columns, weights, is_place


class BattleGainPolicy(_ObservationHeadPolicy):
    """MaskablePPO's MLP policy plus, for every PLACE id, a learnt multiple of the battle
    block's value gains for that placement (its slot, side and counter type).

    Why: the battle features alone did not help a flat head (docs/training.md): turning
    "+0.3 VP at slot 4 if I attack with a hoplite" into the logits of the 56 class ids of
    that (slot, side) is a mapping the MLP must learn separately for each id. Here it is
    built in: ``logit[a] = head(latent)[a] + w[side, type] · 7 (gain_1, gain_2)[a]`` (the
    gains in VP), with every weight starting at 0.5: the policy starts leaning towards the
    placements the odds favour (about one logit per VP gained) and PPO learns how much to
    trust them. Needs ``env.features: [battle]`` (the columns it reads).
    """

    GAIN_SCALE = 7.0  # the battle block's gains are VP / 7
    GAIN_INIT = 0.5

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        columns, weights, is_place = battle_gain_columns()
        self.register_buffer("gain_columns", torch.tensor(columns, dtype=torch.long))
        self.register_buffer("gain_weight_index", torch.tensor(weights, dtype=torch.long))
        self.register_buffer("is_place", torch.tensor(is_place, dtype=torch.float32))
        self.gain_weights = torch.nn.Parameter(torch.full((4, 2), self.GAIN_INIT))
        self._rebuild_optimizer(lr_schedule)

    def _masked_distribution(
        self, pi_features: torch.Tensor, action_masks: object
    ) -> MaskableDistribution:
        latent_pi = self.mlp_extractor.forward_actor(pi_features)
        gains = pi_features[:, self.gain_columns] * self.GAIN_SCALE  # [batch, actions, 2]
        weights = self.gain_weights[self.gain_weight_index]  # [actions, 2]
        logits = self.action_net(latent_pi) + (gains * weights).sum(-1) * self.is_place
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution
