"""The policy networks a ``ppo:<path>`` model may use, by name (the allow-list of
``ppo_file.py``): SB3's ``MaskableActorCriticPolicy`` (``ppo.action_head: flat``),
``BattleGainPolicy`` (``ppo.action_head: battle``, the default config's) and
``ActionScoringPolicy`` (``ppo.action_head: scoring``: per-action features).

They live with the agents, not the trainer, because playing a saved model needs them and
agents never import training code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.type_aliases import Schedule

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
MASKED_LOGIT = -1e8  # sb3-contrib's MaskableCategorical gives masked ids this logit


def battle_gain_columns() -> tuple[list[list[int]], list[int], list[int]]:
    """Per action id: the observation columns of the two battle ``gain`` features its
    placement matches (``gain_<side>_<type>_1`` and ``_2`` at its slot, in the battle
    block that ``env.features: [battle]`` appends), which of the 8 (side, type, n) weights
    it uses, and 1 for PLACE ids (0 for the others, whose columns are placeholders)."""
    from ..analysis.battle_features import FEATURES, PER_SLOT
    from ..analysis.observation import observation_size
    from ..engine import actions as A
    from ..engine import data as D

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


class BattleGainPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy plus, for every PLACE id, a learnt multiple of the battle
    block's value gains for that placement (its slot, side and counter type).

    Why: the battle features alone did not help a flat head (docs/training.md): turning
    "+0.3 VP at slot 4 if I attack with a hoplite" into the logits of the 56 class ids of
    that (slot, side) is a mapping the MLP must learn separately for each id. Here it is
    built in: ``logit[a] = head(latent)[a] + w[side, type] · 7 (gain_1, gain_2)[a]`` (the
    gains in VP), with every weight starting at 0.5: the policy starts leaning towards the
    placements the odds favour (about one logit per VP gained) and PPO learns how much to
    trust them. Needs ``env.features: [battle]`` (the columns it reads). Forward,
    evaluation and prediction all build the distribution in ``_masked_distribution``.
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
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _masked_distribution(
        self, pi_features: torch.Tensor, action_masks: object
    ) -> MaskableDistribution:
        logits = self._logits(pi_features)
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _logits(self, pi_features: torch.Tensor) -> torch.Tensor:
        latent_pi = self.mlp_extractor.forward_actor(pi_features)
        gains = pi_features[:, self.gain_columns] * self.GAIN_SCALE  # [batch, actions, 2]
        weights = self.gain_weights[self.gain_weight_index]  # [actions, 2]
        return self.action_net(latent_pi) + (gains * weights).sum(-1) * self.is_place

    def unmasked_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The logits ``get_distribution(obs)`` builds its distribution from."""
        return self._logits(
            super(MaskableActorCriticPolicy, self).extract_features(obs, self.pi_features_extractor)
        )

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


class StateColumns(BaseFeaturesExtractor):
    """The observation without its last ``drop`` columns (the per-action block), so the
    state network does not read its ~8,600 mostly-zero inputs."""

    def __init__(self, observation_space: gym.spaces.Box, drop: int) -> None:
        keep = int(observation_space.shape[0]) - drop
        if keep <= 0:
            raise ValueError(f"an observation of {keep + drop} values has no state part")
        super().__init__(observation_space, features_dim=keep)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations[:, : self.features_dim]


class TrunkMlpExtractor(torch.nn.Module):
    """SB3's ``MlpExtractor`` whose first layers (``trunk`` widths) are one network that the
    policy's and the value's own layers (``net_arch``) both read.

    Why: the state network's first layer reads ~1,700 inputs and is most of the arithmetic
    of a rollout's forward pass and of the update; shared, it is computed once per decision
    instead of twice (the design of most PPO implementations on large observations)."""

    def __init__(
        self, feature_dim: int, trunk: Sequence[int], net_arch: Any, activation_fn: Any
    ) -> None:
        super().__init__()

        def mlp(widths: Sequence[int], last: int) -> tuple[torch.nn.Sequential, int]:
            layers: list[torch.nn.Module] = []
            for width in widths:
                layers += [torch.nn.Linear(last, width), activation_fn()]
                last = width
            return torch.nn.Sequential(*layers), last

        pi, vf = (
            (net_arch.get("pi", []), net_arch.get("vf", []))
            if isinstance(net_arch, dict) else (net_arch, net_arch)
        )
        self.shared_net, shared = mlp(trunk, feature_dim)
        self.policy_net, self.latent_dim_pi = mlp(pi, shared)
        self.value_net, self.latent_dim_vf = mlp(vf, shared)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        shared = self.shared_net(features)
        return self.policy_net(shared), self.value_net(shared)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(self.shared_net(features))

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(self.shared_net(features))


