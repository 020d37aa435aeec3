"""Warm start of the search network from a ``make train`` PPO model.

Why: expert iteration from a random network spends its first iterations learning what
imitation and PPO already know. The ``ActionScoringPolicy`` of ``make train`` has the
search network's policy architecture, so its weights are copied in unchanged
(``net_from_ppo``: the new network plays exactly as the PPO model). Its critic predicts the
shaped return of one seat, not every seat's win share, so the value head starts at equal
shares (the critic's state MLP is copied as the value's) and is fitted on outcomes:

1. ``record_values``: games on the C++ core with the network (argmax of its policy) at one
   random seat and the other seats drawn from a league (by default ``make train``'s
   opponents); at every decision the acting seat's observation is recorded with that
   game's final win shares in the observer's relative seat order (``relative_shares``).
   Only the state part of each observation is kept (float16): the value reads nothing else.
2. ``fit_values``: a few epochs of Adam on the value cross-entropy, the value's weights
   only (the policy does not move); a tenth of the games, whole, is held out and its loss
   reported before and after (an equal-shares guess scores ``ln(num_players)``).

The other way, ``ppo_from_net`` copies a search network's policy (and its value trunk, as
the critic's) into a new PPO model, so that ``perikles-train`` can fine-tune the ``net``
agent (``ppo.init_net``); ``--value-from`` then puts the tuned policy back beside that
network's value head instead of fitting a new one.

CLI: ``python -m perikles_env.training.search_warmstart --ppo runs/default/model.zip
--games 1000 --out search_net.pkn``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perikles_env.agents import TableLoop, make_agent
from perikles_env.agents.ppo_file import ModelFileError, check_layout, read_model
from perikles_env.agents.search.evaluator import players_of
from perikles_env.agents.search.net_agent import NetAgent
from perikles_env.agents.search.net_file import save_net
from perikles_env.agents.search.network import (
    NetSettings,
    SearchNet,
    relative_shares,
    soft_cross_entropy,
)
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.errors import InvalidConfigError
from perikles_env.single_agent import OpponentPool
from perikles_env.training.ppo.self_play_pool import SELF_KEYS
from perikles_env.vector.encoder import encode_with_features

# PPO policy tensor -> search network tensor (the action_* heads keep their names)
RENAMED = {"mlp_extractor.policy_net.": "policy_trunk.", "mlp_extractor.value_net.": "value_trunk."}
DROPPED = ("value_net.",)  # the PPO critic's scalar output


def net_from_ppo(
    path: str | Path, num_players: int = 4, players: Sequence[int] = ()
) -> SearchNet:
    """A search network whose policy is the ``ActionScoringPolicy`` of the model file at
    ``path`` (the same logits), whose value trunk is its critic's and whose value head
    predicts equal shares; it plays ``players`` (default: ``num_players`` only).
    ``ModelFileError`` for another policy class or a bad file."""
    import torch

    model = read_model(path)
    features = check_layout(model)
    policy: dict[str, Any] = model.meta.get("policy") or {}
    if policy.get("class") != "ActionScoringPolicy":
        raise ModelFileError(
            f"{model.path}: a {policy.get('class')!r} policy; the search network starts from "
            "an ActionScoringPolicy (ppo.action_head: scoring)"
        )
    arch: Any = policy.get("net_arch")
    pi, vf = (arch.get("pi"), arch.get("vf")) if isinstance(arch, dict) else (arch, arch)
    trunk = list(policy.get("trunk") or ())  # shared layers: the start of both trunks
    try:
        settings = NetSettings(
            num_players, tuple(features), tuple(trunk + list(pi or ())),
            tuple(trunk + list(vf or ())), policy["activation"], tuple(players),
        )
        net = SearchNet(settings)
    except (InvalidConfigError, TypeError, KeyError) as exc:
        raise ModelFileError(f"{model.path}: bad policy settings {policy}: {exc}") from exc
    state = {k: v for k, v in net.state_dict().items() if k.startswith("value_head.")}
    for name, array in model.policy_state.items():
        if name.startswith(DROPPED):
            continue
        tensor = torch.from_numpy(np.asarray(array, dtype=np.float32).copy())
        for renamed in _search_names(name, len(trunk)):
            state[renamed] = tensor
    try:
        net.load_state_dict(state)
    except RuntimeError as exc:
        raise ModelFileError(f"{model.path}: weights do not fit the search network: {exc}") from exc
    net.extra = {"ppo": str(model.path), "ppo_timesteps": model.meta.get("num_timesteps")}
    return net.eval()


def _search_names(name: str, shared: int) -> list[str]:
    """The search network's names for the PPO tensor ``name``: a shared trunk's layer
    (``mlp_extractor.shared_net.<i>``) is the first layers of both the policy and the value
    trunks, whose own layers come after the ``shared`` ones."""
    prefix = "mlp_extractor.shared_net."
    if name.startswith(prefix):
        return [trunk + name[len(prefix) :] for trunk in ("policy_trunk.", "value_trunk.")]
    for old, new in RENAMED.items():
        if name.startswith(old):
            index, _, rest = name[len(old) :].partition(".")
            return [f"{new}{int(index) + 2 * shared}.{rest}"]  # a Linear and its activation
    return [name]


def ppo_from_net(model: Any, path: str | Path, features: Sequence[str]) -> dict[str, Any]:
    """Load the search network at ``path`` into the ``ActionScoringPolicy`` of ``model`` (a
    new MaskablePPO): the policy's weights unchanged (the same logits), the critic's trunk
    from the value trunk; the critic's scalar output keeps its fresh weights. Returns what
    the run records. ``InvalidConfigError`` when the network does not fit the model."""
    import torch

    from perikles_env.agents.search.net_file import load_net

    net = load_net(path)
    policy = model.policy
    if type(policy).__name__ != "ActionScoringPolicy":
        raise InvalidConfigError(
            f"ppo.init_net needs ppo.action_head: scoring, got a {type(policy).__name__}"
        )
    if list(net.settings.features) != list(features):
        raise InvalidConfigError(
            f"ppo.init_net: {path} reads the feature blocks {list(net.settings.features)}, "
            f"env.features is {list(features)}"
        )
    back = {new: old for old, new in RENAMED.items()}
    state = policy.state_dict()
    for name, tensor in net.state_dict().items():
        if name.startswith("value_head."):
            continue
        for new, old in back.items():
            if name.startswith(new):
                name = old + name[len(new) :]
        if name not in state or state[name].shape != tensor.shape:
            raise InvalidConfigError(
                f"ppo.init_net: {path} does not fit the model: {name} "
                f"{tuple(tensor.shape)} against "
                f"{tuple(state[name].shape) if name in state else 'nothing'} (the net is "
                f"policy {list(net.settings.policy_arch)}, value "
                f"{list(net.settings.value_arch)}, {net.settings.activation}; set "
                "ppo.net_arch and ppo.activation to match)"
            )
        state[name] = tensor.clone()
    with torch.no_grad():
        policy.load_state_dict(state)
    return {"net": str(path)}


def with_value_of(net: SearchNet, path: str | Path) -> SearchNet:
    """``net`` with the value trunk and head of the search network at ``path`` (a policy
    fine-tuned by PPO keeps the value its search was trained with)."""
    from perikles_env.agents.search.net_file import load_net

    donor = load_net(path)
    if donor.settings != net.settings:
        raise InvalidConfigError(
            f"--value-from: {path} is {donor.settings}, the policy's network is {net.settings}"
        )
    state = net.state_dict()
    state.update({k: v for k, v in donor.state_dict().items() if k.startswith("value_")})
    net.load_state_dict(state)
    net.extra = {**net.extra, "value_from": {"net": str(path), "extra": donor.extra}}
    return net


def with_value_widened(net: SearchNet, path: str | Path) -> SearchNet:
    """``net`` with the value trunk of the search network at ``path`` and its value head,
    widened to ``net``'s seats: a new seat's output starts as the mean of the donor's (a
    4-player value is where a 3-, 4- and 5-player value fit starts)."""
    import torch

    from perikles_env.agents.search.net_file import load_net

    donor = load_net(path)
    if donor.settings.value_arch != net.settings.value_arch or donor.num_players > net.num_players:
        raise InvalidConfigError(
            f"--value-init: {path} has value layers {list(donor.settings.value_arch)} for "
            f"{donor.num_players} seats; the network has {list(net.settings.value_arch)} for "
            f"{net.num_players}"
        )
    state = net.state_dict()
    state.update({k: v for k, v in donor.state_dict().items() if k.startswith("value_trunk.")})
    with torch.no_grad():
        for name in ("value_head.weight", "value_head.bias"):
            old = donor.state_dict()[name]
            new = old.mean(dim=0, keepdim=True).expand(net.num_players, *old.shape[1:]).clone()
            new[: donor.num_players] = old
            state[name] = new
    net.load_state_dict(state)
    net.extra = {**net.extra, "value_init": {"net": str(path), "extra": donor.extra}}
    return net


def default_league(config: str = "default") -> dict[str, float]:
    """The opponents (``opponents.weights``, self-play entries left out) of a training
    config."""
    from perikles_env.training.ppo.config import load_config

    weights = load_config(config).opponents.weights
    return {k: float(w) for k, w in weights.items() if k not in SELF_KEYS and w > 0}


@dataclass
class ValueSamples:
    states: np.ndarray  # float16 [N, state_size]: the observation without the action block
    targets: np.ndarray  # float32 [N, num_players]: final win shares, relative seat order
    # (0 past a row's player count)
    games: np.ndarray  # int32 [N]: which recorded game each row comes from
    net_share: float  # the network seats' win shares, summed

    def __len__(self) -> int:
        return len(self.targets)


def play_value_game(
    net: SearchNet,
    seed: int,
    league: OpponentPool,
    keep: int = 40,
    agents: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, float] | None:
    """One game (module docstring, step 1): (states, targets, the network's win share) of
    ``keep`` of its positions drawn at random (all when fewer), or None when the game was
    cut off before its end (no outcome to learn). Why a sample: the ~360 positions of a
    game share one outcome, so more games teach the value more than more rows of one. The
    player count is drawn from the network's ``players`` (uniformly)."""
    rng = np.random.default_rng(seed)
    n = net.num_players if len(net.players) == 1 else int(rng.choice(net.players))
    agents = {} if agents is None else agents
    if "net" not in agents:
        agents["net"] = NetAgent(net)
    seat = int(rng.integers(n))
    others = league.sample(rng, n - 1)
    specs = others[:seat] + ["net"] + others[seat:]
    for spec in set(specs):
        if spec not in agents:
            agents[spec] = make_agent(spec)
    game = new_game(GameConfig(num_players=n, record_events=False), seed=int(rng.integers(2**63)))
    state_features = net.features[:-1]  # the value reads the state part only
    states, players = [], []

    def keep_state(game: Game, p: int) -> None:
        states.append(encode_with_features(game, p, state_features).astype(np.float16))
        players.append(p)

    TableLoop(game, [agents[spec] for spec in specs], rng, before=keep_state).run()
    if not game.is_terminal:
        return None
    shares = game.win_shares()
    rows = np.sort(rng.permutation(len(players))[:keep])
    targets = np.stack([relative_shares(shares, players[i], net.num_players) for i in rows])
    return np.stack([states[i] for i in rows]), targets, float(shares[seat])


def record_values(
    net: SearchNet,
    games: int,
    seed: int = 0,
    league: Mapping[str, float] | Sequence[str] | str | None = None,
    keep: int = 40,
    progress: bool = False,
) -> ValueSamples:
    """``games`` recorded games (module docstring, step 1); seeds from ``SeedSequence(seed)``."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InvalidConfigError(f"games must be a positive int, got {games!r}")
    pool = OpponentPool.of(league if league is not None else default_league())
    agents: dict[str, Any] = {}
    parts: list[tuple[np.ndarray, np.ndarray, float]] = []
    start = time.perf_counter()
    for i, s in enumerate(np.random.SeedSequence(seed).spawn(games)):
        part = play_value_game(net, int(s.generate_state(1)[0]), pool, keep, agents)
        if part is not None:
            parts.append(part)
        if progress and ((i + 1) % 10 == 0 or i + 1 == games):
            rows = sum(len(p[1]) for p in parts)
            print(
                f"warm start: {i + 1}/{games} games, {rows:,} positions, "
                f"{time.perf_counter() - start:.0f} s",
                flush=True,
            )
    if not parts:
        raise InvalidConfigError("no recorded game reached its end")
    return ValueSamples(
        states=np.concatenate([p[0] for p in parts]),
        targets=np.concatenate([p[1] for p in parts]),
        games=np.concatenate([np.full(len(p[1]), i, dtype=np.int32) for i, p in enumerate(parts)]),
        net_share=sum(p[2] for p in parts),
    )


def value_loss(net: SearchNet, samples: ValueSamples, rows: np.ndarray, batch: int = 4096) -> float:
    """Mean value cross-entropy of ``net`` on ``rows`` of ``samples`` (no gradients)."""
    import torch

    total = 0.0
    with torch.no_grad():
        for start in range(0, len(rows), batch):
            idx = rows[start : start + batch]
            logits = net.value_logits(torch.from_numpy(samples.states[idx]))
            loss = soft_cross_entropy(logits, torch.from_numpy(samples.targets[idx]))
            total += float(loss) * len(idx)
    return total / max(1, len(rows))


def fit_values(
    net: SearchNet,
    samples: ValueSamples,
    epochs: int = 4,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """Fit the value (trunk and head) of ``net`` in place (module docstring, step 2),
    keeping the epoch with the lowest held-out loss; returns the losses: equal shares,
    held-out before / after / per epoch, training per epoch."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    count = int(samples.games.max()) + 1
    held = set(range(count - max(1, count // 10), count)) if count > 1 else set()
    is_held = np.isin(samples.games, list(held))
    train, test = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    params = list(net.value_trunk.parameters()) + list(net.value_head.parameters())
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    report: dict[str, Any] = {
        "equal_shares": round(float(np.log(players_of(samples.states[test])).mean()), 4)
        if len(test) else None,
        "held_out_before": round(value_loss(net, samples, test), 4) if len(test) else None,
        "epochs": [],
        "held_out": [],
    }
    best = (report["held_out_before"], _value_state(net))
    net.train()
    for epoch in range(epochs):
        order = rng.permutation(train)
        total = 0.0
        for start in range(0, len(order), batch_size):
            idx = np.sort(order[start : start + batch_size])
            logits = net.value_logits(torch.from_numpy(samples.states[idx]))
            loss = soft_cross_entropy(logits, torch.from_numpy(samples.targets[idx]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        report["epochs"].append(round(total / max(1, len(order)), 4))
        if len(test):
            net.eval()
            report["held_out"].append(round(value_loss(net, samples, test), 4))
            net.train()
            if report["held_out"][-1] < best[0]:
                best = (report["held_out"][-1], _value_state(net))
        if progress:
            print(
                f"warm start: value epoch {epoch + 1}/{epochs}, loss {report['epochs'][-1]:.4f}"
                + (f", held out {report['held_out'][-1]:.4f}" if len(test) else ""),
                flush=True,
            )
    net.eval()
    if len(test):
        net.load_state_dict({**net.state_dict(), **best[1]})
    report["held_out_after"] = round(value_loss(net, samples, test), 4) if len(test) else None
    report["train_rows"], report["held_out_rows"] = len(train), len(test)
    return report


def _value_state(net: SearchNet) -> dict[str, Any]:
    return {k: v.clone() for k, v in net.state_dict().items() if k.startswith("value_")}


def warm_start(
    ppo: str | Path,
    out: str | Path,
    games: int = 1000,
    epochs: int = 4,
    keep: int = 40,
    seed: int = 0,
    num_players: int = 4,
    league: Mapping[str, float] | None = None,
    progress: bool = True,
    players: Sequence[int] = (),
    value_init: str | Path | None = None,
) -> dict[str, Any]:
    """Copy the PPO model at ``ppo``, fit its value on ``games`` games at the counts
    ``players`` (default: ``num_players`` only), save to ``out``. ``value_init``: a search
    network whose value the fit starts from (``with_value_widened``)."""
    start = time.perf_counter()
    net = net_from_ppo(ppo, num_players, players)
    if value_init is not None:
        net = with_value_widened(net, value_init)
    league = dict(league) if league is not None else default_league()
    samples = record_values(net, games, seed, league, keep, progress)
    losses = fit_values(net, samples, epochs=epochs, seed=seed, progress=progress)
    summary = {
        **net.extra,
        "games": games,
        "positions": len(samples),
        "positions_per_game": keep,
        "league": league,
        "seed": seed,
        "net_win_rate": round(samples.net_share / (int(samples.games.max()) + 1), 4),
        "value_loss": losses,
        "seconds": round(time.perf_counter() - start, 1),
    }
    save_net(out, net, extra={"warm_start": summary})
    if progress:
        print(
            f"warm start: value loss held out {losses['held_out_before']} -> "
            f"{losses['held_out_after']} (equal shares {losses['equal_shares']}); "
            f"wrote {out} ({Path(out).stat().st_size / 1e6:.1f} MB)",
            flush=True,
        )
    return summary


def arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m perikles_env.training.search_warmstart",
        description="Build a search network from a `make train` PPO model and fit its value.",
    )
    parser.add_argument("--ppo", required=True, help="the PPO model file (model.zip)")
    parser.add_argument("--out", required=True, help="the search network file to write")
    parser.add_argument("--games", type=int, default=1000, help="recorded games (default 1000)")
    parser.add_argument("--epochs", type=int, default=4, help="value epochs (default 4)")
    parser.add_argument("--keep", type=int, default=40, help="positions kept per game (default 40)")
    parser.add_argument(
        "--players", type=_counts, default=(4,),
        help="the player counts the network plays: 4, or 3,4,5 (default 4)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--league", default="default", help="training config whose opponents fill the seats"
    )
    parser.add_argument(
        "--value-from",
        help="a search network (.pkn) whose value to keep instead of fitting one (no games)",
    )
    parser.add_argument(
        "--value-init",
        help="a search network (.pkn) whose value the fit starts from (its head widened to "
        "the largest of --players)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    try:
        if args.value_from:
            net = net_from_ppo(args.ppo, max(args.players), args.players)
            net = with_value_of(net, args.value_from)
            save_net(args.out, net)
            print(f"wrote {args.out}: the policy of {args.ppo}, the value of {args.value_from}")
            return 0
        warm_start(
            args.ppo,
            args.out,
            args.games,
            args.epochs,
            args.keep,
            args.seed,
            max(args.players),
            default_league(args.league),
            players=args.players,
            value_init=args.value_init,
        )
    except (ModelFileError, InvalidConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(sorted({int(c) for c in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"player counts like 4 or 3,4,5, got {text!r}") from None
    if not counts or counts[0] < 3 or counts[-1] > 5:
        raise argparse.ArgumentTypeError(f"player counts in 3..5, got {text!r}")
    return counts


if __name__ == "__main__":
    raise SystemExit(main())
