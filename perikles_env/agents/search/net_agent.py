"""The search network without search, as an agent (``net`` / ``net:<path>``): it plays the
legal action with the highest policy logit.

Why: the raw network is the baseline the search must improve on (win rate against
simulations per decision, 0 being this agent), and a cheap opponent in its own right. It
is deterministic (ties go to the lowest id), reads only the player's own observation
(``encode_with_features``: the C++ encoder on a ``NativeGame``) and loads the file with
``net_file.load_net`` (no pickle, no code). The network is loaded when the agent is made,
so a bad file fails at once; torch runs on one thread (evaluation runs one process per
core).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import Agent, AgentError
from .net_file import load_net
from .network import SearchNet

if TYPE_CHECKING:
    from ...engine.game import Game

SHIPPED_NET = Path(__file__).with_name("search_net.pkn")
#: the expert-iteration network before any PPO (4 players; 47 % against three heuristic
#: players): where ``make train``'s PPO starts, so that what PPO adds is measured
EXPERT_ITERATION_NET = Path(__file__).with_name("expert_iteration_net.pkn")
#: networks shipped with the package, by the name a spec may give instead of a path
NAMED_NETS = {"expert-iteration": EXPERT_ITERATION_NET}


def net_path(net: str | Path | None) -> Path:
    """A network's file: ``None``/``""`` the shipped one, a name of ``NAMED_NETS``, or a path."""
    if net in (None, ""):
        return SHIPPED_NET
    return NAMED_NETS.get(str(net), Path(net))


class NetAgent(Agent):
    name = "net"
    uses_state = True
    read_only = True

    def __init__(self, net: str | Path | SearchNet | None = None) -> None:
        import torch

        torch.set_num_threads(1)
        if isinstance(net, SearchNet):
            self.path, self.net = "", net.eval()
        else:
            if net in (None, "") and not SHIPPED_NET.is_file():
                raise AgentError(
                    "no search network is shipped with this install; name one: net:<path>"
                )
            self.path = str(net or "")
            self.net = load_net(net_path(net))
        self.features = self.net.features
        self._encode: Any = None

    @property
    def supported_players(self) -> tuple[int, ...]:  # type: ignore[override]
        """The counts the network plays (its file says which)."""
        return tuple(self.net.players)

    def describe(self) -> str:
        return f"net:{self.path}" if self.path else "net"

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """The best legal id of every row (int32), from one forward pass."""
        import torch

        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if obs.ndim != 2 or obs.shape[1] != self.net.obs_size:
            raise AgentError(f"observations must be [B, {self.net.obs_size}], got {obs.shape}")
        if masks.shape != (len(obs), self.net.action_net.out_features):
            raise AgentError(f"masks must be one action mask per row, got shape {masks.shape}")
        if not masks.any(axis=1).all():
            raise AgentError("act_batch needs one non-empty action mask per row")
        with torch.inference_mode():
            logits = self.net.policy_logits(torch.from_numpy(obs)).numpy()
        return np.where(masks, logits, -np.inf).argmax(axis=1).astype(np.int32)

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        obs = np.asarray(observation, dtype=np.float32).reshape(1, -1)
        mask = np.asarray(action_mask, dtype=bool).reshape(1, -1)
        return int(self.act_batch(obs, mask, rng)[0])

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        from ...vector.encoder import game_encoder, legal_mask

        if self._encode is None:
            self._encode = game_encoder(self.features).encode
        return self.act(self._encode(game, player), legal_mask(game), rng)