class ActionScoringPolicy(MaskableActorCriticPolicy):
    """A pointer / afterstate-style policy: every action id's logit is the flat head's
    plus a score from one shared network applied to each action's own consequences.

    Why: the flat head must learn what each of the 957 ids is worth id by id; the per-action
    block (``env.features: [..., actions]``, ``analysis/action_features.py``) says what each
    legal action would change (election score, battle value, cost), so a shared scorer
    ``score(state, features[a])`` generalises across ids: a proposal, a tile or a placement
    that gains 2 VP scores alike wherever its id lies. ``logit[a] = head(latent)[a] +
    w · features[a] + mlp(context(latent) + embed(features[a]))``; ``w`` starts at one
    logit per VP of the ``politics`` and ``war`` columns (the policy starts leaning towards
    what the arithmetic favours) and everything is learnt. The state network reads the
    observation without the block (``StateColumns``), which must be the last feature block.
    ``trunk``: widths of first layers shared by the policy and the value
    (``TrunkMlpExtractor``); empty, they have separate networks (SB3's ``MlpExtractor``).
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        action_space: gym.spaces.Discrete,
        lr_schedule: Schedule,
        trunk: Sequence[int] = (),
        **kwargs: Any,
    ) -> None:
        from ..analysis.action_features import SIZE

        self.trunk = [int(w) for w in trunk]  # read by _build_mlp_extractor
        kwargs.setdefault("features_extractor_class", StateColumns)
        kwargs.setdefault("features_extractor_kwargs", {"drop": SIZE})
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if not self.trunk:
            super()._build_mlp_extractor()
            return
        self.mlp_extractor = TrunkMlpExtractor(
            self.features_dim, self.trunk, self.net_arch, self.activation_fn
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "trunk": self.trunk}

    def _build(self, lr_schedule: Schedule) -> None:
        from .action_scoring import add_action_heads

        super()._build(lr_schedule)
        add_action_heads(self, self.mlp_extractor.latent_dim_pi, self.activation_fn)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _masked_distribution(
        self, obs: torch.Tensor, latent_pi: torch.Tensor, action_masks: object
    ) -> MaskableDistribution:
        from .action_scoring import action_logits

        logits = action_logits(self, obs, latent_pi)
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        obs = obs.float()
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = self.mlp_extractor.forward_actor(pi_features)
            latent_vf = self.mlp_extractor.forward_critic(vf_features)
        return obs, latent_pi, latent_vf

    def forward(self, obs, deterministic=False, action_masks=None):  # type: ignore[no-untyped-def]
        obs, latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        distribution = self._masked_distribution(obs, latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        return actions, values, distribution.log_prob(actions)

    def evaluate_actions(self, obs, actions, action_masks=None):  # type: ignore[no-untyped-def]
        obs, latent_pi, latent_vf = self._latents(obs)
        distribution = self._masked_distribution(obs, latent_pi, action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):  # type: ignore[no-untyped-def]
        obs = obs.float()
        return self._masked_distribution(obs, self._actor_latent(obs), action_masks)

    def _actor_latent(self, obs: torch.Tensor) -> torch.Tensor:
        features = super(MaskableActorCriticPolicy, self).extract_features(
            obs, self.pi_features_extractor
        )
        return self.mlp_extractor.forward_actor(features)

    def unmasked_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The logits ``get_distribution(obs)`` builds its distribution from."""
        from .action_scoring import action_logits

        obs = obs.float()
        return action_logits(self, obs, self._actor_latent(obs))


def masked_probs(policy: MaskableActorCriticPolicy, obs: torch.Tensor, masks: torch.Tensor):
    """``policy.get_distribution(obs, masks).distribution.probs``, the same numbers, without
    building the distribution objects (sb3-contrib builds a ``Categorical`` three times and
    validates it: a third of a decision's time when an agent plays one game at a time).
    The steps are ``MaskableCategorical``'s: the logits normalised by their log-sum-exp (the
    unmasked ``Categorical``), masked ids at -1e8, normalised again, then softmax."""
    if hasattr(policy, "unmasked_logits"):
        logits = policy.unmasked_logits(obs)
    else:  # sb3-contrib's own MaskableActorCriticPolicy (ppo.action_head: flat)
        features = super(MaskableActorCriticPolicy, policy).extract_features(
            obs.float(), policy.pi_features_extractor
        )
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # the unmasked Categorical's
    masked = torch.where(masks.reshape(logits.shape), logits, MASKED_LOGIT)
    return torch.softmax(masked - masked.logsumexp(dim=-1, keepdim=True), dim=-1)


# The allow-list: the only classes a model file may name.
POLICIES: dict[str, type[MaskableActorCriticPolicy]] = {
    "MaskableActorCriticPolicy": MaskableActorCriticPolicy,
    "BattleGainPolicy": BattleGainPolicy,
    "ActionScoringPolicy": ActionScoringPolicy,
}
