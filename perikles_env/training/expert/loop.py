"""The iterations of expert iteration: self-play with search -> store the positions ->
train on the replay window -> (every ``eval.every``) evaluate -> checkpoint; then the
final network and the report.

Why per-iteration seeds: the games and the shuffle of iteration ``i`` are seeded by
``SeedSequence([seed, i])``, so a run resumed from the checkpoint of iteration ``i`` (the
network, Adam's moments, the window's data files, the history) continues exactly as the
uninterrupted run would have. A run folder is never reused (``new_run_dir``); its
``status.json`` says running / interrupted / failed / complete.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from perikles_env.agents.registry import SEARCH_PLAY_DEFAULTS
from perikles_env.agents.search import SearchParams
from perikles_env.agents.search.net_file import load_net, save_net
from perikles_env.agents.search.network import SearchNet
from perikles_env.errors import InvalidConfigError
from perikles_env.files import write_text
from perikles_env.jobs.budget import Budget
from perikles_env.jobs.evaluator import Evaluator
from perikles_env.jobs.run_folder import (
    COMPLETE,
    FAILED,
    INTERRUPTED,
    RUNNING,
    new_run_dir,
    read_status,
    write_status,
)

from . import checkpoint, dataset
from .config import ExpertConfig, config_from_dict
from .expert_report import write_report
from .learner import losses, make_optimizer, train
from .population import PAST, Population, missing_snapshot
from .self_play_games import play_sharded

CONFIG = "config.yaml"
DATA = "data"
NET = "net.pkn"
ANCHOR = "anchor.pkn"  # the first network, kept while learn.anchor_weight pulls towards it
PROG = "perikles-search-train"


def _data_path(run_dir: Path, iteration: int) -> Path:
    return run_dir / DATA / f"iter_{iteration:04d}.npz"


def check_warm_start(config: ExpertConfig) -> SearchNet | None:
    """Read the warm start's file before any run folder exists, so a missing, damaged or
    unfitting file changes nothing: the network of ``warm_start.net``, else None (a
    ``warm_start.ppo`` model is checked to be one the search network can copy)."""
    ws = config.warm_start
    ws.check_files()
    if ws.ppo:
        from ..search_warmstart import net_from_ppo

        net_from_ppo(ws.ppo, config.net.num_players, config.net.player_counts)
    if not ws.net:
        return None
    net = load_net(ws.net)
    if net.players != config.net.player_counts:
        raise InvalidConfigError(
            f"warm_start.net: {ws.net} plays {'/'.join(map(str, net.players))}-player games, "
            f"net.players is {list(config.net.player_counts)}"
        )
    return net


def initial_net(
    config: ExpertConfig, loaded: SearchNet | None, run_dir: Path, progress: bool
) -> tuple[SearchNet, str]:
    """The first network and where it came from: ``loaded`` (``warm_start.net``), the
    warm start of ``warm_start.ppo`` (training/search_warmstart.py), or random weights."""
    import torch

    ws = config.warm_start
    if loaded is not None:
        return loaded, f"net:{ws.net}"
    if ws.ppo:
        from ..search_warmstart import warm_start

        out = run_dir / "warm_start.pkn"
        warm_start(
            ws.ppo, out, games=ws.games, epochs=ws.epochs, seed=config.seed,
            num_players=config.net.num_players, progress=progress,
            players=config.net.player_counts,
        )
        return load_net(out), f"ppo:{ws.ppo} (value fitted on {ws.games} games)"
    torch.manual_seed(config.seed)
    return SearchNet(config.net.settings()).eval(), ""


def eval_specs(config: ExpertConfig, path: Path) -> dict[str, str]:
    """Label -> agent spec of the network at ``path`` for evaluation: the run's search
    settings, each spelt out where the ``search`` spec's play defaults differ."""
    defaults = {**asdict(SearchParams()), **SEARCH_PLAY_DEFAULTS}
    params = {**config.search.model_dump(), "sims": config.eval.sims}
    extra = "".join(
        f",{k}={v}" for k, v in params.items() if k != "batch" and defaults.get(k) != v
    )
    specs = {"search": f"search:model={path}{extra}"}
    if config.eval.raw:
        specs["net"] = f"net:{path}"
    return specs


