"""Seeded random-play harness: declared invariants over many games, 3/4/5 players.

Every game is played by a uniform random policy over ``legal_actions()`` seeded from the game
seed, so a failure names (players, seed) and replays exactly. Checked:

* after EVERY action: ``check_invariants`` (docs/rules.md Appendix 2) and ``check_transition``
  (relationships never flip within a turn, defeats/statues/claims never go back);
* every decision: a non-empty, sorted, duplicate-free legal list inside the ranges the phase
  accepts (docs/actions.md); terminal states have none;
* legality sweep over all 957 ids (``apply_action_checked`` accepts each listed action,
  rejects every other id with IllegalActionError naming phase/player/action, and leaves the
  state unchanged): on every decision of one game per player count, on sampled decisions
  of the others;
* ``clone() == original`` and the JSON round trip (``json.dumps``/``loads`` of ``to_dict``,
  ``from_dict``), and that play continued from either copy ends byte-identical;
* game length <= ``MAX_GAME_DECISIONS``; turns 1..3, early end only with Athens or Sparta at
  >= 4 defeats (B.9 step 5); 3 x 7 location outcomes or fewer if early (Appendix 2);
  score bounds and the B.10 score formula with statue value = track (A.2, E2);
* determinism: same seed + same actions -> identical ``json.dumps(to_dict())`` bytes;
  different seeds -> different games.

The default run plays 24 games per player count in chunks (one test per chunk, friendly to
pytest-xdist); ``-m slow`` plays 10,000 per player count with the cheaper checks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

from perikles_env.engine import MAX_GAME_DECISIONS, NUM_ACTIONS, Game, GameConfig, Phase, new_game
from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.game import PHASE_ACTION_RANGES
from perikles_env.engine.invariants import (
    InvariantError,
    check_history,
    check_invariants,
    check_transition,
    relationship_snapshot,
)
from perikles_env.engine.rng import Rng
from perikles_env.errors import IllegalActionError
from tests.engine.builders import (
    klass,
    main_defender_allied_by_permission,
)

PLAYER_COUNTS = (3, 4, 5)
GAMES_PER_COUNT = 24
CHUNK = 12
SLOW_GAMES_PER_COUNT = 10_000
SLOW_CHUNK = 1_000
POLICY_SALT = 1_000_000  # the policy of game `seed` is Rng(POLICY_SALT + seed)
SAMPLE_SALT = 2_000_000  # which decisions get the sampled (expensive) checks
FULL_SWEEP_SEEDS = frozenset({0})  # games swept over all 957 ids at every decision
IS_LEGAL_EVERY = 64  # is_legal(a) == (a in legal) for all ids on every 64th decision
CLONE_EVERY = 4  # clone() == original on every 4th decision
JSON_EVERY = 64  # JSON round trip on every 64th decision
REPLAY_EVERY_NTH_GAME = 4  # determinism replay of the recorded actions
FORK_EVERY_NTH_GAME = 4  # play on from a clone and a JSON copy at a random decision


def _ids_of(kinds: tuple[str, ...]) -> frozenset[int]:
    return frozenset(a for kind in kinds for a in range(A.RANGES[kind][0], sum(A.RANGES[kind])))


_ALLOWED = {phase: _ids_of(kinds) for phase, kinds in PHASE_ACTION_RANGES.items()}
# B.10: 30 cubes + every location tile + a statue in every city every turn at full value.
SCORE_UPPER_BOUND = (
    D.CUBES_PER_PLAYER
    + sum(t.vp for t in D.LOCATION_TILES)
    + D.NUM_TURNS * sum(track[0] for track in D.STATUE_TRACKS)
)


@dataclass
class GameRecord:
    seed: int
    actions: list[int] = field(default_factory=list)
    final: Game | None = None


def state_bytes(g: Game) -> str:
    return json.dumps(g.to_dict(), sort_keys=True, separators=(",", ":"))


def json_copy(g: Game) -> Game:
    return Game.from_dict(json.loads(json.dumps(g.to_dict())))


def finish_randomly(g: Game, policy: Rng) -> None:
    while not g.is_terminal:
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])


# ---- per-decision checks --------------------------------------------------------------------


def check_decision(g: Game, legal: list[int]) -> None:
    assert g.current_player is not None and 0 <= g.current_player < g.n
    assert legal, f"{g.phase.name}: decision without a legal action"
    assert legal == sorted(set(legal)), f"{g.phase.name}: legal list not sorted/unique"
    allowed = _ALLOWED[g.phase]
    outside = [a for a in legal if a not in allowed]
    assert not outside, f"{g.phase.name}: legal ids outside the phase's ranges {outside}"


def sweep_all_ids(g: Game, legal: list[int], check_successors: bool) -> None:
    """apply_action_checked accepts exactly the listed ids; rejections change nothing."""
    snapshot = g.clone()
    legal_set = set(legal)
    for action in range(NUM_ACTIONS):
        assert g.is_legal(action) == (action in legal_set), g.action_to_str(action)
        if action in legal_set:
            successor = g.clone()
            successor.apply_action_checked(action)
            # Commit steps can list 100+ placements: check every 8th successor there.
            if check_successors and (g.phase != Phase.COMMIT or action % 8 == 0):
                check_invariants(successor)
            continue
        try:
            g.apply_action_checked(action)
        except IllegalActionError as error:
            assert error.phase == g.phase.name and error.player == g.current_player
            assert error.action == action and error.legal == legal
        else:
            raise AssertionError(f"{g.phase.name}: illegal {g.action_to_str(action)} accepted")
    for bad in (-1, NUM_ACTIONS, True, 1.0, "0", None):
        with pytest.raises(IllegalActionError):
            g.apply_action_checked(bad)
    assert g == snapshot, "a rejected action changed the state"


def check_is_legal_matches_list(g: Game, legal: list[int]) -> None:
    legal_set = set(legal)
    wrong = [a for a in range(NUM_ACTIONS) if g.is_legal(a) != (a in legal_set)]
    assert not wrong, f"{g.phase.name}: is_legal disagrees with legal_actions on {wrong[:10]}"


def check_copies(g: Game, with_json: bool) -> None:
    copy = g.clone()
    assert copy == g and copy is not g
    if with_json:
        restored = json_copy(g)
        assert restored == g
        assert state_bytes(restored) == state_bytes(g)


# ---- end-of-game checks --------------------------------------------------------------------


def check_final(g: Game, decisions: int) -> None:
    assert g.is_terminal and g.current_player is None and g.legal_actions() == []
    assert 1 <= decisions <= MAX_GAME_DECISIONS, f"{decisions} decisions"
    assert 1 <= g.turn <= D.NUM_TURNS
    if g.turn < D.NUM_TURNS:  # B.9 step 5: early end only on 4 defeats of Athens/Sparta
        assert max(g.defeats[D.ATHENS], g.defeats[D.SPARTA]) >= 4, g.defeats
    assert sum(g.loc_done) == D.LOCATION_SLOTS * g.turn  # 3 x 7 outcomes, fewer if early
    scores = g.scores()
    assert len(scores) == g.n
    assert all(0 <= s <= SCORE_UPPER_BOUND for s in scores), scores
    for p in range(g.n):  # B.10 with statue value = track[defeats] or 0 (A.2, E2)
        statues = 0
        for c in range(D.NUM_CITIES):
            track = D.STATUE_TRACKS[c]
            value = track[g.defeats[c]] if g.defeats[c] < len(track) else 0
            statues += g.statues[c * D.MAX_PLAYERS + p] * value
        cubes = sum(g.cubes[c * D.MAX_PLAYERS + p] for c in range(D.NUM_CITIES))
        assert scores[p] == cubes + g.location_vp(p) + statues
        assert g.statue_count(p) <= D.NUM_TURNS * D.NUM_CITIES
    best = max(scores)
    assert g.winners() and all(scores[p] == best for p in g.winners())
    with pytest.raises(IllegalActionError):
        g.apply_action_checked(A.END_STEP)
    check_invariants(g)
    check_history(g)


# ---- the harness ---------------------------------------------------------------------------


def play_checked(n: int, seed: int, full_sweep: bool) -> GameRecord:
    """One fully checked random game; returns its action list and final state."""
    g = new_game(GameConfig(num_players=n), seed=seed)
    check_invariants(g)
    policy = Rng(POLICY_SALT + seed)
    sampler = Rng(SAMPLE_SALT + seed)
    sweep_at = sampler.randrange(300)  # one sampled full sweep per game (if reached)
    fork_at = sampler.randrange(300) if seed % FORK_EVERY_NTH_GAME == 1 else -1
    forks: list[tuple[Game, Game, Rng]] = []
    record = GameRecord(seed)
    decisions = 0
    while not g.is_terminal:
        legal = g.legal_actions()
        check_decision(g, legal)
        if full_sweep or decisions == sweep_at:
            sweep_all_ids(g, legal, check_successors=full_sweep)
        elif decisions % IS_LEGAL_EVERY == 0:
            check_is_legal_matches_list(g, legal)
        if decisions % CLONE_EVERY == 0:
            check_copies(g, with_json=decisions % JSON_EVERY == 0)
        if decisions == fork_at:
            forks.append((g.clone(), json_copy(g), policy.copy()))
        before = relationship_snapshot(g)
        turn = g.turn
        action = legal[policy.randrange(len(legal))]
        g.apply_action_checked(action)
        record.actions.append(action)
        decisions += 1
        assert decisions <= MAX_GAME_DECISIONS, f"game longer than {MAX_GAME_DECISIONS}"
        check_invariants(g)
        check_transition(before, g)
        if g.turn != turn:  # a turn ended without ending the game (B.9 step 5)
            assert max(g.defeats[D.ATHENS], g.defeats[D.SPARTA]) < 4
    check_final(g, decisions)
    final = state_bytes(g)
    for cloned, restored, fork_policy in forks:
        finish_randomly(cloned, fork_policy.copy())
        finish_randomly(restored, fork_policy)
        assert state_bytes(cloned) == final and state_bytes(restored) == final
    record.final = g
    return record


@contextmanager
def game_context(n: int, seed: int) -> Iterator[None]:
    """Name the failing game, so it can be replayed alone."""
    try:
        yield
    except (AssertionError, InvariantError, IllegalActionError) as error:
        raise AssertionError(f"{n} players, seed {seed}: {error}") from error


def replay(n: int, seed: int, actions: list[int]) -> Game:
    g = new_game(GameConfig(num_players=n), seed=seed)
    for action in actions:
        g.apply_action_checked(action)
    return g


CHUNKS = [(n, start) for n in PLAYER_COUNTS for start in range(0, GAMES_PER_COUNT, CHUNK)]


@pytest.mark.parametrize(("n", "start"), CHUNKS, ids=[f"{n}p-seeds{s}" for n, s in CHUNKS])
def test_random_play_invariants(n: int, start: int) -> None:
    """Appendix 2 invariants and the engine API contract over seeded random games."""
    finals: dict[str, int] = {}
    for seed in range(start, start + CHUNK):
        with game_context(n, seed):
            record = play_checked(n, seed, full_sweep=seed in FULL_SWEEP_SEEDS)
        assert record.final is not None
        final = state_bytes(record.final)
        assert final not in finals, f"seeds {finals.get(final)} and {seed} played the same game"
        finals[final] = seed
        if seed % REPLAY_EVERY_NTH_GAME == 0:  # same seed + same actions -> same bytes
            assert state_bytes(replay(n, seed, record.actions)) == final


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_different_seeds_give_different_setups(n: int) -> None:
    setups = {state_bytes(new_game(GameConfig(num_players=n), seed=s)) for s in range(200)}
    assert len(setups) == 200
    again = state_bytes(new_game(GameConfig(num_players=n), seed=7))
    assert again == state_bytes(new_game(GameConfig(num_players=n), seed=7))


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_same_seed_and_actions_give_identical_bytes_at_every_step(n: int) -> None:
    a = new_game(GameConfig(num_players=n), seed=123)
    b = new_game(GameConfig(num_players=n), seed=123)
    policy = Rng(5)
    while not a.is_terminal:
        legal = a.legal_actions()
        assert legal == b.legal_actions()
        action = legal[policy.randrange(len(legal))]
        a.apply_action(action)
        b.apply_action_checked(action)
        assert state_bytes(a) == state_bytes(b)
    assert b.is_terminal and a.scores() == b.scores()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_permission_denying_policy_stays_within_max_length(n: int) -> None:
    """The longest games come from permission requests that are always denied (B.7.8): a
    policy that prefers such placements and always denies stays within the declared max."""
    for seed in range(8):
        g = new_game(GameConfig(num_players=n), seed=seed)
        policy = Rng(POLICY_SALT + seed)
        decisions = 0
        while not g.is_terminal:
            legal = g.legal_actions()
            if g.phase == Phase.PERMISSION:
                action = A.DENY
            elif g.phase == Phase.COMMIT and len(legal) > 1:
                asking = [a for a in legal if A.PLACE <= a < A.SPEND_CUBE and _asks(g, a)]
                choices = asking or [a for a in legal if a != A.END_STEP]
                action = choices[policy.randrange(len(choices))]
            else:
                action = legal[policy.randrange(len(legal))]
            g.apply_action_checked(action)
            decisions += 1
            check_invariants(g)
        check_final(g, decisions)


def _asks(g: Game, action: int) -> bool:
    """Whether this PLACE needs the owner's permission (B.7.8)."""
    _, klass, slot, side = A.decode(action)
    return g.placement_status(g.step_player, D.CLASS_CITY[klass], slot, side) == 2


