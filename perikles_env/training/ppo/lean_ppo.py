"""MaskablePPO's algorithm with a rollout and an update that move only what the network reads
(``ppo.learner: lean``; the policy must be ``ActionScoringPolicy``, ``ppo.action_head: scoring``).

Why: with the league in C++, the trainer's time is the learner's, and most of it is not the
network's arithmetic. An observation is 10,290 floats, 8,613 of them the per-action block,
of which a row scores a few dozen ids; SB3's buffer stores the block dense, copies it three
times per minibatch (swap, fancy index, tensor) and rebuilds it per epoch, and its masked
distribution builds the full categorical object at every step. Here:

* the rollout keeps the state columns dense (``[steps, envs, state]`` tensors, written in
  place) and the per-action block **sparse** (the scored entries' sample, id and features),
  so an update gathers a few MB instead of hundreds;
* the logits are those of ``action_scoring.scored_logits`` (the code ``ActionScoringPolicy``
  itself runs), computed at the legal ids only (``LegalActions``, ``legal_logits``): the
  log-probabilities and entropy of sb3-contrib's ``MaskableCategorical`` (whose masked ids
  get ``exp(-1e8) = 0``), without the dense ``[batch, 957]`` masking, softmax and entropy;
* the forward passes of the rollout run under ``torch.inference_mode``, and its actions are
  drawn by inverting the cumulative probabilities (``LegalActions.sample``), not with
  ``torch.multinomial``, which took a sixth of the rollout;
* on the native vector env the rollout is a pipeline of two halves of the envs: one half's
  games step in C++ on a background thread (``NativeVecEnv.step_rows_async``) while the
  network chooses the other half's actions, so the C++ step and the network's forward pass
  keep both cores busy instead of taking turns. What the rollout records is the same as
  stepping every env at once (tested).

Everything else is MaskablePPO's, unchanged: the same policy object and optimizer, the same
loss (clipped surrogate, value MSE, entropy bonus, gradient clipping, per-minibatch
advantage normalisation, ``target_kl`` early stop), GAE and the truncation bootstrap, the
callbacks and the logger's keys. So checkpoints, ``model.zip`` and ``ppo:<path>`` are the
SB3 path's, byte for byte in layout. Throughput side by side: ``python
benchmarks/train_vector_speed.py --compare learner``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from stable_baselines3.common.vec_env import VecMonitor
from torch.nn import functional as F

from perikles_env.agents.action_scoring import scored_logits, scored_parts
from perikles_env.agents.ppo_policy import MASKED_LOGIT
from perikles_env.analysis.action_features import PER_ACTION, SCORED, SIZE


class SparseRollout:
    """One rollout: dense state columns, masks and scalars per (step, env); the per-action
    block's scored entries as flat arrays, with each sample's slice (``starts``, ``counts``)."""

    def __init__(self, steps: int, envs: int, state_size: int, actions: int) -> None:
        self.steps, self.envs = steps, envs
        self.states = torch.zeros((steps, envs, state_size), dtype=torch.float32)
        self.masks = torch.zeros((steps, envs, actions), dtype=torch.bool)
        shape = (steps, envs)
        self.actions = torch.zeros(shape, dtype=torch.long)
        self.log_probs = torch.zeros(shape, dtype=torch.float32)
        self.values = np.zeros(shape, dtype=np.float32)
        self.rewards = np.zeros(shape, dtype=np.float32)
        self.episode_starts = np.zeros(shape, dtype=np.float32)
        self.advantages = np.zeros(shape, dtype=np.float32)
        self.returns = np.zeros(shape, dtype=np.float32)
        self._entries: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def reset(self) -> None:
        self._entries = []

    def add_entries(self, step: int, envs: np.ndarray, ids: np.ndarray, features: np.ndarray):
        self._entries.append((step * self.envs + envs, ids, features))

    def finish(self, last_values: np.ndarray, dones: np.ndarray, gamma: float, lam: float):
        """GAE(lambda) and the returns (SB3's ``compute_returns_and_advantage``), then the
        scored entries flattened in sample order."""
        last_gae = np.zeros(self.envs, dtype=np.float32)
        for step in reversed(range(self.steps)):
            if step == self.steps - 1:
                next_non_terminal = 1.0 - dones.astype(np.float32)
                next_values = last_values
            else:
                next_non_terminal = 1.0 - self.episode_starts[step + 1]
                next_values = self.values[step + 1]
            delta = (
                self.rewards[step] + gamma * next_values * next_non_terminal - self.values[step]
            )
            last_gae = delta + gamma * lam * next_non_terminal * last_gae
            self.advantages[step] = last_gae
        self.returns = self.advantages + self.values
        samples = np.concatenate([e[0] for e in self._entries])
        order = np.argsort(samples, kind="stable")  # rows may come in any order
        samples = samples[order]
        self.entry_ids = torch.from_numpy(np.concatenate([e[1] for e in self._entries])[order])
        self.entry_features = torch.from_numpy(
            np.concatenate([e[2] for e in self._entries])[order]
        )
        counts = np.bincount(samples, minlength=self.steps * self.envs)
        self.counts = torch.from_numpy(counts)
        self.starts = torch.from_numpy(np.concatenate(([0], np.cumsum(counts)[:-1])))

    def minibatch(self, index: torch.Tensor) -> dict[str, torch.Tensor]:
        """The samples ``index`` (into the flattened steps x envs), with their entries
        renumbered to rows of the minibatch."""
        rows, entries = entries_of(self.starts, self.counts, index)
        flat = self.steps * self.envs
        return {
            "states": self.states.view(flat, -1)[index],
            "masks": self.masks.view(flat, -1)[index],
            "actions": self.actions.view(flat)[index],
            "old_log_probs": self.log_probs.view(flat)[index],
            "advantages": torch.from_numpy(self.advantages.reshape(flat))[index],
            "returns": torch.from_numpy(self.returns.reshape(flat))[index],
            "rows": rows,
            "ids": self.entry_ids[entries],
            "features": self.entry_features[entries],
        }


def entries_of(
    starts: torch.Tensor, counts: torch.Tensor, index: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """For the samples ``index`` of a flat entry store (sample i's entries at
    ``starts[i] : starts[i] + counts[i]``): each selected entry's row in the minibatch and
    its position in the store."""
    counts = counts[index]
    rows = torch.repeat_interleave(torch.arange(len(index)), counts)
    first = torch.repeat_interleave(starts[index], counts)
    offsets = torch.arange(len(rows)) - torch.repeat_interleave(
        torch.cumsum(counts, 0) - counts, counts
    )
    return rows, first + offsets


def scoring_heads(
    policy: Any, states: torch.Tensor, rows: torch.Tensor, ids: torch.Tensor,
    features: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Unmasked logits ``[batch, actions]`` and values ``[batch]`` of an
    ``ActionScoringPolicy`` from the state columns and the scored entries, read the way the
    policy reads a dense observation."""
    latent_pi, latent_vf = policy.mlp_extractor(states)
    logits = scored_logits(policy, latent_pi, rows, ids, features)
    return logits, policy.value_net(latent_vf).flatten()


class LegalActions:
    """A batch's legal actions as a flat list, row by row and id by id (``masks``'
    nonzeros): the policy's logits, log-probabilities and entropy are computed over these
    alone, a few dozen per row instead of the 957 ids of the dense ``[batch, actions]``
    matrix that masking fills with -1e8. ``scored_at``: where each scored entry of the
    per-action block (``rows``, ``ids``; always legal) sits in the list."""

    def __init__(self, masks: torch.Tensor, rows: torch.Tensor, ids: torch.Tensor) -> None:
        self.batch, self.width = masks.shape
        self.rows, self.ids = torch.nonzero(masks, as_tuple=True)
        self.keys = self.rows * self.width + self.ids  # ascending
        self.scored_at = self.position(rows, ids)

    def position(self, rows: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """The list positions of the legal pairs ``(rows, ids)``."""
        return torch.searchsorted(self.keys, rows * self.width + ids)

    def log_softmax(self, logits: torch.Tensor) -> torch.Tensor:
        """Each row's log-probabilities over its legal actions: the masked log-softmax of
        sb3-contrib's ``MaskableCategorical`` at the legal ids (a masked id adds
        ``exp(-1e8 - max) = 0`` to its row's sum)."""
        top = torch.full((self.batch,), float("-inf")).scatter_reduce(
            0, self.rows, logits.detach(), "amax"
        )
        shifted = logits - top.index_select(0, self.rows)
        sums = torch.zeros(self.batch).index_add(0, self.rows, shifted.exp())
        return shifted - sums.log().index_select(0, self.rows)

    def entropy(self, log_probs: torch.Tensor) -> torch.Tensor:
        return -torch.zeros(self.batch).index_add(0, self.rows, log_probs.exp() * log_probs)

    def sample(self, log_probs: torch.Tensor) -> torch.Tensor:
        """One list position per row, drawn with the row's probabilities by inverting the
        cumulative sum of all rows' (in double precision): row r's draw is its start plus a
        uniform share of its total, kept inside the row's span whatever the rounding."""
        probs = log_probs.double().exp()
        totals = torch.zeros(self.batch, dtype=torch.float64).index_add(0, self.rows, probs)
        counts = torch.bincount(self.rows, minlength=self.batch)
        last = torch.cumsum(counts, 0) - 1
        shares = torch.rand(self.batch, dtype=torch.float64)
        draws = torch.cumsum(totals, 0) - totals + shares * totals
        picked = torch.searchsorted(probs.cumsum(0), draws, right=True)
        return torch.minimum(torch.maximum(picked, last - counts + 1), last)


def legal_logits(
    policy: Any, latent_pi: torch.Tensor, scored: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    legal: LegalActions,
) -> torch.Tensor:
    """``scored_logits(policy, latent_pi, *scored)`` at the legal pairs only, the same sums in
    the same order: the flat head and the blank score, plus each scored entry's own score
    (``action_scoring.scored_parts``)."""
    rows, _, features = scored
    blank, own = scored_parts(policy, latent_pi, rows, features)
    flat = policy.action_net(latent_pi).flatten().index_select(0, legal.keys)
    return (flat + blank[:, 0].index_select(0, legal.rows)).index_add(0, legal.scored_at, own)


def split_observations(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The state columns and the scored entries (env, id, features) of a batch of
    observations whose last block is the per-action block."""
    obs = np.asarray(obs, dtype=np.float32)
    block = obs[:, -SIZE:].reshape(obs.shape[0], -1, PER_ACTION)
    envs, ids = np.nonzero(block[:, :, SCORED] > 0)
    return np.ascontiguousarray(obs[:, :-SIZE]), envs, ids, block[envs, ids]


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)


class Decision(NamedTuple):
    """The policy's choice for a batch of observations, and what the rollout keeps of it."""

    states: torch.Tensor
    masks: torch.Tensor
    envs: np.ndarray  # each scored entry's row in the batch
    ids: np.ndarray
    features: np.ndarray
    actions: torch.Tensor
    log_probs: torch.Tensor  # of the actions chosen
    values: torch.Tensor


class LeanMaskablePPO(MaskablePPO):
    """MaskablePPO for ``ActionScoringPolicy`` with the sparse rollout (module docstring)."""

    pipeline = True  # step half the envs while the network decides for the other half

    def _setup_model(self) -> None:
        super()._setup_model()
        from perikles_env.agents.ppo_policy import ActionScoringPolicy

        if not isinstance(self.policy, ActionScoringPolicy):
            raise TypeError("ppo.learner: lean needs ppo.action_head: scoring")
        size = int(self.observation_space.shape[0])  # type: ignore[index]
        assert isinstance(self.action_space, spaces.Discrete)
        self.rollout = SparseRollout(
            self.n_steps, self.n_envs, size - SIZE, int(self.action_space.n)
        )
        self.rollout_buffer = None  # type: ignore[assignment]  # SB3's dense one is not used

    # ---- the network, read the way ActionScoringPolicy reads it -------------------------

    def _values(self, obs: np.ndarray) -> np.ndarray:
        states, _, _, _ = split_observations(obs)
        with torch.inference_mode():
            _, latent_vf = self.policy.mlp_extractor(torch.from_numpy(states))
            return self.policy.value_net(latent_vf).flatten().numpy()

    # ---- rollout ------------------------------------------------------------------------

    def _decide(self, obs: np.ndarray, masks: np.ndarray) -> Decision:
        """The policy's actions, their log-probabilities and the values for a batch of
        observations (no autograd), with what the rollout keeps of the batch."""
        states, envs, ids, features = split_observations(obs)
        state_t, masks_t = torch.from_numpy(states), torch.from_numpy(masks)
        scored = (torch.from_numpy(envs), torch.from_numpy(ids), torch.from_numpy(features))
        with torch.inference_mode():
            legal = LegalActions(masks_t, scored[0], scored[1])
            latent_pi, latent_vf = self.policy.mlp_extractor(state_t)
            log_probs = legal.log_softmax(legal_logits(self.policy, latent_pi, scored, legal))
            picked = legal.sample(log_probs)
            actions, chosen = legal.ids[picked], log_probs[picked]
            values = self.policy.value_net(latent_vf).flatten()
        return Decision(state_t, masks_t, envs, ids, features, actions, chosen, values)

    def _record(self, step: int, rows: slice, decision: Decision) -> None:
        """Keep the decision of the envs ``rows`` (a slice) at ``step``."""
        store = self.rollout
        store.states[step, rows] = decision.states
        store.masks[step, rows] = decision.masks
        store.actions[step, rows] = decision.actions
        store.log_probs[step, rows] = decision.log_probs
        store.values[step, rows] = decision.values.numpy()
        store.add_entries(step, decision.envs + rows.start, decision.ids, decision.features)

    def _publish(
        self, step: int, env: Any, callback: Any, new_obs: np.ndarray, rewards: np.ndarray,
        dones: np.ndarray, infos: list[dict[str, Any]],
    ) -> bool:
        """A step's results: the callbacks, the episode statistics, the rewards (time-outs
        bootstrap with the value) and the next step's episode starts. False: stop."""
        self.num_timesteps += env.num_envs
        callback.update_locals(locals())
        if not callback.on_step():
            return False
        self._update_info_buffer(infos, dones)
        rewards = np.asarray(rewards, dtype=np.float32).copy()
        for idx in np.flatnonzero(dones):
            info = infos[idx]
            terminal = info.get("terminal_observation")
            if terminal is not None and info.get("TimeLimit.truncated", False):
                rewards[idx] += self.gamma * float(self._values(terminal[None])[0])
        self.rollout.rewards[step] = rewards
        self._last_obs = new_obs
        self._last_episode_starts = dones
        if step + 1 < self.rollout.steps:
            self.rollout.episode_starts[step + 1] = dones
        return True

    def collect_rollouts(  # type: ignore[override]
        self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        store = self.rollout
        store.reset()
        store.episode_starts[0] = self._last_episode_starts
        callback.on_rollout_start()
        native = env.venv if isinstance(env, VecMonitor) else env  # no other wrapper
        if self.pipeline and self.n_envs >= 2 and hasattr(native, "step_rows_async"):
            go_on = self._pipelined_rollout(env, native, callback, n_rollout_steps)
        else:
            go_on = self._rollout(env, callback, n_rollout_steps)
        if not go_on:
            return False
        store.finish(self._values(self._last_obs), self._last_episode_starts, self.gamma,
                     self.gae_lambda)
        callback.on_rollout_end()
        return True

    def _rollout(self, env: Any, callback: Any, n_rollout_steps: int) -> bool:
        """One step of every env at a time (any VecEnv)."""
        every = slice(0, self.n_envs)
        for step in range(n_rollout_steps):
            masks = np.asarray(env.env_method("action_masks"), dtype=bool)
            decision = self._decide(self._last_obs, masks)
            new_obs, rewards, dones, infos = env.step(decision.actions.numpy())
            self._record(step, every, decision)
            if not self._publish(step, env, callback, new_obs, rewards, dones, infos):
                return False
        return True

    def _pipelined_rollout(
        self, env: Any, native: Any, callback: Any, n_rollout_steps: int
    ) -> bool:
        """The envs in two halves, so that one half's games step in C++ (on a background
        thread, ``step_rows_async``) while the network chooses the other half's actions:
        step t's first half decides while the second half's step t-1 runs, and its second
        half while the first half's step t runs. Each step is published (callbacks,
        statistics) once both halves have stepped, with nothing running."""
        half = self.n_envs // 2
        halves = (slice(0, half), slice(half, self.n_envs))  # views of the env's rows
        envs = np.arange(self.n_envs)
        for step in range(n_rollout_steps):
            for h, rows in enumerate(halves):
                decision = self._decide(*native.observe_rows(rows))
                self._record(step, rows, decision)
                if h == 0 and step > 0:
                    if not self._publish(step - 1, env, callback, *env.step_wait()):
                        return False
                native.step_rows_async(envs[rows], decision.actions.numpy())
        return self._publish(n_rollout_steps - 1, env, callback, *env.step_wait())

    # ---- update -------------------------------------------------------------------------

    def _loss(
        self, batch: dict[str, torch.Tensor], clip_range: float, clip_range_vf: float | None,
        old_values: torch.Tensor, stats: dict[str, list[float]],
    ) -> tuple[torch.Tensor, float]:
        """MaskablePPO's loss on one minibatch, and its approximate KL (``stats`` gets the
        logged terms)."""
        scored = (batch["rows"], batch["ids"], batch["features"])
        legal = LegalActions(batch["masks"], batch["rows"], batch["ids"])
        latent_pi, latent_vf = self.policy.mlp_extractor(batch["states"])
        log_all = legal.log_softmax(legal_logits(self.policy, latent_pi, scored, legal))
        log_prob = log_all.index_select(
            0, legal.position(torch.arange(legal.batch), batch["actions"])
        )
        entropy = legal.entropy(log_all)
        values = self.policy.value_net(latent_vf).flatten()
        advantages = batch["advantages"]
        if self.normalize_advantage and len(advantages) > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        ratio = torch.exp(log_prob - batch["old_log_probs"])
        clipped = torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
        policy_loss = -torch.min(advantages * ratio, advantages * clipped).mean()
        values_pred = values
        if clip_range_vf is not None:
            values_pred = old_values + torch.clamp(values - old_values, -clip_range_vf,
                                                   clip_range_vf)
        value_loss = F.mse_loss(batch["returns"], values_pred)
        entropy_loss = -torch.mean(entropy)
        stats["pg"].append(policy_loss.item())
        stats["clip"].append(torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
        stats["value"].append(value_loss.item())
        stats["entropy"].append(entropy_loss.item())
        with torch.no_grad():
            log_ratio = log_prob - batch["old_log_probs"]
            approx_kl = float(torch.mean((torch.exp(log_ratio) - 1) - log_ratio))
        loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
        return loss, approx_kl

    def train(self) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        progress = self._current_progress_remaining
        clip_range = self.clip_range(progress)  # type: ignore[operator]
        clip_range_vf = None if self.clip_range_vf is None else self.clip_range_vf(progress)  # type: ignore[operator]
        store = self.rollout
        flat = store.steps * store.envs
        all_old_values = torch.from_numpy(store.values.reshape(flat))
        stats: dict[str, list[float]] = {"pg": [], "clip": [], "value": [], "entropy": []}
        approx_kl_divs: list[float] = []
        loss = torch.zeros(())
        stop = False
        for _ in range(self.n_epochs):
            approx_kl_divs = []
            order = torch.randperm(flat)
            for start in range(0, flat, self.batch_size):
                index = order[start : start + self.batch_size]
                loss, approx_kl = self._loss(
                    store.minibatch(index), clip_range, clip_range_vf, all_old_values[index], stats
                )
                approx_kl_divs.append(approx_kl)
                if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    stop = True
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if stop:
                break
        self._log_update(stats, approx_kl_divs, loss, clip_range, clip_range_vf)

    def _log_update(
        self, stats: dict[str, list[float]], approx_kl_divs: list[float], loss: torch.Tensor,
        clip_range: float, clip_range_vf: float | None,
    ) -> None:
        """The keys MaskablePPO.train logs."""
        store = self.rollout
        record = self.logger.record
        record("train/entropy_loss", np.mean(stats["entropy"]))
        record("train/policy_gradient_loss", np.mean(stats["pg"]))
        record("train/value_loss", np.mean(stats["value"]))
        record("train/approx_kl", np.mean(approx_kl_divs))
        record("train/clip_fraction", np.mean(stats["clip"]))
        record("train/loss", loss.item())
        record("train/explained_variance",
               explained_variance(store.values.flatten(), store.returns.flatten()))
        record("train/n_updates", self._n_updates, exclude="tensorboard")
        record("train/clip_range", clip_range)
        if clip_range_vf is not None:
            record("train/clip_range_vf", clip_range_vf)
