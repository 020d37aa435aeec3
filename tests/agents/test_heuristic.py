"""The heuristic player: legal, deterministic, leak-free, and sensible in set situations."""

from __future__ import annotations

import numpy as np
import pytest
from engine.builders import game_at_commit, klass, new_game  # tests/engine (rootdir-relative)

from perikles_env.agents import HeuristicAgent, HeuristicParams, PlayerView, make_agent
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.phases import Phase
from perikles_env.errors import InvalidConfigError
from tests.agents.helpers import on_engine, play
from tests.agents.hidden import perturb_hidden

ENGINES = ["python", "native"]  # the Python heuristic, and the C++ one on the C++ core


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_heuristic_games_are_legal(n: int, engine: str) -> None:
    """Every decision over whole games is legal (checked apply raises otherwise)."""
    for seed in range(3):
        specs = ["heuristic"] + ["random"] * (n - 1)
        decisions = sum(1 for _ in play(specs, seed, backend=engine))
        assert decisions > 100


def test_heuristic_is_deterministic_for_a_seed(engine: str) -> None:
    a = [action for _, _, action in play(["heuristic:noise=0.5"] * 4, seed=4, backend=engine)]
    b = [action for _, _, action in play(["heuristic:noise=0.5"] * 4, seed=4, backend=engine)]
    assert a == b


def test_both_engines_play_the_same_heuristic_games() -> None:
    """The C++ heuristic on the C++ core makes the Python heuristic's decisions, noise
    included (the tie-breaking contract, ``agents/tiebreak.py``)."""
    specs = ["heuristic", "heuristic:noise=0.3", "heuristic:spite=1.5", "random"]
    python = [action for _, _, action in play(specs, seed=12, backend="python")]
    native = [action for _, _, action in play(specs, seed=12, backend="native")]
    assert python == native and len(python) > 300


def test_heuristic_decisions_ignore_hidden_information(engine: str) -> None:
    """Same view and rng seed, different hidden components -> same decision (F)."""
    agent = HeuristicAgent()
    checked = 0
    for i, (g, p, _) in enumerate(play(["heuristic"] * 4, seed=8)):
        other = perturb_hidden(g, p, seed=i)
        g, other = on_engine(g, engine), on_engine(other, engine)
        again = agent.act_state(other, p, np.random.default_rng([8, p]))
        first = agent.act_state(g.clone(), p, np.random.default_rng([8, p]))
        assert again == first
        checked += 1
    assert checked > 200


def test_params_are_validated() -> None:
    with pytest.raises(InvalidConfigError):
        HeuristicParams(aggression=3.0)
    with pytest.raises(InvalidConfigError):
        HeuristicParams(spite="high")  # type: ignore[arg-type]
    agent = make_agent("heuristic:aggression=0.8,politics=1.5")
    assert isinstance(agent, HeuristicAgent)
    assert agent.params.aggression == 0.8 and agent.params.politics == 1.5
    assert agent.describe() == "heuristic:aggression=0.8,politics=1.5"


def _decide(g, player: int, engine: str = "python") -> int:
    return HeuristicAgent().act_state(on_engine(g, engine), player, np.random.default_rng(0))


def test_proposes_the_weakest_rival_against_itself(engine: str) -> None:
    """B.6: the winner loses as many cubes as the loser has, so with himself as alpha the
    heuristic nominates the opponent with the fewest cubes as beta."""
    g = new_game(4, seed=1)
    g.cubes = [0] * 30
    g.cand = [-1] * 12
    city = D.CORINTH
    for q, m in enumerate((6, 4, 1, 3)):
        g.cubes[city * 5 + q] = m
    g.cubes[D.ATHENS * 5 + 1] = 2  # somewhere else to propose, but less interesting
    g.cand[city * 2] = 0  # player 0 is alpha in Corinth
    g.supply = [30 - sum(g.cubes[c * 5 + q] for c in range(6)) - (q == 0) for q in range(4)]
    g.supply.append(0)  # no fifth seat
    g.phase = Phase.PROPOSE
    g.current = 0
    legal = g.legal_actions()
    choice = _decide(g, 0, engine)
    assert choice in legal
    assert choice == A.city_player(A.PROPOSE, city, 2), g.action_to_str(choice)


