"""The network's update of an iteration: Adam on ``SearchNet.loss`` (policy cross-entropy
against the search's targets plus ``value_weight`` x value cross-entropy against the final
win shares) over the replay window, a few epochs of shuffled minibatches; with an anchor,
plus ``anchor_weight`` x KL(anchor's policy || the policy).

Why an anchor: searches of a few dozen simulations give targets that each differ a little
from the prior, so the network fits their mean, flatter than any of them, and drifts away
from a sharp starting policy (docs/results.md, "Training against a population"). A KL
penalty towards a fixed policy is how piKL (Jacob et al., ICML 2022) keeps a search-trained
policy near its anchor; here the anchor is the run's first network.

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


def masked_logits(net: SearchNet, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """The network's policy logits, illegal ids at ``MASKED``."""
    return net.policy_logits(obs).masked_fill(~masks, MASKED)


def anchor_kl(logits: torch.Tensor, anchor_logits: torch.Tensor) -> torch.Tensor:
    """Mean over rows of KL(softmax(anchor_logits) || softmax(logits)), both masked alike."""
    anchor_log = torch.log_softmax(anchor_logits, dim=1)
    log_ratio = anchor_log - torch.log_softmax(logits, dim=1)
    return (anchor_log.exp() * log_ratio).sum(dim=1).mean()


def losses(net: SearchNet, data: Positions, value_weight: float,
           batch_size: int = 2048, anchor: SearchNet | None = None) -> dict[str, float]:
    """The mean policy and value losses of ``net`` on ``data`` without updating it, and the
    mean entropies of its policy and of the policy targets. On an iteration's new positions,
    before the update learns them, they are the held-out losses: a value loss that falls on
    the window while this one does not is the value fitting the recent games; entropies that
    rise together from one iteration to the next are the targets flattening the policy they
    were searched from (docs/results.md, "Training against a population"). With ``anchor``,
    also the mean KL(anchor's policy || the network's): how far it has moved from it."""
    sums = np.zeros(5)
    with torch.no_grad():
        for start in range(0, len(data), batch_size):
            rows = np.arange(start, min(start + batch_size, len(data)))
            obs, masks, policy, values = (torch.from_numpy(a) for a in data.batch(rows))
            masks = masks.bool()
            loss = net.loss(obs, masks, policy, values, value_weight)
            logits = masked_logits(net, obs, masks)
            entropy = torch.special.entr(torch.softmax(logits, dim=1)).sum(1).sum()
            target_entropy = torch.special.entr(policy).sum(1).sum()
            kl = (len(rows) * float(anchor_kl(logits, masked_logits(anchor, obs, masks)))
                  if anchor is not None else 0.0)
            sums += [len(rows) * float(loss.policy), len(rows) * float(loss.value),
                     float(entropy), float(target_entropy), kl]
    n = max(1, len(data))
    names = ("policy", "value", "policy_entropy", "target_entropy", "anchor_kl")
    out = {name: round(float(total) / n, 4) for name, total in zip(names, sums, strict=True)}
    if anchor is None:
        del out["anchor_kl"]
    return out


def train(
    net: SearchNet,
    optimizer: torch.optim.Optimizer,
    data: Positions,
    epochs: int,
    batch_size: int,
    value_weight: float,
    seed: int,
    anchor: SearchNet | None = None,
    anchor_weight: float = 0.0,
) -> dict[str, Any]:
    """Update ``net`` in place on ``data``; returns the mean losses of each epoch (and the
    mean KL to ``anchor``'s policy when ``anchor_weight`` > 0)."""
    rng = np.random.default_rng(seed)
    anchored = anchor is not None and anchor_weight > 0
    report: dict[str, Any] = {"rows": len(data), "policy": [], "value": []}
    if anchored:
        report["anchor_kl"] = []
    if not len(data):
        return report
    net.train()
    for _ in range(epochs):
        order = rng.permutation(len(data))
        sums = np.zeros(3)
        for start in range(0, len(order), batch_size):
            rows = np.sort(order[start : start + batch_size])
            obs, masks, policy, values = (torch.from_numpy(a) for a in data.batch(rows))
            loss = net.loss(obs, masks, policy, values, value_weight)
            total, kl = loss.total, torch.zeros(())
            if anchored:
                masks = masks.bool()
                with torch.no_grad():
                    fixed = masked_logits(anchor, obs, masks)
                kl = anchor_kl(masked_logits(net, obs, masks), fixed)
                total = total + anchor_weight * kl
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            sums += len(rows) * np.array([float(loss.policy.detach()), float(loss.value.detach()),
                                          float(kl.detach())])
        report["policy"].append(round(float(sums[0]) / len(order), 4))
        report["value"].append(round(float(sums[1]) / len(order), 4))
        if anchored:
            report["anchor_kl"].append(round(float(sums[2]) / len(order), 4))
    net.eval()
    return report
