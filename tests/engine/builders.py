"""Hand-built game states for scenario tests (STYLE 11).

These poke the engine's state fields directly (documented in ``engine/state.py``) and then
call the phase entry points, so each test states exactly the situation a rule talks about.
"""

from __future__ import annotations

from perikles_env.engine import Game, GameConfig
from perikles_env.engine import data as D
from perikles_env.engine.actions import ATTACK, DEFEND, place  # noqa: F401  (re-exported)

CITY = {name: i for i, name in enumerate(D.MILITARY_CITY_NAMES)}


def klass(city: str, unit: str, strength: int) -> int:
    """Counter class id, e.g. ``klass("sparta", "H", 3)``."""
    return D.class_id(CITY[city], D.UNIT_TYPE_NAMES.index(unit), strength)


def new_game(n: int = 4, seed: int = 0) -> Game:
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
    for c in range(D.NUM_MILITARY_CITIES):
        controlled = g.leader[c] >= 0 if c < D.NUM_CITIES else g.persian != 0
        if controlled:
            for k in D.CLASSES_OF_CITY[c]:
                g.pool[k] += g.stack[k]
                g.stack[k] = 0


def game_at_commit(
    n: int = 4,
    leaders: dict[str, int] | None = None,
    tiles: dict[int, tuple[int, int]] | None = None,
    locations: list[str] | None = None,
    first: int = 0,
    specials: dict[int, int] | None = None,
    seed: int = 0,
) -> Game:
    """A game at the first commit step of phase 5 (B.7.4), turn 1.

    ``tiles`` maps player -> (2-shard tiles, 1-shard tiles) held; default one 1-shard tile
    each. ``specials`` maps player -> special tile id (others hold none)."""
    g = new_game(n, seed)
    set_leaders(g, leaders or {})
    take_forces(g)
    if locations:
        set_locations(g, locations)
    g.held2 = [0] * D.MAX_PLAYERS
    g.held1 = [0] * D.MAX_PLAYERS
    for p in range(n):
        two, one = (tiles or {}).get(p, (0, 1)) if tiles is not None else (0, 1)
        g.held2[p], g.held1[p] = two, one
    g.special = [-1] * D.MAX_PLAYERS
    for p, t in (specials or {}).items():
        g.special[p] = t
    g.unseen_specials = sorted(
        t for t in range(D.NUM_SPECIALS) if t not in g.special
    )
    g.commit_first = first
    g._begin_commit()
    return g


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


def game_at_battles(
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
    """Set up phase 6 and run it until the first decision or the end of the game.

    ``mains`` maps (slot, side) -> main player; ``counters`` lists (slot, side, box, class,
    count); ``dice`` are forced d6 faces (attacker die 1, die 2, defender die 1, die 2, ...).
    With ``final_turn`` the game is in turn 3, so it ends after the battles and the result
    is easy to inspect (loc_claim, defeats, dead, stack, events)."""
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
    g._begin_battles()
    return g


def events_of(g: Game, kind: str) -> list[tuple]:
    return [e for e in g.event_log if e[0] == kind]