def test_plays_perikles_at_once(engine: str) -> None:
    """D.1: Perikles only adds cubes (VP) to Athens; nothing is gained by waiting."""
    for seed in range(30):
        g = new_game(4, seed=seed)
        while g.phase == Phase.SETUP_PLACE:
            g.apply_action(g.legal_actions()[0])
        p = g.current
        if g.special[p] == D.PERIKLES:
            assert _decide(g, p, engine) == A.PLAY_PERIKLES
            return
    pytest.fail("no seed dealt Perikles to the first picker")


def test_defends_its_own_undefended_location(engine: str) -> None:
    """C.2: an unattacked location with a main defender gives him 2 cubes; the leader of
    the owning city claims that with a counter."""
    g = game_at_commit(n=4, leaders={"athens": 0, "sparta": 1}, locations=["attica"])
    choice = _decide(g, 0, engine)
    kind, k, slot, side = A.decode(choice)
    assert kind == "PLACE" and side == A.DEFEND, g.action_to_str(choice)
    assert D.LOCATION_TILES[g.loc_display[slot]].city == D.ATHENS


def test_denies_permission_that_would_make_the_requester_main_defender(engine: str) -> None:
    """B.7.8: a requester placing first would take the tile or the bonus from the leader."""
    g = game_at_commit(n=4, leaders={"athens": 0, "sparta": 1}, locations=["attica"])
    g.current = g.step_player = 1
    g.held1 = [1, 1, 1, 1, 0]
    slot = 0
    g.apply_action_checked(A.place(klass("sparta", "H", 2), slot, A.DEFEND))
    assert g.phase == Phase.PERMISSION and g.current == 0
    assert _decide(g, 0, engine) == A.DENY


def test_battle_special_played_only_when_it_pays(engine: str) -> None:
    """D.7: Thessalian Allies gives a side a first token; the heuristic spends it for its own
    side when that side is the main defender in a close fight, never for the enemy."""
    from engine.builders import game_at_battles

    g = game_at_battles(
        leaders={"athens": 0, "sparta": 1},
        locations=["attica"],
        mains={(0, 0): 1, (0, 1): 0},
        counters=[
            (0, 0, 0, klass("sparta", "H", 3), 1),
            (0, 1, 0, klass("athens", "H", 3), 1),
        ],
        specials={0: D.THESSALIAN},
        dice=[],
    )
    if g.phase != Phase.BATTLE_SPECIAL or g.current != 0:
        pytest.skip("builder did not stop at the battle special offer")
    g.turn = 3  # the last turn: the tile has no later use
    choice = _decide(g, 0, engine)
    assert choice == A.BATTLE_TOKEN + A.DEFEND, g.action_to_str(choice)
    view = PlayerView(g, 0)
    assert view.my_special == D.THESSALIAN


def test_personality_parameters_change_play() -> None:
    """On the same commit decisions, ``aggression`` ends steps less often (commits more);
    ``politics`` changes influence choices (docs/agents.md)."""
    commits, picks = [], []
    for g, p, _ in play(["heuristic"] * 4, seed=0):
        if g.phase == Phase.COMMIT:
            commits.append((g.clone(), p))
        elif g.phase == Phase.INFLUENCE_PICK:
            picks.append((g.clone(), p))

    def decisions(spec: str, points) -> list[int]:  # noqa: ANN001
        agent = make_agent(spec)
        return [agent.act_state(g, p, np.random.default_rng(0)) for g, p in points]

    calm = decisions("heuristic:aggression=0", commits).count(A.END_STEP)
    bold = decisions("heuristic:aggression=2", commits).count(A.END_STEP)
    assert len(commits) > 30 and bold < calm
    assert decisions("heuristic:politics=0", picks) != decisions("heuristic:politics=2", picks)
