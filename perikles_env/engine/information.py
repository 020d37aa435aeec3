"""What one player may know (docs/rules.md section F): the single place that says which
counter strengths a player sees and what the public multisets are.

Every function reads public fields only (``leader``, ``persian``, ``phase``, ``b_slot``,
``b_round``, ``stack``, ``dead``, ``at`` of the revealed location), so it accepts a ``Game``
or anything that carries those fields (the analysis ``PlayerView``). ``determinize``, the
player view, the observation encoder and the text renderer all ask here.

* A player knows the face-down strengths of the military cities he controls: the cities
  he leads, plus Persia when he is a Persian leader (shared with his co-leaders, B.11).
* The counters of the location being resolved (phase 6, from the start of its first round
  until it is finished, C.2) are face up for everyone.
* Everything else shows its city and type, never its strength; what remains unseen of a
  (city, type) is public as a multiset: the initial mix (A.3, A.4) minus the stacks, the
  dead pool and the face-up counters.
"""

from __future__ import annotations

from typing import Any

from . import data as D
from .phases import BATTLE_PHASES

_ALL_CITIES = (1 << D.NUM_MILITARY_CITIES) - 1


def controlled_cities(state: Any, player: int) -> int:
    """Bitmask of the military cities ``player`` controls this turn: the cities he leads,
    plus Persia for a Persian leader (B.6, B.11)."""
    mask = 0
    leader = state.leader
    for c in range(D.NUM_CITIES):
        if leader[c] == player:
            mask |= 1 << c
    if state.persian >> player & 1:
        mask |= 1 << D.PERSIA
    return mask


def known_cities(state: Any, player: int) -> int:
    """Bitmask of military cities whose face-down strengths ``player`` knows (F): the ones
    he controls."""
    return controlled_cities(state, player)


def revealed_slot(state: Any) -> int:
    """Location slot whose counters are face up right now (phase 6, C.2), or -1."""
    if state.phase in BATTLE_PHASES and state.b_round >= 0:
        return int(state.b_slot)
    return -1


def visible_cities(known: int, revealed: int, slot: int = -1) -> int:
    """Bitmask of the military cities whose counters at location ``slot`` (-1: in a hand)
    show their strength to a player who knows the cities in ``known``, while the location
    ``revealed`` is face up: all of them there, else his own."""
    return _ALL_CITIES if slot >= 0 and slot == revealed else known


def sees_strength(known: int, revealed: int, city: int, slot: int = -1) -> bool:
    """Whether that player sees the strength of a counter of military ``city`` at ``slot``."""
    return bool(visible_cities(known, revealed, slot) >> city & 1)


def revealed_counters(state: Any) -> list[int]:
    """Counters per class that are face up at the revealed location (all zero if none)."""
    out = [0] * D.NUM_CLASSES
    slot = revealed_slot(state)
    if slot >= 0:
        at = state.at
        for box in range(slot * 4, slot * 4 + 4):
            base = box * D.NUM_CLASSES
            for k in D.EXISTING_CLASSES:
                out[k] += at[base + k]
    return out


def unseen_counters(state: Any) -> list[int]:
    """The public multiset of counters whose strength is hidden from non-controllers, per
    class: initial mix minus stacks, dead pool and face-up counters (F)."""
    out = [i - s - d for i, s, d in zip(D.INITIAL_COUNTERS, state.stack, state.dead, strict=True)]
    if revealed_slot(state) >= 0:
        out = [u - r for u, r in zip(out, revealed_counters(state), strict=True)]
    return out
