"""A trained MaskablePPO policy (sb3-contrib) as an agent: ``ppo:<path to model.zip>``;
``ppo`` alone plays ``SHIPPED_PPO``, a model of ``make train``'s recipe (how it was made:
its ``extra``, docs/benchmark.md), so the benchmark's pool and the games can seat it.

The file is read with ``ppo_file.py``: JSON settings and numpy arrays only, never a pickle,
so loading a model cannot run code (docs/safety.md). ``act`` feeds the environment's
observation and action mask to the policy; ``act_state`` first encodes the engine state for
the player with the encoder and feature blocks the model records it was trained with
(``perikles_env.analysis.encoding``), so the evaluator can play it like any engine-level
agent and the policy sees exactly what it saw in training. The file is checked when the
agent is made (a missing, damaged, pickled or other-layout file fails at once); the
network is built on first use, on CPU, with torch limited to one thread (evaluation runs
one process per core).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .base import Agent, AgentError, legal_from_mask, mask_from_legal
from .ppo_file import ModelFile, build_policy, check_layout, read_model

if TYPE_CHECKING:
    from ..engine.game import Game


SHIPPED_PPO = Path(__file__).with_name("recipe_model.zip")


class PPOAgent(Agent):
    name = "ppo"
    uses_state = True
    read_only = True

    def __init__(self, path: str, deterministic: bool = True, device: str = "cpu") -> None:
        if not isinstance(deterministic, bool):
            raise AgentError(f"ppo deterministic must be true or false, got {deterministic!r}")
        self.path = str(path)
        self.deterministic = deterministic
        self._file: ModelFile | None = read_model(self.path)
        self.features = check_layout(self._file)
        self._device = device
        self._policy: Any = None
        self._encode: Any = None

    def describe(self) -> str:
        return f"ppo:{self.path}" + ("" if self.deterministic else ",deterministic=false")

    @property
    def policy(self) -> Any:
        """The network (``MaskableActorCriticPolicy`` or a subclass), built on first use."""
        if self._policy is None:
            import torch

            torch.set_num_threads(1)
            assert self._file is not None
            self._policy = build_policy(self._file, self._device)
            self._file = None  # the arrays now live in the network
        return self._policy

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal_from_mask(action_mask)  # raises on an empty mask
        mask = np.asarray(action_mask, dtype=bool)
        if self.deterministic:  # the distribution's mode, as policy.predict(deterministic=True)
            choice = int(self._probs(observation, mask).argmax(dim=1)[0])
        else:
            probs = self._probs(observation, mask).numpy().reshape(-1).astype(float)
            probs = np.where(mask, probs, 0.0)
            probs /= probs.sum()
            choice = int(rng.choice(probs.size, p=probs))  # the caller's rng: reproducible
        if not mask[choice]:
            raise AgentError(f"ppo policy chose masked action {choice}")
        return choice

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One action per row (int32) from one forward pass over all rows: what a Python
        controller of the vector env answers for all the games waiting for this network.
        Sampled (``deterministic=false``) with one uniform draw of ``rng`` per row."""
        masks = np.asarray(masks, dtype=bool)
        if masks.ndim != 2 or not masks.any(axis=1).all():
            raise AgentError("act_batch needs one non-empty action mask per row")
        probs = self._probs(observations, masks).numpy().astype(float)
        probs = np.where(masks, probs, 0.0)
        if self.deterministic:
            choice = probs.argmax(axis=1)
        else:
            cumulative = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
            u = rng.random(len(probs))[:, None]
            choice = np.minimum((cumulative <= u).sum(axis=1), probs.shape[1] - 1)
            choice = np.where(masks[np.arange(len(choice)), choice], choice, probs.argmax(axis=1))
        return choice.astype(np.int32)

    def _probs(self, observations: Any, masks: np.ndarray) -> Any:
        """The masked policy's probabilities ``[rows, actions]`` for observations of this
        model's layout: the numbers of ``policy.get_distribution`` (``ppo_policy.masked_probs``)
        at a fraction of ``policy.predict``'s cost per call."""
        import torch

        from .ppo_policy import masked_probs

        policy = self.policy
        size = policy.observation_space.shape[0]
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32).reshape(-1, size))
        with torch.inference_mode():
            return masked_probs(policy, obs, torch.as_tensor(masks))

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        if self._encode is None:
            from ..vector.encoder import game_encoder

            self._encode = game_encoder(self.features).encode
        observation = self._encode(game, player)
        mask = mask_from_legal(game.legal_actions(), int(self.policy.action_space.n))
        return self.act(observation, mask, rng)
