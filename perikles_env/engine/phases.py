"""The decision phases. Automatic steps (elections, battle rounds without a
choice, end of turn) never appear here: they run inside ``Game.apply_action``."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    SETUP_PLACE = 0  # B.1 step 9: one cube in any city, two rounds
    INFLUENCE_PICK = (
        1  # B.4 step 1-2: take a display tile, or first play Perikles/Plague/Alkibiades
    )
    ALKIBIADES_CUBE = 2  # D.3: the second cube to move
    ALKIBIADES_DEST = 3  # D.3: the destination city of both cubes
    ANY_CITY = 4  # A.5: the city of an Any City tile's cube
    CANDIDATE_TILE = 5  # B.4 step 3: the proposal that a Candidate tile makes
    ASSASSIN_TILE = 6  # B.4 step 3: the cube an Assassin tile removes
    POST_PICK_SPECIAL = 7  # B.4 step 5: play an influence special after the tile, or not
    PROPOSE = 8  # B.5: phase-3 proposal
    SPARTA_CHOICE = 9  # B.7.2: Sparta's leader names the phase-5 first player
    DEAD_POOL = 10  # B.7.3: hoplite or trireme from a city's dead pool
    COMMIT = 11  # B.7.5: micro-actions of one commit step
    PERMISSION = 12  # B.7.8: owner's leader grants or denies permission to defend
    BATTLE_SPECIAL = 13  # D.9: play or pass a battle special before a dice round
    CASUALTY = 14  # C.7: main player picks the city among tied lowest counters
    GAME_OVER = 15  # terminal


# Decision phases of the influence phase (B.3-B.4): a tile pick and what it leads to.
INFLUENCE_PHASES = frozenset(
    (
        Phase.INFLUENCE_PICK,
        Phase.ALKIBIADES_CUBE,
        Phase.ALKIBIADES_DEST,
        Phase.ANY_CITY,
        Phase.CANDIDATE_TILE,
        Phase.ASSASSIN_TILE,
        Phase.POST_PICK_SPECIAL,
    )
)
# Decision phases of turn phases 1-3 (setup included): the elections (B.6) are still ahead.
BEFORE_ELECTIONS = frozenset((Phase.SETUP_PLACE, Phase.PROPOSE)) | INFLUENCE_PHASES
# Decision phases in which a location's counters lie face up (phase 6, C.2).
BATTLE_PHASES = frozenset((Phase.BATTLE_SPECIAL, Phase.CASUALTY))