def evaluate_net(
    config: ExpertConfig, path: Path, evaluator: Evaluator, progress: bool = False
) -> dict[str, dict[str, Any]]:
    """Win rate and 95 % CI of the network (with and without search) against each
    ``eval.opponents`` entry filling the other seats, at each count the network plays
    (labelled with the count when there are several). With ``progress``, a line as each
    starts: an evaluation with search can take longer than many iterations."""
    out: dict[str, dict[str, Any]] = {}
    counts = config.net.player_counts
    specs = eval_specs(config, path)
    lines = len(counts) * len(config.eval.opponents) * len(specs)
    for n in counts:
        at = f" at {n}" if len(counts) > 1 else ""
        for opponent in config.eval.opponents:
            for label, spec in specs.items():
                if progress:
                    print(f"{PROG}: evaluating {path.name}: {label} vs {opponent}{at}, "
                          f"{config.eval.games} games ({len(out) + 1}/{lines})", flush=True)
                result = evaluator.evaluate(
                    [spec, opponent], players=n, games=config.eval.games,
                    seed=config.eval.seed, workers=config.eval.workers, plots=False,
                )
                stats = result.matchups[0].agents[spec]
                out[f"{label} vs {opponent}{at}"] = {
                    "win_rate": round(stats.win_rate, 4),
                    "ci": [round(x, 4) for x in stats.win_ci],
                    "games": len(result.records),
                }
    return out


