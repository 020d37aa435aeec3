"""The network's update of an iteration: Adam on ``SearchNet.loss`` (policy cross-entropy
against the search's targets plus ``value_weight`` x value cross-entropy against the final
win shares) over the replay window, a few epochs of shuffled minibatches.

The shuffle comes from the caller's seed and the optimizer is the caller's (its moments
persist across iterations and are saved in checkpoints), so an iteration's update is the
same whether the run went on or was resumed from a checkpoint.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from perikles_env.agents.search.network import MASKED, SearchNet

from .dataset import Positions


def make_optimizer(net: SearchNet, learning_rate: float) -> torch.optim.Optimizer:
    return torch.optim.Adam(net.parameters(), lr=learning_rate)


def losses(net: SearchNet, data: Positions, value_weight: float,
           batch_size: int = 2048) -> dict[str, float]:
    """The mean policy and value losses of ``net`` on ``data`` without updating it, and the
    mean entropies of its policy and of the policy targets. On an iteration's new positions,
    before the update learns them, they are the held-out losses: a value loss that falls on
    the window while this one does not is the value fitting the recent games; entropies that
    rise together from one iteration to the next are the targets flattening the policy they
    were searched from (docs/results.md, "Training against a population")."""
    sums = np.zeros(4)
    with torch.no_grad():
        for start in range(0, len(data), batch_size):
            rows = np.arange(start, min(start + batch_size, len(data)))
            obs, masks, policy, values = (torch.from_numpy(a) for a in data.batch(rows))
            loss = net.loss(obs, masks, policy, values, value_weight)
            probs = torch.softmax(net.policy_logits(obs).masked_fill(~masks, MASKED), dim=1)
            entropy = torch.special.entr(probs).sum(1).sum()
            target_entropy = torch.special.entr(policy).sum(1).sum()
            sums += [len(rows) * float(loss.policy), len(rows) * float(loss.value),
                     float(entropy), float(target_entropy)]
    n = max(1, len(data))
    names = ("policy", "value", "policy_entropy", "target_entropy")
    return {name: round(float(total) / n, 4) for name, total in zip(names, sums, strict=True)}


def train(
    net: SearchNet,
    optimizer: torch.optim.Optimizer,
    data: Positions,
    epochs: int,
    batch_size: int,
    value_weight: float,
    seed: int,
) -> dict[str, Any]:
    """Update ``net`` in place on ``data``; returns the mean losses of each epoch."""
    rng = np.random.default_rng(seed)
    report: dict[str, Any] = {"rows": len(data), "policy": [], "value": []}
    if not len(data):
        return report
    net.train()
    for _ in range(epochs):
        order = rng.permutation(len(data))
        sums = np.zeros(2)
        for start in range(0, len(order), batch_size):
            rows = np.sort(order[start : start + batch_size])
            obs, masks, policy, values = (torch.from_numpy(a) for a in data.batch(rows))
            loss = net.loss(obs, masks, policy, values, value_weight)
            optimizer.zero_grad()
            loss.total.backward()
            optimizer.step()
            sums += len(rows) * np.array([float(loss.policy.detach()), float(loss.value.detach())])
        report["policy"].append(round(float(sums[0]) / len(order), 4))
        report["value"].append(round(float(sums[1]) / len(order), 4))
    net.eval()
    return report
