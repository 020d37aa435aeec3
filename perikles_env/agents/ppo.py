"""A trained MaskablePPO policy (sb3-contrib) as an agent: ``ppo:<path to model.zip>``.

``act`` feeds the environment's observation and action mask to the policy; ``act_state``
first encodes the engine state for the player with the same observation encoder the
training wrapper uses (``perikles_env.analysis.encoding``), so the evaluator can play it
like any engine-level agent and the policy sees exactly what it saw in training. The model
is loaded once, on CPU, with torch limited to one thread (evaluation runs one process per
core).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .base import Agent, AgentError, legal_from_mask, mask_from_legal

if TYPE_CHECKING:
    from ..engine.game import Game

Encoder = Callable[["Game", int], Any]


def encoder_for(model: Any) -> Encoder:
    """The observation encoder the model was trained with, ``encode(game, player)``: the
    environment's, plus the optional feature blocks its input size implies (resolved in
    ``perikles_env.analysis.encoding``, the one the training wrapper uses)."""
    from ..analysis.encoding import encoder_for_size

    return encoder_for_size(int(model.observation_space.shape[0])).encode


class PPOAgent(Agent):
    name = "ppo"
    uses_state = True

    def __init__(
        self,
        path: str,
        deterministic: bool = True,
        encoder: Encoder | None = None,
        device: str = "cpu",
    ) -> None:
        if not isinstance(deterministic, bool):
            raise AgentError(f"ppo deterministic must be true or false, got {deterministic!r}")
        self.path = str(path)
        if not Path(self.path).exists() and not Path(self.path + ".zip").exists():
            raise AgentError(f"ppo checkpoint not found: {self.path}")
        self.deterministic = deterministic
        self._encoder = encoder
        self._device = device
        self._model: Any = None

    def describe(self) -> str:
        return f"ppo:{self.path}" + ("" if self.deterministic else ",deterministic=false")

    @property
    def model(self) -> Any:
        if self._model is None:
            import torch
            from sb3_contrib import MaskablePPO

            torch.set_num_threads(1)
            self._model = MaskablePPO.load(self.path, device=self._device)
        return self._model

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal_from_mask(action_mask)  # raises on an empty mask
        mask = np.asarray(action_mask, dtype=bool)
        if self.deterministic:
            action, _ = self.model.predict(observation, action_masks=mask, deterministic=True)
            choice = int(np.asarray(action).reshape(-1)[0])
        else:
            choice = self._sample(observation, mask, rng)
        if not mask[choice]:
            raise AgentError(f"ppo policy chose masked action {choice}")
        return choice

    def _sample(self, observation: Any, mask: np.ndarray, rng: np.random.Generator) -> int:
        """Sample from the masked policy with the caller's rng (reproducible for a seed)."""
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs.cpu().numpy().reshape(-1).astype(float)
        probs = np.where(mask, probs, 0.0)
        probs /= probs.sum()
        return int(rng.choice(probs.size, p=probs))

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        if self._encoder is None:
            self._encoder = encoder_for(self.model)
        observation = self._encoder(game, player)
        mask = mask_from_legal(game.legal_actions(), self.model.action_space.n)
        return self.act(observation, mask, rng)
