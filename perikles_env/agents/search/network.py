"""The policy/value network that guides the search (``Evaluator`` of the search package).

From one player's own observation (``encode_with_features(game, player, features)``, the
per-action block last) it gives

* **policy logits** over the action ids: the architecture of ``ActionScoringPolicy`` (a
  state MLP over the observation without the per-action block, a flat head plus the shared
  per-action scoring head, ``agents/action_scoring.py``), so a trained ``make train``
  model can be copied in unchanged (``training/search_warmstart.py``);
* **values**: every seat's predicted final win share, a softmax over ``num_players``
  outputs (they sum to 1: Perikles is general-sum with ties split, not a two-player zero-sum
  game, so one scalar cannot back up every seat's interest). Seats are in the
  observation's relative order: ``values[b, k]`` is seat ``(p + k) % n``, ``p`` the
  observer of row ``b`` and ``n`` its game's player count (``relative_shares`` turns a
  game's shares into that order).

One network plays every count in ``players`` (``NetSettings``): the observation has the
same layout at 3, 4 and 5 players (it says the count), and the value head has one output
per seat of the largest table, ``num_players = max(players)``; a row's outputs past its own
table's size are masked out of the softmax (their share is exactly 0).

The value has its own state MLP (as PPO's critic): fitting or training the value never
moves the policy's weights through a shared trunk, so a warm-started net plays exactly as
its PPO model until the policy itself is trained.

``loss`` is cross-entropy for both heads. Policy: against a target distribution over the
legal actions (visit counts, or a teacher's best set). Value: against the final win
shares, which are a distribution over seats (1 for a lone winner, 1/k each for k tied
winners); the log loss is the proper scoring rule for a categorical forecast and, unlike
the squared error of a softmax, its gradient does not vanish when a prediction is
confidently wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch

from ...analysis.action_features import SIZE as ACTION_BLOCK
from ...analysis.encoding import check_features, layout_signature
from ...analysis.observation import OFFSETS
from ...engine import NUM_ACTIONS
from ...engine import data as D
from ...errors import InvalidConfigError
from ..action_scoring import action_logits, add_action_heads
from .evaluator import players_of

ACTIVATIONS = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}
MASKED = -1e9  # the logit of an illegal action: finite, so 0 * log p stays 0 in the loss
MAX_WIDTH = 1024  # no layer wider, no more layers: a file cannot ask for gigabytes
MAX_LAYERS = 4


@dataclass(frozen=True)
class NetSettings:
    """What builds a ``SearchNet`` (and what its file records)."""

    num_players: int = 4  # the value head's outputs: the seats of the largest table
    features: tuple[str, ...] = ("battle", "actions")
    policy_arch: tuple[int, ...] = (128, 128)
    value_arch: tuple[int, ...] = (128, 128)
    activation: str = "relu"
    players: tuple[int, ...] = ()  # the player counts it plays (empty: num_players only)

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int) or not D.MIN_PLAYERS <= n <= D.MAX_PLAYERS:
            raise InvalidConfigError(
                f"num_players must be an int in {D.MIN_PLAYERS}..{D.MAX_PLAYERS}, got {n!r}"
            )
        players = self.players or (n,)
        if (
            not isinstance(players, Sequence)
            or not all(type(c) is int for c in players)
            or list(players) != sorted(set(players))
            or players[0] < D.MIN_PLAYERS
            or players[-1] != n
        ):
            raise InvalidConfigError(
                f"players must be distinct increasing counts from {D.MIN_PLAYERS} up to "
                f"num_players ({n}), got {self.players!r}"
            )
        object.__setattr__(self, "players", tuple(players))
        features = check_features(list(self.features))
        if not features or features[-1] != "actions":
            raise InvalidConfigError(
                f"the search network needs the 'actions' feature block last, got {list(features)}"
            )
        object.__setattr__(self, "features", features)
        for name in ("policy_arch", "value_arch"):
            arch = getattr(self, name)
            if (
                not isinstance(arch, Sequence)
                or not 1 <= len(arch) <= MAX_LAYERS
                or not all(type(w) is int and 1 <= w <= MAX_WIDTH for w in arch)
            ):
                raise InvalidConfigError(
                    f"{name} must be 1..{MAX_LAYERS} layer widths in 1..{MAX_WIDTH}, got {arch!r}"
                )
            object.__setattr__(self, name, tuple(arch))
        if self.activation not in ACTIVATIONS:
            raise InvalidConfigError(
                f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "features": list(self.features),
            "policy_arch": list(self.policy_arch),
            "value_arch": list(self.value_arch),
            "activation": self.activation,
            "players": list(self.players),
        }


class NetLoss(NamedTuple):
    total: torch.Tensor
    policy: torch.Tensor
    value: torch.Tensor


def relative_shares(shares: Sequence[float], player: int, width: int = 0) -> np.ndarray:
    """A game's win shares (absolute seats) in ``player``'s relative seat order: entry
    ``k`` is seat ``(player + k) % n``, as the value head predicts them; zeros after the
    ``n`` seats up to ``width`` (a network's ``num_players``)."""
    n = len(shares)
    out = np.zeros(max(n, width), dtype=np.float32)
    out[:n] = [shares[(player + k) % n] for k in range(n)]
    return out


def seat_counts(obs: torch.Tensor) -> torch.Tensor:
    """The player count of each observation row (its ``num_players`` one-hot block; the
    state part alone is enough)."""
    start, _ = OFFSETS["num_players"]
    return D.MIN_PLAYERS + obs[:, start : start + 3].argmax(dim=1)


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean over rows of ``-sum_i targets[i] * log_softmax(logits)[i]``."""
    return -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()


def _mlp(inputs: int, widths: tuple[int, ...], activation: Any) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for width in widths:
        layers += [torch.nn.Linear(inputs, width), activation()]
        inputs = width
    return torch.nn.Sequential(*layers)


class SearchNet(torch.nn.Module):
    """Policy logits and per-seat win shares from a player's observation (module docstring).
    Implements the search's ``Evaluator`` (``num_players``, ``features``, ``evaluate``)."""

    def __init__(self, settings: NetSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or NetSettings()
        s = self.settings
        self.num_players = s.num_players
        self.players = s.players
        self.features = s.features
        self.obs_size = int(layout_signature(s.features)["size"])  # type: ignore[call-overload]
        self.state_size = self.obs_size - ACTION_BLOCK
        activation = ACTIVATIONS[s.activation]
        self.policy_trunk = _mlp(self.state_size, s.policy_arch, activation)
        self.action_net = torch.nn.Linear(s.policy_arch[-1], NUM_ACTIONS)
        add_action_heads(self, s.policy_arch[-1], activation)
        self.value_trunk = _mlp(self.state_size, s.value_arch, activation)
        self.value_head = torch.nn.Linear(s.value_arch[-1], s.num_players)
        with torch.no_grad():  # an untrained value head predicts equal shares
            self.value_head.weight.zero_()
            self.value_head.bias.zero_()
        self.extra: dict[str, Any] = {}  # how it was made (written to its file)
        self._seat_ids = torch.arange(s.num_players)

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked policy logits [B, NUM_ACTIONS] and value logits [B, num_players]."""
        return self.policy_logits(obs), self.value_logits(obs)

    def value_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Value logits [B, num_players] from the first ``state_size`` columns: a full
        observation, or its state part alone (value fitting stores only that). Outputs past
        a row's player count are ``MASKED`` (a share of 0 after the softmax)."""
        state = obs[:, : self.state_size].float()
        logits = self.value_head(self.value_trunk(state))
        if self.players[0] == self.num_players:  # one count: every output is a seat
            return logits
        beyond = self._seat_ids[None, :] >= seat_counts(state)[:, None]
        return logits.masked_fill(beyond, MASKED)

    def policy_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked policy logits only (the raw network's move needs no value)."""
        obs = obs.float()
        return action_logits(self, obs, self.policy_trunk(obs[:, : self.state_size]))

    def forward(self, obs: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits with illegal ids at ``MASKED``, win shares summing to 1 per row)."""
        logits, value_logits = self.heads(obs)
        return logits.masked_fill(~masks.bool(), MASKED), torch.softmax(value_logits, dim=1)

    def loss(
        self,
        obs: torch.Tensor,
        masks: torch.Tensor,
        policy_targets: torch.Tensor,
        value_targets: torch.Tensor,
        value_weight: float = 1.0,
    ) -> NetLoss:
        """Cross-entropy of the masked policy against ``policy_targets`` [B, NUM_ACTIONS]
        (a distribution over legal ids) plus ``value_weight`` x cross-entropy of the win
        shares against ``value_targets`` [B, num_players] (relative seat order, 0 past
        each row's player count)."""
        masks = masks.bool()
        _check_targets(policy_targets, masks, "policy_targets")
        _check_targets(value_targets, None, "value_targets", self.num_players)
        if self.players[0] != self.num_players:
            beyond = self._seat_ids[None, :] >= seat_counts(obs)[:, None]
            if bool((value_targets * beyond).sum() > 0):
                raise ValueError("value_targets put weight on seats past a row's player count")
        logits, value_logits = self.heads(obs)
        policy = soft_cross_entropy(logits.masked_fill(~masks, MASKED), policy_targets)
        value = soft_cross_entropy(value_logits, value_targets)
        return NetLoss(policy + value_weight * value, policy, value)

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``Evaluator`` call: obs float32 [B, obs_size], masks bool [B, NUM_ACTIONS]
        -> (logits float32 [B, NUM_ACTIONS], win shares float32 [B, num_players]); no
        gradients. Rows must be observations of a game of one of ``players``' counts, with a
        legal id."""
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"obs must be [B, {self.obs_size}], got shape {obs.shape}")
        if masks.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(f"masks must be [{obs.shape[0]}, {NUM_ACTIONS}], got {masks.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("every row of masks needs at least one legal action")
        if obs.shape[0]:
            self.check_counts(players_of(obs).tolist())
        with torch.inference_mode():
            logits, values = self(torch.from_numpy(obs), torch.from_numpy(masks))
        return logits.numpy(), values.numpy()

    def check_counts(self, counts: Sequence[int]) -> None:
        """``ValueError`` naming the first of ``counts`` (player counts) it does not play."""
        missing = set(counts) - set(self.players)
        if missing:
            raise ValueError(
                f"observations of a {min(missing)}-player game: this "
                f"network plays {'/'.join(map(str, self.players))}-player games"
            )

    def native_layers(self) -> dict[str, Any]:
        """Its layers as the C++ search's ``set_net`` takes them (native/players/net_forward.hpp):
        float32 copies of each ``Linear``'s (weight, bias), so a search runs its whole loop in
        C++ (``puct.Search``); the outputs agree with ``evaluate``'s to float32 rounding."""

        def pair(layer: torch.nn.Linear) -> tuple[np.ndarray, np.ndarray | None]:
            bias = None if layer.bias is None else layer.bias.detach().numpy().copy()
            return layer.weight.detach().numpy().copy(), bias

        def linears(seq: torch.nn.Sequential) -> list[tuple[np.ndarray, np.ndarray | None]]:
            return [pair(m) for m in seq if isinstance(m, torch.nn.Linear)]

        score_hidden, score_out = linears(self.action_score)
        return {
            "policy_trunk": linears(self.policy_trunk),
            "value_trunk": linears(self.value_trunk),
            "action_net": pair(self.action_net),
            "action_context": pair(self.action_context),
            "action_embed": pair(self.action_embed),
            "score_hidden": score_hidden,
            "score_out": score_out,
            "action_linear": self.action_linear.weight.detach().numpy()[0].copy(),
            "value_head": pair(self.value_head),
            "tanh": self.settings.activation == "tanh",
            "players": list(self.players),
        }

    def weights_version(self) -> tuple[tuple[int, int], ...]:
        """Changes whenever a weight is replaced or changed in place (an optimiser step,
        ``load_state_dict``): a search re-reads ``native_layers`` when it differs."""
        return tuple((id(p), p._version) for p in self.parameters())


def _check_targets(
    targets: torch.Tensor, masks: torch.Tensor | None, name: str, width: int = NUM_ACTIONS
) -> None:
    """``ValueError`` unless ``targets`` is a [B, width] distribution per row (on legal ids)."""
    if targets.ndim != 2 or targets.shape[1] != width:
        raise ValueError(f"{name} must be [B, {width}], got {tuple(targets.shape)}")
    if not bool(torch.isfinite(targets).all()) or bool((targets < 0).any()):
        raise ValueError(f"{name} must be finite and non-negative")
    if not torch.allclose(targets.sum(dim=1), torch.ones(len(targets)), atol=1e-4):
        raise ValueError(f"every row of {name} must sum to 1")
    if masks is not None and bool((targets * ~masks).sum() > 0):
        raise ValueError(f"{name} put weight on illegal actions")
