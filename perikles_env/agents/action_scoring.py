"""The per-action scoring head shared by ``ActionScoringPolicy`` (PPO) and ``SearchNet``
(search): ``logit[a] = head(latent)[a] + w · features[a] + mlp(context(latent) +
embed(features[a]))`` over the ``actions`` feature block (``analysis/action_features.py``).

Why one place: the search network starts as a copy of a trained PPO policy (warm start),
so both must compute the same logits from the same weights. The layers are set as
attributes of the owning module under fixed names (``action_net``, ``action_linear``,
``action_context``, ``action_embed``, ``action_score``), so model files keep their keys.
Torch only: playing a search network does not import stable-baselines3.
"""

from __future__ import annotations

from typing import Any

import torch

from ..analysis.action_features import PER_ACTION, POLITICS, SCORED, SIZE, WAR

HIDDEN = 64


def add_action_heads(module: torch.nn.Module, latent: int, activation_fn: Any) -> None:
    """Create the scoring layers on ``module`` (``action_net``, the flat head, is the
    owner's): ``w`` starts at one logit per VP of the ``politics`` and ``war`` columns
    (the columns are VP / 7), so an untrained head leans towards what the arithmetic
    favours."""
    module.action_linear = torch.nn.Linear(PER_ACTION, 1, bias=False)
    with torch.no_grad():
        module.action_linear.weight.zero_()
        module.action_linear.weight[0, [POLITICS, WAR]] = 7.0
    module.action_context = torch.nn.Linear(latent, HIDDEN)
    module.action_embed = torch.nn.Linear(PER_ACTION, HIDDEN, bias=False)
    module.action_score = torch.nn.Sequential(
        activation_fn(),
        torch.nn.Linear(HIDDEN, HIDDEN),
        activation_fn(),
        torch.nn.Linear(HIDDEN, 1),
    )


def action_logits(module: Any, obs: torch.Tensor, latent: torch.Tensor) -> torch.Tensor:
    """Unmasked logits [batch, NUM_ACTIONS] of ``module``'s heads for observations ``obs``
    (the per-action block last) and the state network's output ``latent``."""
    rows, ids, features = scored_actions(obs)
    return scored_logits(module, latent, rows, ids, features)


def scored_actions(obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The scored entries of the per-action block at the end of ``obs``: their rows, their
    action ids and their features ``[scored, k]`` (a few dozen of the 957 ids per row)."""
    per_action = obs[:, -SIZE:].reshape(obs.shape[0], -1, PER_ACTION)  # [batch, ids, k]
    rows, ids = torch.nonzero(per_action[:, :, SCORED] > 0, as_tuple=True)
    return rows, ids, per_action[rows, ids]


def scored_logits(
    module: Any,
    latent: torch.Tensor,
    rows: torch.Tensor,
    ids: torch.Tensor,
    features: torch.Tensor,
) -> torch.Tensor:
    """Unmasked logits [batch, NUM_ACTIONS] from the state network's output ``latent`` and
    the scored entries (``scored_actions``; a learner may store them sparse)."""
    blank, own = scored_parts(module, latent, rows, features)
    return (module.action_net(latent) + blank).index_put((rows, ids), own, accumulate=True)


def scored_parts(
    module: Any, latent: torch.Tensor, rows: torch.Tensor, features: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """What the scorer adds to the flat head: ``blank`` [batch, 1], the score of an action
    without features, and ``own`` [scored], what each scored entry gets on top of it.

    An action without features (all zero) scores mlp(context) (the embedding has no bias),
    the same for every such id: one per row, then the scored ids only, which keeps the
    update as cheap as the flat head's."""
    context = module.action_context(latent)
    blank = module.action_score(context)  # [batch, 1]
    # index_select, not context[rows]: its gradient is an index_add, not a sorted index_put
    own = module.action_score(context.index_select(0, rows) + module.action_embed(features))
    own = own.squeeze(-1) - blank[:, 0].index_select(0, rows)
    return blank, own + module.action_linear(features).squeeze(-1)
