"""Hand-built game states for scenario tests.

These poke the engine's state fields directly (documented in ``engine/state.py``) and then
call the phase entry points, so each test states exactly the situation a rule talks about.
"""

from __future__ import annotations

from typing import Any

from perikles_env.engine import Game, GameConfig
from perikles_env.engine import data as D
from perikles_env.engine.actions import ATTACK, DEFEND, place  # noqa: F401  (re-exported)
from perikles_env.engine.rng import Rng

CITY = {name: i for i, name in enumerate(D.MILITARY_CITY_NAMES)}


def klass(city: str, unit: str, strength: int) -> int:
    """Counter class id, e.g. ``klass("sparta", "H", 3)``."""
    return D.class_id(CITY[city], D.UNIT_TYPE_NAMES.index(unit), strength)


def new_game(n: int = 4, seed: int = 0) -> Game:
    # Python backend: the builders below edit state fields (tests/native replays these
    # scenarios on the C++ core)
    return Game.new(GameConfig(num_players=n), seed=seed)


def set_locations(g: Game, names: list[str]) -> None:
    """Put these location tiles (by name, up to 7) in slots 1.. in order."""
    ids = [D.LOCATION_IDS[name] for name in names]
    rest = [t for t in range(D.NUM_LOCATION_TILES) if t not in ids]
    g.loc_display = (ids + rest)[: D.LOCATION_SLOTS]
    g.loc_deck = [t for t in rest if t not in g.loc_display]


def set_leaders(g: Game, leaders: dict[str, int]) -> None:
    """Leaders by city name; every other player becomes a Persian leader (B.6)."""
    g.leader = [-1] * D.NUM_CITIES
    for name, p in leaders.items():
        g.leader[CITY[name]] = p
    g.persian = 0
    for p in range(g.n):
        if p not in g.leader:
            g.persian |= 1 << p


def take_forces(g: Game) -> None:
    """B.7.1: leaders (and Persian leaders) take their cities' stacks into the pool."""
    g._take_forces()


def game_at_commit(**setup: Any) -> Game:
    """A game at the first commit step of phase 5 (B.7.4), turn 1 (``game_before_commit``'s
    arguments)."""
    return begin_commit(game_before_commit(**setup))


def put(g: Game, slot: int, side: int, box: int, counter: int, count: int = 1) -> None:
    """Place counters at a location box directly (taken from wherever they are now)."""
    for where in (g.pool, g.stack):
        take = min(count, where[counter])
        where[counter] -= take
        count_left = count - take
        g.at[((slot * 2 + side) * 2 + box) * D.NUM_CLASSES + counter] += take
        count = count_left
        if not count:
            break
    if count:
        raise ValueError(f"not enough {D.class_name(counter)} counters")
    g.side_cities[slot * 2 + side] |= 1 << D.CLASS_CITY[counter]


def game_at_battles(**setup: Any) -> Game:
    """Set up phase 6 (``prepare_battles``'s arguments) and run it until the first decision
    or the end of the game. With ``final_turn`` (the default) the game ends after the
    battles, so the result is easy to inspect (loc_claim, defeats, dead, stack, events)."""
    return start_battles(prepare_battles(**setup))


def events_of(g: Game, kind: str) -> list[tuple]:
    return [e for e in g.event_log if e[0] == kind]


# ---- phase-6 helpers (appended for the combat scenario tests) ------------------------------


def prepare_battles(
    n: int = 4,
    leaders: dict[str, int] | None = None,
    locations: list[str] | None = None,
    mains: dict[tuple[int, int], int] | None = None,
    counters: list[tuple[int, int, int, int, int]] | None = None,
    dice: list[int] | None = None,
    specials: dict[int, int] | None = None,
    first: int = 0,
    final_turn: bool = True,
    seed: int = 0,
) -> Game:
    """Phase 6 about to start, so a test can adjust the state (supplies, played specials,
    RNG) first; then call ``start_battles``.

    ``mains`` maps (slot, side) -> main player; ``counters`` lists (slot, side, box, class,
    count); ``dice`` are forced d6 faces (attacker die 1, die 2, defender die 1, die 2, ...).
    With ``final_turn`` the game is in turn 3, so it ends after the battles."""
    g = new_game(n, seed)
    set_leaders(g, leaders or {})
    take_forces(g)
    set_locations(g, locations or [])
    g.held2 = [0] * D.MAX_PLAYERS
    g.held1 = [0] * D.MAX_PLAYERS
    g.special = [-1] * D.MAX_PLAYERS
    for p, t in (specials or {}).items():
        g.special[p] = t
    g.unseen_specials = sorted(t for t in range(D.NUM_SPECIALS) if t not in g.special)
    for (slot, side), p in (mains or {}).items():
        g.main[slot * 2 + side] = p
    for slot, side, box, counter, count in counters or []:
        put(g, slot, side, box, counter, count)
    g.forced_dice = list(dice or [])
    g.commit_first = first
    if final_turn:
        g.turn = 3
    return g