class Run:
    """One run folder's iterations (new or resumed)."""

    def __init__(
        self, config: ExpertConfig, run_dir: Path, net: SearchNet, command: str,
        warm: str, progress: bool, evaluator: Evaluator, anchor: SearchNet | None = None,
    ) -> None:
        self.config, self.run_dir, self.net, self.command = config, run_dir, net, command
        self.anchor = anchor
        self.warm, self.progress, self.evaluator = warm, progress, evaluator
        self.optimizer = make_optimizer(net, config.learn.learning_rate)
        self.window = dataset.ReplayWindow(config.replay.window)
        self.history: list[dict[str, Any]] = []
        self.seconds = 0.0
        self.iteration = 0
        self.stopped_by_time = False
        self.population = Population(config.selfplay, run_dir)

    def start(self) -> None:
        """A new run: its first network joins the league's ``past`` seats."""
        if self.population.wants_snapshot(0):
            self.population.add_snapshot(0, self.net)

    def restore(self, ckpt: checkpoint.Checkpoint) -> None:
        try:
            self.net.load_state_dict(ckpt.net.state_dict())
            self.optimizer.load_state_dict(ckpt.optimizer)
        except (RuntimeError, ValueError, KeyError) as exc:
            raise checkpoint.CheckpointError(
                f"{ckpt.path} does not fit this run's network: {exc}"
            ) from exc
        self.iteration, self.history = ckpt.iteration, ckpt.run["history"]
        self.seconds = float(ckpt.run["seconds"])
        self.population.restore(ckpt.run.get("population"))
        for i in ckpt.run["window"]:
            data = dataset.load(_data_path(self.run_dir, i), self.net.state_size,
                                self.net.num_players)
            self.window.add(i, data)

    def step(self) -> dict[str, Any]:
        """One iteration (module docstring); returns its history record."""
        import torch

        c, i = self.config, self.iteration + 1
        torch.set_num_threads(c.torch_threads)  # an evaluation's agents set their own
        start = time.perf_counter()
        seeds = np.random.SeedSequence([c.seed, i]).generate_state(2)
        league = self.population.league()
        data, stats = play_sharded(
            self.net, c.search.params(), league, c.selfplay.games,
            c.selfplay.parallel, int(seeds[0]), c.selfplay.workers, c.torch_threads,
        )
        league_record = self.population.summary(league)  # weights and scores it was drawn by
        self.population.record(stats.versus)
        dataset.save(_data_path(self.run_dir, i), data)
        self.window.add(i, data)
        held_out = (losses(self.net, data, c.learn.value_weight, anchor=self.anchor)
                    if len(data) else None)
        learn = train(
            self.net, self.optimizer, self.window.data(), c.learn.epochs, c.learn.batch_size,
            c.learn.value_weight, int(seeds[1]), self.anchor, c.learn.anchor_weight,
        )
        learn["held_out"] = held_out  # the new positions, before the update learnt them
        record: dict[str, Any] = {
            "iteration": i,
            "games": stats.games,
            "truncated": stats.truncated,
            "positions": len(data),
            "window_rows": len(self.window),
            "window_mb": round(sum(d.nbytes for _, d in self.window.parts) / 1e6, 1),
            "searcher_share": round(stats.searcher_share / max(1, stats.games), 4),
            "seats": self.population.by_label(stats.seats),
            "league": league_record,
            "learn": learn,
        }
        self.iteration = i
        if self.population.wants_snapshot(i):
            self.population.add_snapshot(i, self.net)
        used = self.seconds + time.perf_counter() - start
        last = i == c.budget.iterations or bool(c.budget.minutes and used >= 60 * c.budget.minutes)
        if c.eval.every and (i % c.eval.every == 0 or last):
            path = save_net(checkpoint.net_path(self.run_dir, i), self.net)
            record["eval"] = evaluate_net(c, path, self.evaluator, self.progress)
        self.seconds += time.perf_counter() - start
        record["seconds"] = round(self.seconds, 1)
        self.history.append(record)
        checkpoint.save(self.run_dir, i, self.net, self.optimizer, self._run_state(),
                        c.keep_checkpoints)
        self._drop_old_data()
        return record

    def _run_state(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 3), "window": self.window.iterations,
                "history": self.history, "warm_start": self.warm,
                "population": self.population.state()}

    def _drop_old_data(self) -> None:
        """Data files (and league snapshots) no kept checkpoint needs."""
        kept = sorted((self.run_dir / checkpoint.FOLDER).glob("ckpt_*.zip"))
        oldest = int(kept[0].stem.split("_")[1]) if kept else self.iteration
        for path in (self.run_dir / DATA).glob("iter_*.npz"):
            if int(path.stem.split("_")[1]) <= oldest - self.config.replay.window:
                path.unlink(missing_ok=True)
        self.population.drop_files_before(oldest)

    def loop(self) -> None:
        c = self.config
        budget = Budget(minutes=c.budget.minutes, iterations=c.budget.iterations, unit="positions")
        while self.iteration < c.budget.iterations:
            if c.budget.minutes and self.seconds >= 60 * c.budget.minutes:
                self.stopped_by_time = True
                break
            record = self.step()
            if self.progress:
                rows = sum(h["positions"] for h in self.history)
                rates = ", ".join(
                    f"{k} {100 * v['win_rate']:.0f} %" for k, v in record.get("eval", {}).items()
                )
                learn = record["learn"]
                loss = (f"loss policy {learn['policy'][-1]:.3f} value {learn['value'][-1]:.3f}"
                        if learn["policy"] else "no positions")
                if learn.get("held_out"):
                    new = learn["held_out"]
                    loss += f" (new positions {new['policy']:.3f} / {new['value']:.3f})"
                    if "anchor_kl" in new:
                        loss += f"; KL from the anchor {new['anchor_kl']:.3f}"
                print(
                    f"{PROG}: " + budget.line(self.seconds, rows, self.iteration)
                    + f"; {loss}" + (f"; {rates}" if rates else ""),
                    flush=True,
                )

    def summary(self, status: str) -> dict[str, Any]:
        c = self.config
        history = self.history
        if status == INTERRUPTED:  # what --resume continues from: the newest checkpoint
            saved = [p.stem for p in (self.run_dir / checkpoint.FOLDER).glob("ckpt_*.zip")]
            last = max((int(name.split("_")[1]) for name in saved), default=0)
            history = [h for h in history if h["iteration"] <= last]
        return {
            "name": c.name,
            "status": status,
            "run_dir": str(self.run_dir),
            "command": self.command,
            "iterations": history[-1]["iteration"] if history else 0,
            "budget_iterations": c.budget.iterations,
            "seconds": history[-1]["seconds"] if history else 0.0,
            "stopped_by_time": self.stopped_by_time,
            "warm_start": self.warm,
            "net": str(self.run_dir / NET) if status == COMPLETE else None,
            "history": history,
            "config": c.to_dict(),
            "config_yaml": yaml.safe_dump(c.to_dict(), sort_keys=False),
        }


