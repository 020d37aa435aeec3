"""Change what one player cannot know (docs/rules.md section F), keeping everything he can.

Used by the leak tests (OpenSpiel's ResampleInfostate idea): an agent's inputs and
decisions must not change when only hidden components do.
"""

from __future__ import annotations

import random

from perikles_env.engine import Game
from perikles_env.engine import data as D
from perikles_env.engine.phases import Phase
from perikles_env.engine.rng import Rng


def revealed_slot(g: Game) -> int:
    if g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY) and g.b_round >= 0:
        return g.b_slot
    return -1


def perturb_hidden(game: Game, player: int, seed: int) -> Game:
    """A copy with every component hidden from ``player`` re-drawn: deck orders, the RNG,
    other players' unused special tiles (exchanged with the never-dealt ones), and the
    strengths of face-down, pooled and requested (B.7.8) counters of cities he does not
    control. A NativeGame is perturbed on a Python copy and loaded back (validated)."""
    if type(game) is not Game:
        return type(game).from_python(perturb_hidden(game.to_python(), player, seed))
    g = game.clone()
    r = random.Random(seed)
    r.shuffle(g.influence_deck)
    r.shuffle(g.loc_deck)
    g.rng = Rng(r.getrandbits(64))
    holders = [q for q in range(g.n) if q != player and g.special[q] >= 0]
    tiles = [g.special[q] for q in holders] + list(g.unseen_specials)
    r.shuffle(tiles)
    for q in holders:
        g.special[q] = tiles.pop()
    g.unseen_specials = sorted(tiles)
    led = g._led_mask(player)
    skip = revealed_slot(g)
    for x in range(D.NUM_MILITARY_CITIES):
        if led >> x & 1:
            continue
        for t in (D.HOPLITE, D.TRIREME):
            classes = D.CLASSES_OF[x][t]
            places: list[int] = []  # -1 = pool, -2 = a pending permission request, else box
            strengths: list[int] = []
            if g.pending and g.pending[0] in classes:  # that counter is still in the pool
                g.pool[g.pending[0]] -= 1
                places.append(-2)
                strengths.append(g.pending[0])
            for k in classes:
                places += [-1] * g.pool[k]
                strengths += [k] * g.pool[k]
                g.pool[k] = 0
            for box in range(D.LOCATION_SLOTS * 4):
                if box // 4 == skip:
                    continue
                for k in classes:
                    i = box * D.NUM_CLASSES + k
                    places += [box] * g.at[i]
                    strengths += [k] * g.at[i]
                    g.at[i] = 0
            r.shuffle(strengths)
            for where, k in zip(places, strengths, strict=True):
                if where == -2:
                    g.pending[0] = k
                    g.pool[k] += 1
                elif where == -1:
                    g.pool[k] += 1
                else:
                    g.at[where * D.NUM_CLASSES + k] += 1
    return g


def hidden_differs(a: Game, b: Game) -> bool:
    """True when the perturbation changed at least one hidden component."""
    return (
        a.influence_deck != b.influence_deck
        or a.loc_deck != b.loc_deck
        or a.special != b.special
        or a.pool != b.pool
        or a.at != b.at
        or a.rng != b.rng
    )