def start_battles(g: Game) -> Game:
    """Run phase 6 of a ``prepare_battles`` game until the first decision or the end."""
    g._begin_battles()
    return g


def rolls(*pairs: tuple[int, int]) -> list[int]:
    """Forced d6 faces giving these (attacker 2d6 total, defender 2d6 total) rolls, in the
    engine's order: attacker die 1, die 2, defender die 1, die 2 (C.6)."""
    out: list[int] = []
    for total_a, total_d in pairs:
        for total in (total_a, total_d):
            if not 2 <= total <= 12:
                raise ValueError(f"2d6 total {total} out of range")
            out += [total // 2, total - total // 2]
    return out


def battle_events(g: Game) -> list[tuple]:
    """Events logged since the start of the last phase 6 (up to the end of that turn)."""
    start = max(i for i, e in enumerate(g.event_log) if e[0] == "phase" and e[2] == "battles")
    out = []
    for e in g.event_log[start + 1 :]:
        if e[0] == "end_turn":
            break
        out.append(e)
    return out


# ---- phase 2-4 helpers (influence picks, proposals, elections) ---------------------------


def influence_ids(colour: str, kind: str) -> list[int]:
    """Ids of the influence tiles of one colour (a city name or "any") and kind ("plain",
    "candidate", "assassin", "any"), lowest id first (A.5)."""
    c, k = D.COLOUR_NAMES.index(colour), D.INFLUENCE_KIND_NAMES.index(kind)
    return [i for i, t in enumerate(D.INFLUENCE_TILES) if t.colour == c and t.kind == k]


def set_display(g: Game, tiles: list[int]) -> None:
    """Influence display slots 1.. hold ``tiles`` (-1 = empty slot, the rest empty too); every
    other tile goes to the deck in id order, so the top (``deck[-1]``) is the highest id."""
    g.display = list(tiles) + [-1] * (D.INFLUENCE_DISPLAY_SIZE - len(tiles))
    g.influence_deck = [t for t in range(D.NUM_INFLUENCE_TILES) if t not in tiles]


def set_specials(g: Game, specials: dict[int, int]) -> None:
    """Player -> unused special tile id; nobody else holds one, none has been played, and
    the remaining tiles are the never-dealt ones (B.1 step 5)."""
    g.special = [-1] * D.MAX_PLAYERS
    for p, t in specials.items():
        g.special[p] = t
    g.special_played = [-1] * D.NUM_SPECIALS
    g.unseen_specials = sorted(t for t in range(D.NUM_SPECIALS) if t not in g.special)


def set_cubes(g: Game, city: str, player: int, count: int) -> None:
    """Main-area cubes of one player in one city; his supply absorbs the change (B.12)."""
    i = CITY[city] * 5 + player
    g.supply[player] -= count - g.cubes[i]
    g.cubes[i] = count
    if g.supply[player] < 0:
        raise ValueError(f"player {player} has too few cubes for {count} in {city}")


def clear_cubes(g: Game) -> None:
    """Every cube back to its owner's supply: empty main areas and candidate slots."""
    for p in range(g.n):
        g.supply[p] = D.CUBES_PER_PLAYER
    g.cubes = [0] * len(g.cubes)
    g.cand = [-1] * len(g.cand)


def set_candidate(g: Game, city: str, slot: str, player: int) -> None:
    """Put one of the player's supply cubes in a candidate slot ("alpha" or "beta")."""
    i = CITY[city] * 2 + ("alpha", "beta").index(slot)
    if g.cand[i] >= 0:
        g.supply[g.cand[i]] += 1
    g.cand[i] = player
    g.supply[player] -= 1


def game_at_pick(
    n: int = 4,
    first: int = 0,
    display: list[int] | None = None,
    specials: dict[int, int] | None = None,
    seed: int = 0,
) -> Game:
    """Turn 1, phase 2, at the first pick of ``first`` (B.4). Cubes are those of B.1 step 8
    (2 per city each); ``specials`` as in ``set_specials`` (default: nobody holds one)."""
    g = new_game(n, seed)
    g.first_player = g.commit_first = first
    set_specials(g, specials or {})
    if display is not None:
        set_display(g, display)
    g._begin_influence_phase()
    return g


def seat_offset(g: Game, player: int) -> int:
    """Action argument naming ``player``, relative to the acting player."""
    return (player - g.current) % g.n


def reference_crt_column(attack: int, defence: int) -> str:
    """docs/rules.md C.5 column pseudo-code, transcribed as a test oracle (A, D >= 1)."""
    if attack >= defence:
        if attack >= 3 * defence:
            return "3:1"
        if attack >= 2 * defence:
            return "2:1"
        if attack >= defence + 2:
            return "+2"
        return "1:1"
    if defence >= 2 * attack:
        return "1:2"
    if defence >= attack + 2:
        return "-2"
    return "1:1"


# ---- phase-5 helpers (appended for the commit scenario tests) -----------------------------


def _hold_tiles(g: Game, tiles: dict[int, tuple[int, int]] | None) -> None:
    """Influence tiles held for phase 5: player -> (2-shard, 1-shard); default (0, 1)."""
    g.held2 = [0] * D.MAX_PLAYERS
    g.held1 = [0] * D.MAX_PLAYERS
    for p in range(g.n):
        g.held2[p], g.held1[p] = (tiles or {}).get(p, (0, 1))


def game_before_commit(
    n: int = 4,
    leaders: dict[str, int] | None = None,
    tiles: dict[int, tuple[int, int]] | None = None,
    locations: list[str] | None = None,
    first: int = 0,
    specials: dict[int, int] | None = None,
    seed: int = 0,
) -> Game:
    """Turn 1 just before the first commit step of phase 5 (B.7.4), so a test can edit
    pools, cubes or relationships first; then call ``begin_commit``.

    ``tiles`` maps player -> (2-shard tiles, 1-shard tiles) held; default one 1-shard tile
    each. ``specials`` maps player -> special tile id (others hold none)."""
    g = new_game(n, seed)
    set_leaders(g, leaders or {})
    take_forces(g)
    if locations:
        set_locations(g, locations)
    _hold_tiles(g, tiles)
    set_specials(g, specials or {})
    g.commit_first = first
    return g


def begin_commit(g: Game) -> Game:
    """Start the commit steps of a ``game_before_commit`` game (B.7.4)."""
    g._begin_commit()
    return g


def game_before_military(
    n: int = 4,
    leaders: dict[str, int] | None = None,
    first_player: int = 0,
    tiles: dict[int, tuple[int, int]] | None = None,
    locations: list[str] | None = None,
    specials: dict[int, int] | None = None,
    dead: dict[int, int] | None = None,
    seed: int = 0,
) -> Game:
    """Turn 1 just after the elections (B.6), before phase 5 begins: leaders (others are
    Persian leaders), held tiles, specials, the phase-2 first player, and a dead pool given
    as class -> count (moved out of the city stacks). Then call ``start_military`` (B.7.1)."""
    g = new_game(n, seed)
    set_leaders(g, leaders or {})
    if locations:
        set_locations(g, locations)
    _hold_tiles(g, tiles)
    set_specials(g, specials or {})
    g.first_player = g.commit_first = first_player
    for k, count in (dead or {}).items():
        if g.stack[k] < count:
            raise ValueError(f"not enough {D.class_name(k)} counters for the dead pool")
        g.stack[k] -= count
        g.dead[k] += count
    return g


def start_military(g: Game) -> Game:
    """Run phase 5 of a ``game_before_military`` game up to its first decision (B.7.1)."""
    g._begin_military_phase()
    return g


def at_box(g: Game, slot: int, side: int, box: int, counter: int) -> int:
    """Number of counters of a class in one location box (0 main, 1 allied)."""
    return g.at[((slot * 2 + side) * 2 + box) * D.NUM_CLASSES + counter]


def play(g: Game, *actions: int) -> Game:
    """Apply actions one by one through the checked API."""
    for a in actions:
        g.apply_action_checked(a)
    return g


def relate(g: Game, kind: str, a: str, b: str) -> None:
    """Make two military cities at war (``kind="war"``) or allied (``"ally"``), both ways
    (B.7.7), as if earlier placements this turn had done it."""
    table = {"war": g.war, "ally": g.ally}[kind]
    table[CITY[a]] |= 1 << CITY[b]
    table[CITY[b]] |= 1 << CITY[a]


def put_main(g: Game, slot: int, side: int, player: int, counter: int, count: int = 1) -> None:
    """``put`` into the main box of a side and mark ``player`` as its main player."""
    g.main[slot * 2 + side] = player
    put(g, slot, side, 0, counter, count)


def legal_by_is_legal(g: Game) -> list[int]:
    """Every action id that ``is_legal`` accepts (must equal ``legal_actions()``)."""
    from perikles_env.engine import NUM_ACTIONS

    return [a for a in range(NUM_ACTIONS) if g.is_legal(a)]


def settle_history(g: Game) -> Game:
    """Fill in what a real game would have recorded before this hand-built phase-5/6 state:
    setup done, every influence tile of the turn taken, the dead-pool queue, the earlier
    turns' locations resolved and the relationships of the placed counters. Battles read
    none of it; ``Game.from_dict`` checks all of it (engine/validate.py)."""
    n = g.n
    total = D.TILES_PER_PLAYER[n] * n
    g.setup_done, g.picks_done = 2 * n, total
    g.influence_deck = g.influence_deck[total:]
    order = [(g.commit_first + i) % n for i in range(n)]
    g.dp_queue = [x for p in order for c in range(D.NUM_CITIES) if g.leader[c] == p for x in (p, c)]
    g.dp_index = len(g.dp_queue)
    earlier = D.LOCATION_SLOTS * (g.turn - 1)
    for tile in g.loc_deck[:earlier]:
        g.loc_done[tile] = 1
    g.loc_deck = g.loc_deck[earlier:]
    for slot in range(D.LOCATION_SLOTS):
        attack, defend = g.side_cities[slot * 2], g.side_cities[slot * 2 + 1]
        if attack | defend:
            defend |= 1 << D.LOCATION_TILES[g.loc_display[slot]].city
            for c in range(D.NUM_MILITARY_CITIES):
                own, other = (attack, defend) if attack >> c & 1 else (defend, attack)
                if own >> c & 1:
                    g._relate(c, own, g.ally)
                    g._relate(c, other, g.war)
    return g


def main_defender_allied_by_permission() -> Game:
    """3 players at commit, Slave Revolt in player 0's hand: player 1 (Sparta) is the main
    defender of Mantinea (Argos, player 0's city) with permission, so Sparta and Argos are
    allied; his only counter there is the one the revolt can take (B.7.6, C.1, E35)."""
    g = game_at_commit(
        n=3,
        leaders={"athens": 0, "argos": 0, "sparta": 1, "corinth": 1},
        tiles={0: (0, 1), 1: (0, 1), 2: (0, 1)},
        locations=["mantinea", "aetolia"],
        specials={0: D.SLAVE_REVOLT},
    )
    put(g, 0, DEFEND, 0, klass("sparta", "H", 1))
    g.main[0 * 2 + DEFEND] = 1
    g.perm[0] |= 1 << D.SPARTA
    g.ally[D.SPARTA] |= 1 << D.ARGOS
    g.ally[D.ARGOS] |= 1 << D.SPARTA
    return g


def assert_random_playout_is_the_policy_loop(start: Game, loop: Game, seed: int, cut: int) -> None:
    """``start.random_playout(seed)`` plays what a loop of uniform choices drawn by
    ``Rng(seed)`` plays on ``loop`` (a copy of ``start``, on either engine), to the same
    state; with ``max_decisions=cut`` it stops after ``cut`` decisions."""
    policy = Rng(seed)
    count = 0
    while not loop.is_terminal and count < 1000:
        legal = loop.legal_actions()
        loop.apply_action(legal[policy.randrange(len(legal))])
        count += 1
    played = start.clone()
    assert played.random_playout(seed) == count and played == loop
    partial = start.clone()
    assert partial.random_playout(seed, max_decisions=cut) == cut
    assert partial.decisions == start.decisions + cut
