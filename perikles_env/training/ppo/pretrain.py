"""Warm start by imitation: behaviour cloning of a teacher agent before PPO.

Why: from a random initialisation MaskablePPO needs millions of decisions to find even the
basics of Perikles (take 2-cube tiles where you can win elections, commit forces to battles
you can win); measured here, ~300k learner steps moved the win rate against three random
players from 25 % to ~30 %. The rule-based heuristic (docs/agents.md) already knows the
basics, so the policy first imitates it for a minute, then PPO improves on it against the
opponent pool. Set ``pretrain.decisions: 0`` to train from scratch.

1. **Demonstrations.** Games with the teacher at one random seat and the other seats drawn
   from ``pretrain.opponents`` (weights, like ``opponents.weights``). Every decision of
   a seat played by the teacher spec is recorded: the observation (the env's encoder, as
   the learner sees it), the legal-action mask, the teacher's action, the teacher's equally
   best actions (a heuristic teacher breaks exact ties at random, ``agreement.py``; any
   other teacher: its action alone), and the return that the wrapper's reward
   (``reward`` section) would have paid that seat from then on.
2. **Cloning.** A few epochs of minibatch Adam on the masked policy's cross-entropy with the
   teacher's best set (``-log`` of the probability the policy gives to any of its equally
   best actions: the teacher's coin flips between ties are not something to imitate),
   plus ``value_weight`` x the squared error of the value head against those returns (so
   PPO starts with a critic that fits the policy, which keeps the first updates from
   undoing the imitation).

Games are generated in ``workers`` processes; each game's seed comes from
``SeedSequence(seed)``, so the demonstrations are the same for the same config.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from perikles_env.agents import TableLoop, decide, make_agent
from perikles_env.analysis.action_features import PER_ACTION, SCORED, SIZE
from perikles_env.engine import NUM_ACTIONS, Game, GameConfig, new_game
from perikles_env.jobs.budget import Budget, BudgetBar
from perikles_env.single_agent import OpponentPool, RewardConfig
from perikles_env.single_agent.rewards import RewardTracker
from perikles_env.vector.encoder import game_encoder
from perikles_env.workers import bounded_workers


@dataclass(frozen=True)
class DemoJob:
    seed: int
    player_counts: tuple[int, ...]
    teacher: str
    opponents: OpponentPool
    reward: RewardConfig
    gamma: float
    features: tuple[str, ...] = ()


@dataclass
class Demos:
    """Recorded teacher decisions. An observation is kept as its state columns and, when it
    ends with the per-action block (``env.features: [..., actions]``), that block's scored
    entries, sparse (the lean learner's layout): configs/default.yaml's 150k decisions take
    about 0.5 GB instead of 3 GB, and the scoring policy clones from them without
    rebuilding the dense block."""

    states: np.ndarray  # float16 [N, state]: the observation without the per-action block
    entry_counts: np.ndarray  # int64 [N]: scored entries per decision (0: no such block)
    entry_ids: np.ndarray  # int64 [E]: their action ids, decision by decision
    entry_features: np.ndarray  # float16 [E, PER_ACTION]
    masks: np.ndarray  # bool [N, actions]
    actions: np.ndarray  # int64 [N]
    best: np.ndarray  # bool [N, actions]: the teacher's equally best actions
    returns: np.ndarray  # float32 [N]
    games: int
    wins: float  # teacher seats' win shares, summed
    seats: int  # teacher seats played
    action_block: bool = False  # the observations end with the per-action block

    def __len__(self) -> int:
        return int(self.actions.size)

    @classmethod
    def concat(cls, parts: list[Demos]) -> Demos:
        return cls(
            states=np.concatenate([p.states for p in parts]),
            entry_counts=np.concatenate([p.entry_counts for p in parts]),
            entry_ids=np.concatenate([p.entry_ids for p in parts]),
            entry_features=np.concatenate([p.entry_features for p in parts]),
            masks=np.concatenate([p.masks for p in parts]),
            actions=np.concatenate([p.actions for p in parts]),
            best=np.concatenate([p.best for p in parts]),
            returns=np.concatenate([p.returns for p in parts]),
            games=sum(p.games for p in parts),
            wins=sum(p.wins for p in parts),
            seats=sum(p.seats for p in parts),
            action_block=parts[0].action_block,
        )

    def _entries(self, index: np.ndarray) -> tuple[Any, Any]:
        """Rows (in ``index`` order) and store positions of the decisions' entries."""
        import torch

        from .lean_ppo import entries_of

        counts = torch.from_numpy(self.entry_counts)
        starts = torch.cumsum(counts, 0) - counts
        return entries_of(starts, counts, torch.from_numpy(np.asarray(index)))

    def observations(self, index: np.ndarray | None = None) -> np.ndarray:
        """The dense observations (float16) of the decisions ``index`` (all by default),
        as the encoder wrote them."""
        index = np.arange(len(self)) if index is None else np.asarray(index)
        states = self.states[index]
        if not self.action_block:
            return states
        rows, entries = self._entries(index)
        block = np.zeros((len(index), NUM_ACTIONS, PER_ACTION), dtype=np.float16)
        block[rows.numpy(), self.entry_ids[entries.numpy()]] = self.entry_features[entries.numpy()]
        return np.concatenate([states, block.reshape(len(index), -1)], axis=1)

    def sparse(self, index: np.ndarray) -> tuple[Any, Any, Any, Any]:
        """The decisions ``index`` as the scoring heads read them (``lean_ppo.scoring_heads``):
        float32 state columns, and each scored entry's row, action id and features."""
        import torch

        rows, entries = self._entries(index)
        return (
            torch.as_tensor(self.states[index], dtype=torch.float32),
            rows,
            torch.from_numpy(self.entry_ids[entries.numpy()]),
            torch.as_tensor(self.entry_features[entries.numpy()], dtype=torch.float32),
        )


def split_observation(
    obs: np.ndarray, action_block: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An observation's state columns, and its per-action block's scored ids and their
    features (none without that block)."""
    if not action_block:
        return obs, np.zeros(0, dtype=np.int64), np.zeros((0, PER_ACTION), dtype=np.float32)
    block = obs[-SIZE:].reshape(-1, PER_ACTION)
    ids = np.flatnonzero(block[:, SCORED] > 0)
    return obs[:-SIZE], ids, block[ids]


_AGENTS: dict[str, Any] = {}


def _agent(spec: str) -> Any:
    if spec not in _AGENTS:
        _AGENTS[spec] = make_agent(spec)
    return _AGENTS[spec]


def teacher_move(
    teacher: Any, game: Game, player: int, rng: np.random.Generator
) -> tuple[int, list[int]]:
    """The teacher's action and its equally best actions. A noiseless heuristic is scored
    once: its action is drawn from that set exactly as ``HeuristicAgent.decide`` draws it
    (``pick_best`` over the tied scores, the same generator calls), so the games are those
    it would play. Any other teacher: its own action, alone in the set."""
    from perikles_env.agents.base import pick_best
    from perikles_env.agents.heuristic import HeuristicAgent
    from perikles_env.training.agreement import best_actions

    if isinstance(teacher, HeuristicAgent) and teacher.params.noise == 0:
        best = best_actions(teacher, game, player)  # reads only
        if len(game.legal_actions()) == 1:  # no seed drawn (agents/tiebreak.py)
            return best[0], best
        return best[pick_best([0.0] * len(best), rng)], best
    action = int(decide(teacher, game, player, rng))
    return action, [action]


def play_demo_game(job: DemoJob) -> Demos:
    """One game: the decisions of the teacher's seats."""
    rng = np.random.default_rng(job.seed)
    encoder = game_encoder(job.features)
    encode = encoder.encode
    n = job.player_counts[int(rng.integers(len(job.player_counts)))]
    seat = int(rng.integers(n))
    others = job.opponents.sample(rng, n - 1)
    specs = others[:seat] + [job.teacher] + others[seat:]
    recorded = [p for p in range(n) if specs[p] == job.teacher]
    game = new_game(GameConfig(num_players=n, record_events=False), seed=int(rng.integers(2**63)))
    trackers = {p: RewardTracker(job.reward, game, p) for p in recorded}
    rows: dict[int, list[tuple[np.ndarray, list[int], int, list[int]]]] = {p: [] for p in recorded}
    rewards: dict[int, list[float]] = {p: [] for p in recorded}
    teacher = _agent(job.teacher)
    teacher.reset()

    def teach(game: Game, p: int, rng: np.random.Generator) -> int:
        """The teacher's move at a recorded seat, with what the learner would have seen."""
        action, best = teacher_move(teacher, game, p, rng)
        if rows[p]:  # reward earned since this seat's previous decision
            rewards[p].append(trackers[p].step(game))
        rows[p].append((encode(game, p), game.legal_actions(), action, best))
        return action

    seats = [teach if p in trackers else _agent(spec) for p, spec in enumerate(specs)]
    TableLoop(game, seats, rng).run()
    action_block = job.features[-1:] == ("actions",)
    states, counts, ids, features = [], [], [], []
    masks, actions, returns, bests = [], [], [], []
    wins = 0.0
    for p in recorded:
        if not rows[p]:
            continue
        rewards[p].append(trackers[p].step(game))
        g = 0.0
        rets = []
        for r in reversed(rewards[p]):
            g = r + job.gamma * g
            rets.append(g)
        rets.reverse()
        for (o, legal, a, best), ret in zip(rows[p], rets, strict=True):
            m = np.zeros(NUM_ACTIONS, dtype=bool)
            m[legal] = True
            b = np.zeros(NUM_ACTIONS, dtype=bool)
            b[best] = True
            state, scored, scored_features = split_observation(o, action_block)
            states.append(state.astype(np.float16))
            counts.append(scored.size)
            ids.append(scored)
            features.append(scored_features.astype(np.float16))
            bests.append(b)
            masks.append(m)
            actions.append(a)
            returns.append(ret)
        winners = game.winners() if game.is_terminal else []
        wins += 1.0 / len(winners) if p in winners else 0.0
    width = int(encoder.space.shape[0]) - (SIZE if action_block else 0)
    return Demos(
        states=np.asarray(states, dtype=np.float16).reshape(-1, width),
        entry_counts=np.asarray(counts, dtype=np.int64),
        entry_ids=np.concatenate([np.zeros(0, dtype=np.int64), *ids]).astype(np.int64),
        entry_features=np.concatenate(
            [np.zeros((0, PER_ACTION), dtype=np.float16), *features]
        ),
        masks=np.asarray(masks, dtype=bool).reshape(-1, NUM_ACTIONS),
        actions=np.asarray(actions, dtype=np.int64),
        best=np.asarray(bests, dtype=bool).reshape(-1, NUM_ACTIONS),
        returns=np.asarray(returns, dtype=np.float32),
        games=1,
        wins=wins,
        seats=len(recorded),
        action_block=action_block,
    )


def collect_demos(
    decisions: int,
    seed: int,
    player_counts: tuple[int, ...],
    teacher: str,
    opponents: OpponentPool,
    reward: RewardConfig,
    gamma: float,
    workers: int = 1,
    features: tuple[str, ...] = (),
    progress: bool = False,
) -> Demos:
    """Play demonstration games until at least ``decisions`` teacher decisions are recorded."""
    seeds = np.random.SeedSequence(seed)
    bar = BudgetBar(Budget(steps=decisions, unit="decisions"), "imitation games", progress)
    start = time.perf_counter()
    parts: list[Demos] = []
    total = 0
    batch = max(workers, min(8 * workers, -(-decisions // 80)))  # ~80 decisions per game

    def jobs(count: int) -> list[DemoJob]:
        return [
            DemoJob(
                int(s.generate_state(1)[0]),
                player_counts,
                teacher,
                opponents,
                reward,
                gamma,
                features,
            )
            for s in seeds.spawn(count)
        ]

    processes = bounded_workers(workers, "pretrain.workers")  # the batch stays as asked
    pool = mp.get_context("spawn").Pool(processes) if workers > 1 else None
    try:
        while total < decisions:
            todo = jobs(batch)
            results = pool.map(play_demo_game, todo) if pool else list(map(play_demo_game, todo))
            for r in results:
                parts.append(r)
                total += len(r)
            bar.update(time.perf_counter() - start, total, extra=f"{len(parts)} games")
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()  # every result is in; on an interrupt, stop at once
            pool.join()
    return Demos.concat(parts)


def masked_log_probs_of(policy: Any, demos: Demos, index: np.ndarray) -> tuple[Any, Any]:
    """The policy's masked log-probabilities ``[batch, actions]`` and values ``[batch]`` on
    the decisions ``index``: from the sparse entries for the scoring policy, from the dense
    observations for the others."""
    import torch

    from perikles_env.agents.ppo_policy import ActionScoringPolicy

    from .lean_ppo import masked_log_probs, scoring_heads

    masks = torch.as_tensor(demos.masks[index])
    if demos.action_block and isinstance(policy, ActionScoringPolicy):
        logits, values = scoring_heads(policy, *demos.sparse(index))
        return masked_log_probs(logits, masks), values
    obs = torch.as_tensor(demos.observations(index), dtype=torch.float32)
    dist = policy.get_distribution(obs, action_masks=masks).distribution
    return dist.logits, policy.predict_values(obs).flatten()


def imitation_accuracy(policy: Any, demos: Demos, batch_size: int = 1024) -> float:
    """Share of ``demos`` decisions where the policy's most likely legal action is one of
    the teacher's equally best actions (exact, over the whole set)."""
    import torch

    hits = 0
    with torch.no_grad():
        for start in range(0, len(demos), batch_size):
            index = np.arange(start, min(start + batch_size, len(demos)))
            log_probs, _ = masked_log_probs_of(policy, demos, index)
            chosen = log_probs.argmax(dim=1).numpy()
            hits += int(demos.best[index][np.arange(chosen.size), chosen].sum())
    return hits / max(1, len(demos))


def clone_policy(
    policy: Any,
    demos: Demos,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_weight: float,
    seed: int,
    progress: bool = False,
    policy_weight: float = 1.0,
) -> list[dict[str, float]]:
    """Behaviour cloning of ``demos`` into an SB3 MaskableActorCriticPolicy (in place);
    ``policy_weight`` 0 fits the critic alone (the policy's weights get zero gradients,
    so Adam leaves them exactly as they were)."""
    import torch

    budget = Budget(steps=epochs * len(demos), unit="samples")
    bar = BudgetBar(budget, "imitation cloning", progress)
    start_time = time.perf_counter()

    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = rng.permutation(len(demos))
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        batches = checked = 0
        for start in range(0, len(order), batch_size):
            idx = np.sort(order[start : start + batch_size])
            best = torch.as_tensor(demos.best[idx])
            returns = torch.as_tensor(demos.returns[idx])
            log_probs, values = masked_log_probs_of(policy, demos, idx)
            # -log P(one of the teacher's equally best actions); -inf, not a large negative
            # number, for the others: the same sum, at half the cost (exp's slow path)
            policy_loss = -torch.logsumexp(
                log_probs.masked_fill(~best, float("-inf")), dim=1
            ).mean()
            value_loss = torch.nn.functional.mse_loss(values, returns)
            loss = policy_weight * policy_loss + value_weight * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            sums["policy_loss"] += float(policy_loss.detach())
            sums["value_loss"] += float(value_loss.detach())
            batches += 1
            if batches % 8 == 1:  # imitation accuracy on a sample of the batches
                with torch.no_grad():
                    chosen = log_probs.argmax(dim=1)
                    hit = best[torch.arange(chosen.numel()), chosen]
                sums["accuracy"] += float(hit.float().mean())
                checked += 1
            seen = epoch * len(demos) + start + idx.size
            bar.update(time.perf_counter() - start_time, seen, extra=f"epoch {epoch + 1}/{epochs}")
        row = {
            "epoch": epoch + 1,
            "policy_loss": sums["policy_loss"] / batches,
            "value_loss": sums["value_loss"] / batches,
            "accuracy": sums["accuracy"] / checked,
        }
        history.append({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
    bar.close()
    policy.set_training_mode(False)
    return history


def agreement_of(model_path: Any, games: int) -> dict[str, Any]:
    """Imitation agreement of a saved model with the default heuristic, per decision kind,
    on ``games`` held-out 4-player heuristic games (``agreement.py``)."""
    from perikles_env.training.agreement import measure_agreement

    return measure_agreement(f"ppo:{model_path}", games, players=4).to_dict()


def pretrain(model: Any, config: Any, progress: bool = True) -> dict[str, Any]:
    """Collect demonstrations and clone them into ``model.policy``; returns a summary."""
    section = config.pretrain
    counts = config.env.player_counts
    start = time.perf_counter()
    demos = collect_demos(
        section.decisions,
        seed=config.seed,
        player_counts=counts,
        teacher=section.teacher,
        opponents=OpponentPool.of(section.opponents),
        reward=config.reward_config(),
        gamma=config.ppo.gamma,
        workers=section.workers,
        features=tuple(config.env.features),
        progress=progress,
    )
    collected = time.perf_counter() - start
    if progress:
        print(
            f"pretrain: {len(demos):,} {section.teacher} decisions from {demos.games} games "
            f"in {collected:.0f} s (teacher win rate {demos.wins / demos.seats:.2f}); cloning..."
        )
    history = clone_policy(
        model.policy,
        demos,
        epochs=section.epochs,
        batch_size=section.batch_size,
        learning_rate=section.learning_rate,
        value_weight=section.value_weight,
        seed=config.seed,
        progress=progress,
        policy_weight=section.policy_weight,
    )
    seconds = time.perf_counter() - start
    if progress:
        last = history[-1]
        print(
            f"pretrain: done in {seconds:.0f} s; imitation accuracy {last['accuracy']:.3f}, "
            f"value loss {last['value_loss']:.3f}"
        )
    return {
        "teacher": section.teacher,
        "policy_weight": section.policy_weight,
        "decisions": len(demos),
        "games": demos.games,
        "teacher_win_rate": round(demos.wins / max(demos.seats, 1), 4),
        "collect_seconds": round(collected, 1),
        "seconds": round(seconds, 1),
        "epochs": history,
    }
