"""Change what one player cannot know (docs/rules.md section F), keeping everything he can.

Used by the leak tests (OpenSpiel's ResampleInfostate idea): an agent's inputs and
decisions must not change when only hidden components do.
"""

from __future__ import annotations

import random

from perikles_env.engine import Game
from perikles_env.engine.determinize import redeal_strengths
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
    redeal_strengths(g, g._led_mask(player), r.shuffle)
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