# ---- the harness can fail: corrupted states are caught -------------------------------------


def _mid_commit_game() -> Game:
    """A 4-player game in the middle of phase 5 with counters at locations."""
    g = new_game(GameConfig(num_players=4), seed=3, backend="python")  # corrupted below
    policy = Rng(11)
    while not (g.phase == Phase.COMMIT and any(g.at)):
        legal = g.legal_actions()
        g.apply_action(legal[policy.randrange(len(legal))])
    return g


def _first_at_index(g: Game) -> int:
    return next(i for i, v in enumerate(g.at) if v)


CORRUPTIONS = {
    "cube supply": lambda g: g.supply.__setitem__(0, g.supply[0] + 1),
    "lost counter": lambda g: g.at.__setitem__(_first_at_index(g), 0),
    "duplicated stack counter": lambda g: g.stack.__setitem__(D.EXISTING_CLASSES[0], 99),
    "asymmetric war": lambda g: g.war.__setitem__(D.ARGOS, g.war[D.ARGOS] | 1 << D.THEBES),
    "war and alliance": lambda g: (
        g.war.__setitem__(0, g.war[0] | 2),
        g.war.__setitem__(1, g.war[1] | 1),
        g.ally.__setitem__(0, g.ally[0] | 2),
        g.ally.__setitem__(1, g.ally[1] | 1),
    ),
    "three tokens": lambda g: g.b_tokens.__setitem__(0, 3),
    "persian mask": lambda g: setattr(g, "persian", g.persian ^ 1),
    "special tile lost": lambda g: g.unseen_specials.pop(),
    "resolved location": lambda g: g.loc_done.__setitem__(g.loc_display[0], 1),
    "stale candidate": lambda g: g.cand.__setitem__(0, 0),
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_invariant_check_catches_corruption(name: str) -> None:
    g = _mid_commit_game()
    check_invariants(g)
    CORRUPTIONS[name](g)
    with pytest.raises(InvariantError):
        check_invariants(g)


def test_city_on_both_sides_is_caught() -> None:
    """Move one counter of a committed city to the other side, conserving counters."""
    g = _mid_commit_game()
    index = _first_at_index(g)
    slot, rest = divmod(index, 4 * D.NUM_CLASSES)
    side = rest // (2 * D.NUM_CLASSES)
    city = D.CLASS_CITY[rest % D.NUM_CLASSES]
    spare = next(k for k in D.CLASSES_OF_CITY[city] if g.pool[k] or g.stack[k])
    source = g.pool if g.pool[spare] else g.stack
    source[spare] -= 1
    g.at[(slot * 4 + (1 - side) * 2) * D.NUM_CLASSES + spare] += 1
    g.side_cities[slot * 2 + 1 - side] |= 1 << city
    with pytest.raises(InvariantError, match="both sides"):
        check_invariants(g)


@pytest.mark.parametrize("start", ["war", "alliance"])
def test_transition_check_catches_a_relationship_flip(start: str) -> None:
    """Appendix 2: relationships never go from allied to war (or back) within a turn. Each
    state alone is consistent; only the transition shows the flip."""
    g = _mid_commit_game()
    a, b = D.ARGOS, D.THEBES
    first, second = (g.war, g.ally) if start == "war" else (g.ally, g.war)
    for table in (g.war, g.ally):
        table[a] &= ~(1 << b)
        table[b] &= ~(1 << a)
    first[a] |= 1 << b
    first[b] |= 1 << a
    check_invariants(g)
    before = relationship_snapshot(g)
    first[a] &= ~(1 << b)
    first[b] &= ~(1 << a)
    second[a] |= 1 << b
    second[b] |= 1 << a
    check_invariants(g)
    with pytest.raises(InvariantError, match="ended"):
        check_transition(before, g)


def test_history_check_catches_dice_against_zero_strength() -> None:
    g = new_game(GameConfig(num_players=3), seed=1, backend="python")
    finish_randomly(g, Rng(1))
    check_history(g)
    g.events.append(("dice_round", 0, "H", 0, 3, "1:2", 0, 0))
    with pytest.raises(InvariantError, match="dice"):
        check_history(g)


# ---- regressions found by this harness ------------------------------------------------------


def test_main_defender_emptied_by_slave_revolt_cannot_attack_the_same_location() -> None:
    """Found at 3 players, seed 40: Slave Revolt took the main defender's only counter; he
    keeps the mark (C.1, E35) and then attacked the same location, becoming main attacker
    too, so he would win it either way. [ENGINE] the main player of a side may not join
    the other side (B.7.6: a player's forces never face each other)."""
    g = main_defender_allied_by_permission()  # player 1 defends Mantinea (Argos), allied
    check_invariants(g)
    assert g.current_player == 0
    g.apply_action_checked(A.SLAVE_REVOLT + 1 + 0)  # the revolt takes his only counter there
    g.apply_action_checked(A.END_STEP)
    assert g.current_player == 1 and g.main[0 * 2 + A.DEFEND] == 1
    assert g.at[0 : 4 * D.NUM_CLASSES].count(0) == 4 * D.NUM_CLASSES  # slot 0 is empty
    corinth_h = klass("corinth", "H", 2)
    assert A.place(corinth_h, 0, A.ATTACK) not in g.legal_actions()
    assert not g.is_legal(A.place(corinth_h, 0, A.ATTACK))
    assert A.place(corinth_h, 1, A.ATTACK) in g.legal_actions()  # attacking elsewhere is fine
    with pytest.raises(IllegalActionError):
        g.apply_action_checked(A.place(corinth_h, 0, A.ATTACK))


# ---- slow: 10,000 games per player count -----------------------------------------------------

SLOW_CHUNKS = [
    (n, start) for n in PLAYER_COUNTS for start in range(0, SLOW_GAMES_PER_COUNT, SLOW_CHUNK)
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "start"), SLOW_CHUNKS, ids=[f"{n}p-seeds{s}" for n, s in SLOW_CHUNKS]
)
def test_random_play_many_games(n: int, start: int) -> None:
    """Cheaper checks over many games: legal lists, lengths, scores, end conditions, and the
    invariants at turn boundaries, on every 16th decision and at the end."""
    config = GameConfig(num_players=n)
    for seed in range(start, start + SLOW_CHUNK):
        with game_context(n, seed):
            g = new_game(config, seed=seed)
            policy = Rng(POLICY_SALT + seed)
            decisions = 0
            while not g.is_terminal:
                legal = g.legal_actions()
                assert legal, g.phase.name
                turn = g.turn
                g.apply_action(legal[policy.randrange(len(legal))])
                decisions += 1
                assert decisions <= MAX_GAME_DECISIONS
                if decisions % 16 == 0 or g.turn != turn:
                    check_invariants(g)
            check_final(g, decisions)
