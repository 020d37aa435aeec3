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
    observations: np.ndarray  # float16 [N, obs]
    masks: np.ndarray  # bool [N, actions]
    actions: np.ndarray  # int64 [N]
    best: np.ndarray  # bool [N, actions]: the teacher's equally best actions
    returns: np.ndarray  # float32 [N]
    games: int
    wins: float  # teacher seats' win shares, summed
    seats: int  # teacher seats played

    def __len__(self) -> int:
        return int(self.actions.size)


_AGENTS: dict[str, Any] = {}


def _agent(spec: str) -> Any:
    if spec not in _AGENTS:
        _AGENTS[spec] = make_agent(spec)
    return _AGENTS[spec]


Part = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, int, np.ndarray]


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


def play_demo_game(job: DemoJob) -> Part:
    """One game: the teacher seats' (observations, masks, actions, returns, wins, seats,
    best-action masks)."""
    rng = np.random.default_rng(job.seed)
    encode = game_encoder(job.features).encode
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
    obs, masks, actions, returns, bests = [], [], [], [], []
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
            bests.append(b)
            obs.append(o.astype(np.float16))
            masks.append(m)
            actions.append(a)
            returns.append(ret)
        winners = game.winners() if game.is_terminal else []
        wins += 1.0 / len(winners) if p in winners else 0.0
    return (
        np.asarray(obs, dtype=np.float16),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
        wins,
        len(recorded),
        np.asarray(bests, dtype=bool).reshape(-1, NUM_ACTIONS),
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
    parts: list[Part] = []
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
                total += r[2].size
            bar.update(time.perf_counter() - start, total, extra=f"{len(parts)} games")
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()  # every result is in; on an interrupt, stop at once
            pool.join()
    return Demos(
        observations=np.concatenate([p[0] for p in parts]),
        masks=np.concatenate([p[1] for p in parts]),
        actions=np.concatenate([p[2] for p in parts]),
        best=np.concatenate([p[6] for p in parts]),
        returns=np.concatenate([p[3] for p in parts]),
        games=len(parts),
        wins=sum(p[4] for p in parts),
        seats=sum(p[5] for p in parts),
    )


def imitation_accuracy(policy: Any, demos: Demos, batch_size: int = 1024) -> float:
    """Share of ``demos`` decisions where the policy's most likely legal action is one of
    the teacher's equally best actions (exact, over the whole set)."""
    import torch

    hits = 0
    with torch.no_grad():
        for start in range(0, len(demos), batch_size):
            part = slice(start, start + batch_size)
            obs = torch.as_tensor(demos.observations[part], dtype=torch.float32)
            dist = policy.get_distribution(obs, action_masks=demos.masks[part])
            chosen = dist.distribution.probs.argmax(dim=1).numpy()
            hits += int(demos.best[part][np.arange(chosen.size), chosen].sum())
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
) -> list[dict[str, float]]:
    """Behaviour cloning of ``demos`` into an SB3 MaskableActorCriticPolicy (in place)."""
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
            obs = torch.as_tensor(demos.observations[idx], dtype=torch.float32)
            best = torch.as_tensor(demos.best[idx])
            masks = torch.as_tensor(demos.masks[idx])
            returns = torch.as_tensor(demos.returns[idx])
            dist = policy.get_distribution(obs, action_masks=masks).distribution
            values = policy.predict_values(obs)
            # -log P(one of the teacher's equally best actions)
            policy_loss = -torch.logsumexp(dist.logits.masked_fill(~best, -1e8), dim=1).mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), returns)
            loss = policy_loss + value_weight * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            sums["policy_loss"] += float(policy_loss.detach())
            sums["value_loss"] += float(value_loss.detach())
            batches += 1
            if batches % 8 == 1:  # imitation accuracy on a sample of the batches
                with torch.no_grad():
                    chosen = dist.probs.argmax(dim=1)
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
        "decisions": len(demos),
        "games": demos.games,
        "teacher_win_rate": round(demos.wins / max(demos.seats, 1), 4),
        "collect_seconds": round(collected, 1),
        "seconds": round(seconds, 1),
        "epochs": history,
    }