def resumable_checkpoint(run_dir: Path, config: ExpertConfig) -> checkpoint.Checkpoint | None:
    """The checkpoint ``--resume`` continues from (None: the run was stopped before its
    first one, so it starts again at iteration 1 in its folder). Refused: a run still
    running, a complete run with nothing left to do under ``config``'s budget, a folder
    whose checkpoints are all damaged, a league snapshot gone from the folder."""
    status = read_status(run_dir)
    state = status.get("status")
    if state == RUNNING:
        raise InvalidConfigError(
            f"--resume: {run_dir} is still running (process {status.get('pid')} on "
            f"{status.get('host')})"
        )
    if not list((run_dir / checkpoint.FOLDER).glob("ckpt_*.zip")):
        if state == COMPLETE:
            raise InvalidConfigError(f"--resume: {run_dir} is complete but has no checkpoint")
        return None
    ckpt = checkpoint.latest(run_dir)
    gone = missing_snapshot(run_dir, ckpt.run.get("population"))
    if gone is not None and PAST in config.selfplay.league:
        raise InvalidConfigError(f"--resume: the league's snapshot {gone} is missing")
    budget = config.budget
    spent = bool(budget.minutes and float(ckpt.run["seconds"]) >= 60 * budget.minutes)
    if state == COMPLETE and (ckpt.iteration >= budget.iterations or spent):
        raise InvalidConfigError(
            f"--resume: {run_dir} is already complete ({ckpt.iteration} iterations, "
            f"budget.iterations={budget.iterations}): nothing to resume; extend it with "
            f"--override budget.iterations={ckpt.iteration + 1} (or a larger budget.minutes)"
        )
    return ckpt


def run(
    config: ExpertConfig | None = None,
    resume: str | Path | None = None,
    command: str = "",
    progress: bool | None = None,
    overrides: Sequence[str] = (),
    *,
    evaluator: Evaluator,
) -> Path:
    """Start a new run of ``config`` or continue the run folder ``resume`` (its own config,
    with ``overrides`` such as ``budget.iterations=20``), evaluating with ``evaluator``;
    returns the run folder. The final network is ``<run>/net.pkn``."""
    import torch

    ckpt: checkpoint.Checkpoint | None = None
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / CONFIG).is_file():
            raise InvalidConfigError(f"--resume: {run_dir} is not an expert-iteration run folder")
        saved = yaml.safe_load((run_dir / CONFIG).read_text(encoding="utf-8"))
        try:
            config = config_from_dict(saved, list(overrides))
        except InvalidConfigError as exc:
            raise InvalidConfigError(f"{run_dir / CONFIG}: {exc}") from None
        ckpt = resumable_checkpoint(run_dir, config)
        if ckpt is not None and config.learn.anchor_weight > 0 and not (run_dir / ANCHOR).is_file():
            raise InvalidConfigError(
                f"--resume: learn.anchor_weight needs {run_dir / ANCHOR} (the network the run "
                "started from), which is missing: a run started without an anchor cannot "
                "take one later"
            )
        if ckpt is None:  # killed before its first checkpoint: iteration 1 again, same seeds
            loaded = check_warm_start(config)
            print(f"{PROG}: {run_dir} has no checkpoint yet: starting it again at iteration 1",
                  file=sys.stderr)
    elif config is None:
        raise InvalidConfigError("run needs a config or a run folder to resume")
    else:
        loaded = check_warm_start(config)
        run_dir = new_run_dir(config.out, config.name)
    show = config.progress_bar if progress is None else progress
    torch.set_num_threads(config.torch_threads)
    write_text(run_dir / CONFIG, yaml.safe_dump(config.to_dict(), sort_keys=False))
    write_status(run_dir, RUNNING, command=command)
    state: Run | None = None
    try:
        if ckpt is None:
            net, warm = initial_net(config, loaded, run_dir, show)
        else:
            net, warm = ckpt.net, ckpt.run["warm_start"]
        anchor = None
        if config.learn.anchor_weight > 0:
            if ckpt is None:
                save_net(run_dir / ANCHOR, net)
            anchor = load_net(run_dir / ANCHOR).eval().requires_grad_(False)
        torch.set_num_threads(config.torch_threads)
        state = Run(config, run_dir, net, command, warm, show, evaluator, anchor)
        if ckpt is not None:
            state.restore(ckpt)
        else:
            state.start()
        state.loop()
        save_net(run_dir / NET, state.net, extra={"expert_iteration": {
            "run": str(run_dir), "iterations": state.iteration, "warm_start": warm,
            "command": command}})
        write_report(run_dir, state.summary(COMPLETE))
    except KeyboardInterrupt:
        write_status(run_dir, INTERRUPTED, command=command)
        if state is not None:  # the report says how far the run got: its newest checkpoint
            write_report(run_dir, state.summary(INTERRUPTED))
        print(f"{PROG}: interrupted; continue with: {PROG} --resume {shlex.quote(str(run_dir))}",
              file=sys.stderr)
        raise
    except BaseException as exc:
        write_status(run_dir, FAILED, command=command, error=f"{type(exc).__name__}: {exc}")
        raise
    write_status(run_dir, COMPLETE, command=command, iterations=state.iteration)
    return run_dir
