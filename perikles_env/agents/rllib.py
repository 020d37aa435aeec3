"""A trained RLlib policy as an agent: ``rllib:<checkpoint folder>`` in the agent registry.

It reads only the checkpoint's ``policy.json`` and ``policy.pt`` (``rllib_policy.py``;
nothing is unpickled), builds the masking module on CPU with torch limited to one thread
(evaluation runs one process per core), and encodes the engine state for its player with
the encoder and feature blocks the policy records (``analysis.encoding``; the training env
uses the AEC env's observation, no extra blocks). ``deterministic=true`` (default) plays
the most likely legal action, ``false`` samples the masked policy with the caller's rng.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import NUM_ACTIONS
from .base import Agent, AgentError, legal_from_mask, mask_from_legal
from .rllib_policy import MASK_KEY, META_FILE, OBS_KEY

if TYPE_CHECKING:
    from ..engine.game import Game


class RLlibAgent(Agent):
    name = "rllib"
    uses_state = True
    read_only = True

    def __init__(self, path: str, deterministic: bool = True) -> None:
        if not isinstance(deterministic, bool):
            raise AgentError(f"rllib deterministic must be true or false, got {deterministic!r}")
        self.path = str(path)
        if not Path(self.path).is_dir():
            raise AgentError(f"rllib checkpoint folder not found: {self.path}")
        if not (Path(self.path) / META_FILE).is_file():
            raise AgentError(
                f"{self.path} holds no exported policy ({META_FILE}): not a "
                "checkpoint of perikles-train-rllib"
            )
        self.deterministic = deterministic
        self._module: Any = None
        self._encode: Any = None

    def describe(self) -> str:
        return f"rllib:{self.path}" + ("" if self.deterministic else ",deterministic=false")

    @property
    def module(self) -> Any:
        if self._module is None:
            import torch

            from ..vector.encoder import game_encoder
            from .rllib_policy import load_policy

            torch.set_num_threads(1)
            self._module, meta = load_policy(self.path)
            self._encode = game_encoder(meta["layout"]["features"]).encode
        return self._module

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked policy's action probabilities (zero on every illegal action)."""
        import torch

        mask = np.asarray(action_mask, dtype=np.float32)
        batch = {
            "obs": {
                OBS_KEY: torch.as_tensor(np.asarray(observation, dtype=np.float32)[None, :]),
                MASK_KEY: torch.as_tensor(mask[None, :]),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        logits = np.where(mask > 0, logits.astype(np.float64), -np.inf)
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal_from_mask(action_mask)  # raises on an empty mask
        if isinstance(observation, dict):  # the RLlib env's or the AEC env's observation
            observation = observation.get(OBS_KEY, observation.get("observation"))
        probs = self.probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(rng.choice(probs.size, p=probs))

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        _ = self.module  # the encoder is chosen when the policy loads
        mask = mask_from_legal(game.legal_actions(), NUM_ACTIONS)
        return self.act(self._encode(game, player), mask, rng)
