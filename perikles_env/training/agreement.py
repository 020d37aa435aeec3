"""Imitation agreement: how often an agent picks one of the heuristic's best actions, per
decision kind, on held-out heuristic games.

Why: win rates against the heuristic move slowly and noisily; whether a learned policy has
understood the heuristic's arithmetic (tile values, proposals, force commits) shows per
decision, long before it wins. The heuristic breaks exact ties at random
(``agents.base.pick_best``), so a choice *agrees* when it is among the heuristic's equally
best actions, not only when it is the one the heuristic happened to draw.

The games are played by heuristic players (default personality unless ``teacher`` says
otherwise) from seeds ``seed, seed + 1, ...`` (keep them away from the training seeds:
held out). At every decision of a seat with more than one legal action the candidate agent
is asked what it would do, on a copy of the game with its own generator, and the teacher's
action is then played, so the candidate never steers the game. Decisions are grouped by
``decision_kind``.

    python -m perikles_env.training.agreement --agent ppo:runs/x/model.zip --games 20
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from perikles_env.agents import Agent, TableLoop, decide, make_agent
from perikles_env.agents.base import pick_best
from perikles_env.agents.heuristic import HeuristicAgent
from perikles_env.agents.table_loop import Chooser
from perikles_env.agents.tiebreak import TIE  # scores this close to the best are ties
from perikles_env.cli import CliParser, output_file, player_count, positive_int, seed
from perikles_env.engine import Game, GameConfig, new_game
from perikles_env.engine import actions as A
from perikles_env.engine.phases import Phase
from perikles_env.errors import InvalidConfigError, PeriklesError
from perikles_env.files import write_text

_PHASE_KIND = {
    Phase.SETUP_PLACE: "setup",
    Phase.INFLUENCE_PICK: "tile_pick",
    Phase.ALKIBIADES_CUBE: "influence_special",
    Phase.ALKIBIADES_DEST: "influence_special",
    Phase.POST_PICK_SPECIAL: "influence_special",
    Phase.ANY_CITY: "tile_effect",
    Phase.ASSASSIN_TILE: "tile_effect",
    Phase.CANDIDATE_TILE: "proposal",
    Phase.PROPOSE: "proposal",
    Phase.SPARTA_CHOICE: "sparta_first",
    Phase.DEAD_POOL: "dead_pool",
    Phase.PERMISSION: "permission",
    Phase.BATTLE_SPECIAL: "battle_special",
    Phase.CASUALTY: "casualty",
}
KINDS = (
    "setup",
    "tile_pick",
    "influence_special",
    "tile_effect",
    "proposal",
    "sparta_first",
    "dead_pool",
    "commit_place",
    "commit_other",
    "permission",
    "battle_special",
    "casualty",
)


def decision_kind(phase: Phase, best: Sequence[int]) -> str:
    """The kind of a decision: its phase group; a commit step (B.7.5) is ``commit_place``
    when one of the teacher's best actions places a counter, else ``commit_other`` (end the
    step, spend a cube, Slave Revolt)."""
    if phase == Phase.COMMIT:
        return "commit_place" if any(a < A.SPEND_CUBE for a in best) else "commit_other"
    return _PHASE_KIND[phase]


def best_actions(teacher: HeuristicAgent, game: Game, player: int) -> list[int]:
    """The teacher's equally best legal actions for ``player`` (who must be to act)."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal
    scores = teacher.scores(game, player, legal)  # in C++ on a native game
    top = max(scores)
    return [a for a, s in zip(legal, scores, strict=True) if s >= top - TIE]


@dataclass
class KindTally:
    decisions: int = 0
    agreed: int = 0
    chance: float = 0.0  # sum over decisions of |best| / |legal|: a random legal choice's rate
    ties: int = 0  # decisions with more than one best action

    def add(self, agreed: bool, best: int, legal: int) -> None:
        self.decisions += 1
        self.agreed += int(agreed)
        self.chance += best / legal
        self.ties += int(best > 1)

    def row(self) -> dict[str, float | int]:
        n = max(self.decisions, 1)
        return {
            "decisions": self.decisions,
            "agreement": round(self.agreed / n, 4),
            "chance": round(self.chance / n, 4),
            "tied": round(self.ties / n, 4),
        }


