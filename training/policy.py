"""A features extractor that shares the first layer(s) between the policy and the value
network (``ppo.shared_layers``).

Why: the observation has ~1,600 features, so the first layer dominates the cost of PPO's
update on a small CPU; SB3's ``MlpPolicy`` gives the policy and the value network each
their own copy of it. Sharing it halves that cost. Saved models refer to this class, so
``training.policy`` must be importable where a model is loaded (it is, with the package).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

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
