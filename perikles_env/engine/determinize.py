"""Sample a full game state consistent with one player's information (docs/rules.md F), for
information-set search (IS-MCTS) and for leak tests.

What is resampled, and how:
* other players' unused special tiles: dealt again at random from the tiles this player has
  not seen (the others' unused tiles plus the 8-N never dealt);
* face-down counter strengths: for every military city the player does not control and each
  unit type, the strengths in leaders' pools, in face-down location boxes and in a pending
  permission request are shuffled among those places. Per-box counts by city and type (and
  pool counts) stay, since city and type of every placement are public; stacks, the dead
  pool and revealed counters (the location being resolved) are public and stay;
* the influence and location deck orders;
* future chance: the game RNG is reseeded.
The player's own cities (and the Persian counters for a Persian leader, shared with his
co-leaders) keep their true strengths. Each sample is a uniform shuffle within these
constraints ("uniform-ish": no weighting by how likely opponents' past choices were).

On a ``NativeGame`` the C++ core samples (``Game::determinize`` in
native/engine/determinize.cpp): the same draws of the same SplitMix64 stream in the same order
as the code below, so the same seed gives the same sample on either backend
(tests/native/test_native_determinize.py).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import data as D
from .information import known_cities, revealed_slot
from .rng import Rng

if TYPE_CHECKING:  # ``Game.determinized`` calls ``resample``
    from .game import Game
    from .interface import GameInterface

# ``known_cities`` and ``revealed_slot`` live in ``information``; importable from here too.
__all__ = ["determinize", "known_cities", "revealed_slot", "seed_from"]


def seed_from(rng: Any) -> int:
    """A 64-bit seed drawn from a ``random.Random``, a numpy ``Generator``, an engine
    ``Rng``, or an int (numpy integers too) used as it is."""
    if not isinstance(rng, bool) and hasattr(type(rng), "__index__"):
        return operator.index(rng)
    if hasattr(rng, "next64"):
        return int(rng.next64())
    if hasattr(rng, "integers"):
        return int(rng.integers(0, 2**63))
    if hasattr(rng, "getrandbits"):
        return int(rng.getrandbits(64))
    raise TypeError(f"cannot draw a seed from {type(rng).__name__}")


def determinize(
    game: GameInterface, player: int, rng: Any, record_events: bool | None = None
) -> GameInterface:
    """A copy of ``game`` with everything hidden from ``player`` (a seat, 0..n-1)
    resampled; a game of the same backend. ``rng``: see ``seed_from``. ``record_events``:
    whether the copy logs events (None: as ``game``; searches turn it off)."""
    player = operator.index(player)
    if not 0 <= player < game.n:
        raise ValueError(f"determinize: player {player} is not a seat of this {game.n}-player game")
    seed = seed_from(rng)
    record = game.record if record_events is None else bool(record_events)
    return game.determinized(player, seed, record)


def resample(game: Game, player: int, seed: int, record: bool) -> Game:
    """The Python engine's sample (``Game.determinized``): a clone with the hidden facts of
    ``player`` resampled from ``Rng(seed)``; arguments checked by ``determinize``."""
    r = Rng(seed)
    g: Game = game.clone()
    _resample_specials(g, player, r)
    _resample_strengths(g, player, r)
    # Sort before shuffling: the result must depend on the rng and on public facts only,
    # never on the hidden order (same seed -> same sample for every consistent state).
    g.influence_deck.sort()
    r.shuffle(g.influence_deck)
    g.loc_deck.sort()
    r.shuffle(g.loc_deck)
    g.rng = Rng(r.next64())
    g.record = record
    return g


def _resample_specials(g: Game, player: int, r: Rng) -> None:
    holders = [q for q in range(g.n) if q != player and g.special[q] >= 0]
    hidden = sorted([g.special[q] for q in holders] + list(g.unseen_specials))
    r.shuffle(hidden)
    for q in holders:
        g.special[q] = hidden.pop()
    g.unseen_specials = sorted(hidden)


def _resample_strengths(g: Game, player: int, r: Rng) -> None:
    def canonical_shuffle(strengths: list[int]) -> None:
        strengths.sort()  # canonical order: the hidden arrangement must not steer the draw
        r.shuffle(strengths)

    redeal_strengths(g, known_cities(g, player), canonical_shuffle)


def redeal_strengths(g: Game, known: int, shuffle: Callable[[list[int]], None]) -> None:
    """For every military city not in the bitmask ``known`` and each unit type, deal the
    strengths again over the same hidden places (the pools, a pending request, the
    face-down boxes), in the order ``shuffle`` leaves them."""
    revealed = revealed_slot(g)
    boxes = [b for b in range(D.LOCATION_SLOTS * 4) if b // 4 != revealed]
    for city in range(D.NUM_MILITARY_CITIES):
        if known >> city & 1:
            continue
        for unit_type in (D.HOPLITE, D.TRIREME):
            places, strengths = _lift_hidden(g, D.CLASSES_OF[city][unit_type], boxes)
            shuffle(strengths)
            _place_hidden(g, places, strengths)


def _lift_hidden(
    g: Game, classes: tuple[int, ...], boxes: list[int]
) -> tuple[list[int], list[int]]:
    """Take every counter of ``classes`` off its hidden place (the pool, a pending
    permission request, the face-down ``boxes``): each one's place (-1 pool, -2 pending
    request, else box index) and strength class, in the same order."""
    pending = bool(g.pending) and g.pending[0] in classes
    places: list[int] = []
    strengths: list[int] = []
    if pending:
        g.pool[g.pending[0]] -= 1  # the requested counter is still in the pool
        places.append(-2)
        strengths.append(g.pending[0])
    for k in classes:
        places += [-1] * g.pool[k]
        strengths += [k] * g.pool[k]
        g.pool[k] = 0
    for b in boxes:
        base = b * D.NUM_CLASSES
        for k in classes:
            count = g.at[base + k]
            if count:
                places += [b] * count
                strengths += [k] * count
                g.at[base + k] = 0
    return places, strengths


def _place_hidden(g: Game, places: list[int], strengths: list[int]) -> None:
    """Put counters back on the places ``_lift_hidden`` took them from, ``strengths[i]``
    on ``places[i]``."""
    for place, k in zip(places, strengths, strict=True):
        if place == -1:
            g.pool[k] += 1
        elif place == -2:
            g.pending[0] = k
            g.pool[k] += 1
        else:
            g.at[place * D.NUM_CLASSES + k] += 1