@dataclass
class Agreement:
    agent: str
    teacher: str
    games: int
    players: int
    seed: int
    kinds: dict[str, KindTally] = field(default_factory=dict)

    def add(self, kind: str, agreed: bool, best: int, legal: int) -> None:
        self.kinds.setdefault(kind, KindTally()).add(agreed, best, legal)

    def to_dict(self) -> dict[str, object]:
        total = KindTally()
        for t in self.kinds.values():
            total.decisions += t.decisions
            total.agreed += t.agreed
            total.chance += t.chance
            total.ties += t.ties
        order = [k for k in KINDS if k in self.kinds]
        return {
            "agent": self.agent,
            "teacher": self.teacher,
            "games": self.games,
            "players": self.players,
            "seed": self.seed,
            "overall": total.row(),
            "kinds": {k: self.kinds[k].row() for k in order},
        }


def _tutor_seat(
    tutor: HeuristicAgent, candidate: Agent, candidate_rng: np.random.Generator, result: Agreement
) -> Chooser:
    """Every seat of an agreement game: the teacher's move, drawn from its best set with the
    play generator, once the candidate's choice in the same position (drawn with its own
    generator) is counted."""

    def tutor_move(game: Game, p: int, rng: np.random.Generator) -> int:
        best = best_actions(tutor, game, p)
        choice = int(decide(candidate, game, p, candidate_rng))
        legal = len(game.legal_actions())
        result.add(decision_kind(game.phase, best), choice in best, len(best), legal)
        return best[pick_best([0.0] * len(best), rng)]

    return tutor_move


def measure_agreement(
    agent: str,
    games: int,
    players: int = 4,
    seed: int = 900_000,
    teacher: str = "heuristic",
) -> Agreement:
    """Agreement of the agent ``agent`` (a spec) with ``teacher`` (a heuristic spec) over
    ``games`` teacher games seeded ``seed + i``. Only decisions with 2+ legal actions
    count."""
    if games < 1:
        raise InvalidConfigError(f"games must be >= 1, got {games}")
    tutor = make_agent(teacher)
    if not isinstance(tutor, HeuristicAgent):
        raise InvalidConfigError(f"the teacher must be a heuristic spec, got {teacher!r}")
    if tutor.params.noise > 0:
        raise InvalidConfigError("the teacher must play without noise (its best set is exact)")
    candidate = make_agent(agent)
    result = Agreement(agent, teacher, games, players, seed)
    for i in range(games):
        game = new_game(GameConfig(num_players=players, record_events=False), seed=seed + i)
        play_rng = np.random.default_rng([seed, i, 0])
        candidate_rng = np.random.default_rng([seed, i, 1])
        candidate.reset()
        seat = _tutor_seat(tutor, candidate, candidate_rng, result)
        TableLoop(game, [seat] * players, play_rng, skip_forced=True).run()
    return result


def markdown(report: dict[str, object]) -> str:
    """The agreement report as a markdown table."""
    lines = [
        f"Agreement of `{report['agent']}` with `{report['teacher']}`: {report['games']} "
        f"games, {report['players']} players, seeds {report['seed']}+",
        "",
        "| decision kind | decisions | agreement % | chance % | tied % |",
        "|---|---:|---:|---:|---:|",
    ]
    rows = dict(report["kinds"])  # type: ignore[arg-type]
    rows["overall"] = report["overall"]
    for kind, row in rows.items():
        lines.append(
            f"| {kind} | {row['decisions']} | {100 * row['agreement']:.1f} | "
            f"{100 * row['chance']:.1f} | {100 * row['tied']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = CliParser(prog="agreement", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="agent spec, e.g. ppo:runs/x/model.zip")
    parser.add_argument("--games", type=positive_int, default=20)
    parser.add_argument("--players", type=player_count, default=4)
    parser.add_argument("--seed", type=seed, default=900_000, help="first game seed (held out)")
    parser.add_argument("--teacher", default="heuristic", help="heuristic spec")
    parser.add_argument("--json", type=output_file, help="also write the report as JSON here")
    args = parser.parse_args(argv)
    try:
        report = measure_agreement(args.agent, args.games, args.players, args.seed, args.teacher)
    except PeriklesError as exc:  # unknown agent, unreadable model file, ...
        parser.error(str(exc))
    data = report.to_dict()
    print(markdown(data), end="")
    if args.json:
        write_text(args.json, json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
