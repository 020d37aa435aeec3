"""How an agent fights: per-game counts of its force commits and won battles.

Why: win rates say *whether* a policy is good, not *where* it falls short. Perikles
splits into politics (tiles, elections, statues) and war (commits, battles); this tool
plays an agent at one seat (rotating over the games) against a fixed opponent and counts,
from the public event log, where its counters went (main/allied box x attack/defend
side), the location tiles it claimed as main attacker or defender (C.8), the cubes it
spent for extra counters (B.7.5), and its VP by source. docs/results.md ("War profiles")
has tables made with it.

    python -m perikles_env.training.war_profile \
        --agents heuristic,ppo:runs/default/model.zip,random --opponent random \
        --players 4 --games 40
"""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np

from perikles_env.agents import Decision, TableLoop, make_agent, split_specs
from perikles_env.cli import CliParser, player_count, positive_int, seed
from perikles_env.engine import GameConfig, new_game
from perikles_env.engine import actions as A
from perikles_env.errors import PeriklesError

COLUMNS = (
    ("win", "win"),
    ("place main attack", "place_main_attack"),
    ("place main defend", "place_main_defend"),
    ("place allied attack", "place_allied_attack"),
    ("place allied defend", "place_allied_defend"),
    ("claims attack", "claim_attack"),
    ("claims defend", "claim_defend"),
    ("spend cube", "spend_cube"),
    ("location VP", "location_vp"),
    ("VP", "vp"),
)


def profile(
    spec: str, opponent: str, players: int, games: int, seed: int = 500
) -> dict[str, float]:
    """Mean per-game counts for ``spec`` at seat ``g % players`` of game ``g``."""
    agent, other = make_agent(spec), make_agent(opponent)
    totals: Counter[str] = Counter()
    seat = 0

    def count(decision: Decision) -> None:
        if decision.player == seat:
            kind = A.decode(decision.action)[0]
            totals["decisions"] += 1
            totals["place_actions"] += kind == "PLACE"
            totals["spend_cube"] += kind == "SPEND_CUBE"

    for g in range(games):
        seat = g % players
        game = new_game(GameConfig(num_players=players), seed=seed + g)
        rng = np.random.default_rng(seed + g)
        seats = [agent if p == seat else other for p in range(players)]
        TableLoop(game, seats, rng, stop_at_truncation=False, on_decision=count).run()
        asked = False
        for event in game.event_log:
            if event[0] == "ask_permission":  # B.7.8: a denied request places nothing
                asked = event[1] == seat
            elif event[0] == "permission" and asked:
                totals["permission_denied"] += not event[4]
            elif event[0] == "place" and event[1] == seat:
                totals[f"place_{event[6]}_{event[5]}"] += 1
            elif event[0] == "claim" and seat in event[3]:
                totals["claim_attack" if event[4] else "claim_defend"] += 1
        totals["win"] += game.win_shares()[seat] if game.is_terminal else 0.0
        totals["vp"] += game.scores()[seat]
        totals["location_vp"] += game.location_vp(seat)
    return {key: value / games for key, value in totals.items()}


def table(rows: dict[str, dict[str, float]]) -> str:
    head = "| agent | " + " | ".join(name for name, _ in COLUMNS) + " |"
    lines = [head, "|---|" + "---:|" * len(COLUMNS)]
    for spec, row in rows.items():
        cells = [f"{100 * row.get('win', 0):.0f} %"]
        cells += [f"{row.get(key, 0):.2f}" for _, key in COLUMNS[1:]]
        lines.append(f"| {spec} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = CliParser(prog="war_profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", required=True, help="comma-separated agent specs")
    parser.add_argument("--opponent", default="random", help="agent spec for every other seat")
    parser.add_argument("--players", type=player_count, default=4)
    parser.add_argument("--games", type=positive_int, default=40)
    parser.add_argument("--seed", type=seed, default=500)
    args = parser.parse_args(argv)
    try:
        rows = {
            spec: profile(spec, args.opponent, args.players, args.games, args.seed)
            for spec in split_specs(args.agents)
        }
    except PeriklesError as exc:  # unknown agent, unreadable model file, ...
        parser.error(str(exc))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
