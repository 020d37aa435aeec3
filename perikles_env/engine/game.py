"""The public engine API: ``Game.new``, ``legal_actions``, ``apply_action`` and friends,
setup (B.1), phase 1 and phase 7 (B.3, B.9), scoring and tie-breaks (B.10).

One legal-actions and one apply function per decision phase, dispatched through a table;
automatic steps run inside ``apply_action`` until the next decision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidConfigError
from . import actions as A
from . import data as D
from . import queries as Q
from .combat import CombatRules
from .influence import InfluenceRules
from .interface import FeatureBlocks, GameInterface, as_int
from .military import MilitaryRules
from .phases import Phase
from .rng import Rng
from .state import NUM_BOXES, GameConfig, checked_index

_SEED_LIMIT = 1 << 64  # Rng state is 64 bits: seeds are 0 <= seed < 2**64


def checked_seed(seed: Any) -> int | None:
    """``seed`` as an int in 0..2**64-1 (numpy integers accepted), or None."""
    if seed is None:
        return None
    value = as_int(seed) if getattr(seed, "ndim", 0) == 0 else None
    if value is None:
        raise InvalidConfigError(f"seed must be an int or None, got {seed!r}")
    if not 0 <= value < _SEED_LIMIT:
        raise InvalidConfigError(f"seed must be in 0..2**64-1, got {seed!r}")
    return value


class Game(InfluenceRules, MilitaryRules, CombatRules, GameInterface):
    """A game of Perikles for 3-5 players on the Python engine, the readable reference
    (``GameInterface``: the API it shares with ``NativeGame``). All chance comes from
    ``self.rng``."""

    __slots__ = ()

    # ---- construction (B.1) --------------------------------------------------------------

    @classmethod
    def new(cls, config: GameConfig | None = None, seed: int | None = 0) -> Game:
        """A new game on this Python engine, the readable reference. ``seed``: an int in
        0..2**64-1, or None for a fresh random one. ``engine.new_game`` chooses the engine
        (the C++ core when built)."""
        config = config or GameConfig()
        seed = checked_seed(seed)
        g = object.__new__(cls)
        n = config.num_players
        g.n = n
        g.record = config.record_events
        g.rng = Rng(seed)
        g.events = []
        g.forced_dice = []
        g.turn = 1
        g.decisions = 0
        g.supply = [D.CUBES_PER_PLAYER] * n + [0] * (D.MAX_PLAYERS - n)
        g.cubes = [0] * (D.NUM_CITIES * D.MAX_PLAYERS)
        g.cand = [-1] * (D.NUM_CITIES * 2)
        g.leader = [-1] * D.NUM_CITIES
        g.persian = 0
        g.statues = [0] * (D.NUM_CITIES * D.MAX_PLAYERS)
        g.defeats = [0] * D.NUM_CITIES
        g.held2 = [0] * D.MAX_PLAYERS
        g.held1 = [0] * D.MAX_PLAYERS
        g.colours_taken = [0] * D.MAX_PLAYERS
        g.last_athens = -1
        g.stack = list(D.INITIAL_COUNTERS)
        g.pool = [0] * D.NUM_CLASSES
        g.dead = [0] * D.NUM_CLASSES
        g.at = [0] * (NUM_BOXES * D.NUM_CLASSES)
        g.loc_claim = [0] * D.NUM_LOCATION_TILES
        g.loc_done = [0] * D.NUM_LOCATION_TILES
        g._clear_turn_marks()
        g.setup_done = g.picks_done = g.propose_cursor = g.dp_index = 0
        g.commit_cursor = g.step_player = g.step_normal = g.step_extra = 0
        g.step_spend = -1
        g.step_closed = False
        g.pick_special_done = False
        g.pick_slot = -1
        g.alki = []
        g.dp_queue = []
        g.b_slot = g.b_round = g.b_head = g.b_loser = -1
        g.b_stage = 0
        g.b_tokens = [0, 0]
        g.b_double = False
        g.b_offers = []
        g.b_cas = []
        # Shuffles: influence (B.1 step 4), specials (step 5), locations (step 6).
        g.influence_deck = list(range(D.NUM_INFLUENCE_TILES))
        g.rng.shuffle(g.influence_deck)
        g.display = [g.influence_deck.pop() for _ in range(D.INFLUENCE_DISPLAY_SIZE)]
        specials = list(range(D.NUM_SPECIALS))
        g.rng.shuffle(specials)
        g.special = specials[:n] + [-1] * (D.MAX_PLAYERS - n)
        g.unseen_specials = sorted(specials[n:])
        g.special_played = [-1] * D.NUM_SPECIALS
        g.loc_deck = list(range(D.NUM_LOCATION_TILES))
        g.rng.shuffle(g.loc_deck)
        g.loc_display = [g.loc_deck.pop() for _ in range(D.LOCATION_SLOTS)]
        g.first_player = g.rng.randrange(n)  # step 7
        g.commit_first = g.first_player
        g._log(
            "setup",
            n,
            g.first_player,
            [D.LOCATION_TILES[t].name for t in g.loc_display],
            [D.influence_name(t) for t in g.display],
        )
        for c in range(D.NUM_CITIES):  # step 8
            for p in range(n):
                g.cubes[c * 5 + p] = 2
                g.supply[p] -= 2
        g._begin_setup()
        return g

    def _clear_turn_marks(self) -> None:
        """B.9 step 4: leaders, Persians, relationships, permissions, main marks."""
        self.leader = [-1] * D.NUM_CITIES
        self.persian = 0
        self.main = [-1] * (D.LOCATION_SLOTS * 2)
        self.side_cities = [0] * (D.LOCATION_SLOTS * 2)
        self.war = [0] * D.NUM_MILITARY_CITIES
        self.ally = [0] * D.NUM_MILITARY_CITIES
        self.perm = [0] * D.LOCATION_SLOTS
        self.denied = [0] * D.LOCATION_SLOTS
        self.pending = []
        self.current = -1

    # ---- the decision API ----------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids for ``current_player``; empty only when terminal."""
        return _LEGAL[self.phase](self)

    def is_legal(self, action: int) -> bool:
        if type(action) is not int or not 0 <= action < A.NUM_ACTIONS:
            return False
        if not _PHASE_IDS[self.phase][action]:
            return False  # outside every range this phase uses: no list to build
        if self.phase == Phase.COMMIT:
            return self._is_legal_commit(action)
        return action in _LEGAL[self.phase](self)

    def apply_action(self, action: int) -> None:
        """Apply a legal action (unchecked, fast) and run automatic steps."""
        _APPLY[self.phase](self, action)
        self.decisions += 1

    def _is_legal_commit(self, action: int) -> bool:
        if A.PLACE <= action < A.SPEND_CUBE:
            rest, side = divmod(action - A.PLACE, 2)
            klass, slot = divmod(rest, D.LOCATION_SLOTS)
            if not self.pool[klass] or not self._placeable_cities() >> D.CLASS_CITY[klass] & 1:
                return False
            return Q.class_placement_status(self, self.step_player, klass, slot, side) > 0
        return action in self._legal_commit()

    @property
    def event_log(self) -> list[tuple[Any, ...]]:
        """Public record of what happened (no secret information is ever logged)."""
        return self.events

    # ---- phase 7 and phase 1 (B.9, B.3) -------------------------------------------------------

    def _end_turn(self) -> None:
        if self.leader[D.ATHENS] >= 0:
            self.last_athens = self.leader[D.ATHENS]  # E10
        for c in range(D.NUM_CITIES):
            if self.leader[c] >= 0:
                self.statues[c * 5 + self.leader[c]] += 1
        for k in range(D.NUM_CLASSES):
            self.stack[k] += self.pool[k]
            self.pool[k] = 0
        self._clear_turn_marks()
        self._log("end_turn", self.turn, self.scores())
        game_over = (
            self.turn >= D.NUM_TURNS or self.defeats[D.ATHENS] >= 4 or self.defeats[D.SPARTA] >= 4
        )
        if game_over:
            self.phase = Phase.GAME_OVER
            self.current = -1
            self._log("game_over", self.scores(), self.winners())
            return
        self.turn += 1
        self.influence_deck = list(range(D.NUM_INFLUENCE_TILES))
        self.rng.shuffle(self.influence_deck)
        self.display = [self.influence_deck.pop() for _ in range(D.INFLUENCE_DISPLAY_SIZE)]
        self.loc_display = [self.loc_deck.pop() for _ in range(D.LOCATION_SLOTS)]
        self.colours_taken = [0] * D.MAX_PLAYERS
        if self.last_athens >= 0:
            self.first_player = self.last_athens
        self._log(
            "new_turn",
            self.turn,
            self.first_player,
            [D.LOCATION_TILES[t].name for t in self.loc_display],
            [D.influence_name(t) for t in self.display],
        )
        self._begin_influence_phase()

    # ---- scoring (B.10) ----------------------------------------------------------------------

    def location_vp(self, player: int) -> int:
        return self._query("location_vp", self._seat_arg(player))  # type: ignore[no-any-return]

    def statue_count(self, player: int) -> int:
        return self._query("statue_count", self._seat_arg(player))  # type: ignore[no-any-return]

    def statue_vp(self, player: int) -> int:
        return self._query("statue_vp", self._seat_arg(player))  # type: ignore[no-any-return]

    def cube_vp(self, player: int) -> int:
        return self._query("cube_vp", self._seat_arg(player))  # type: ignore[no-any-return]

    def scores(self) -> list[int]:
        """Victory points now: cubes on the board, location tiles, statues at current value."""
        return [
            Q.cube_vp(self.cubes, self.cand, p)
            + Q.location_vp(self.loc_claim, p)
            + Q.statue_vp(self.statues, self.defeats, p)
            for p in range(self.n)
        ]

    def ranking_keys(self) -> list[tuple[int, int, int]]:
        """Per seat (VP, location VP, statue count): the B.10 order, best highest."""
        return Q.ranking_keys(self)

    def winners(self) -> list[int]:
        """Highest score; ties broken by location VP, then statue count, then shared."""
        return Q.winners_of(self.ranking_keys())

    # ---- rule queries about this state (queries.py; answered in C++ on a NativeGame) -------

    def _query(self, name: str, *args: Any) -> Any:
        """The Python reference's answer (``queries.py``) to rule query ``name``, arguments
        checked (a ``NativeGame`` asks its C++ core instead)."""
        return _REFERENCE[name](self, *args)

    def military_knowledge(self, player: int) -> Q.MilitaryKnowledge:
        """What ``player`` knows of every counter (F)."""
        return Q.MilitaryKnowledge(*self._query("military_knowledge", self._seat_arg(player)))

    def placement_targets(
        self, p: int, x: int, first: bool = False, skip_hoplite_only: bool = False
    ) -> list[tuple[int, int, int]]:
        """``queries.placement_targets`` of this state for player ``p``, military city ``x``."""
        x = checked_index("city", x, D.NUM_MILITARY_CITIES)
        args = (self._seat_arg(p), x, bool(first), bool(skip_hoplite_only))
        return self._query("placement_targets", *args)  # type: ignore[no-any-return]

    def placement_status(self, p: int, x: int, slot: int, side: int) -> int:
        x = checked_index("city", x, D.NUM_MILITARY_CITIES)
        args = (self._seat_arg(p), x, *_slot_side(slot, side))
        return self._query("placement_status", *args)  # type: ignore[no-any-return]

    def class_placement_status(self, p: int, klass: int, slot: int, side: int) -> int:
        klass = checked_index("class", klass, D.NUM_CLASSES)
        args = (self._seat_arg(p), klass, *_slot_side(slot, side))
        return self._query("class_placement_status", *args)  # type: ignore[no-any-return]

    def proposals(self, p: int) -> list[tuple[int, int]]:
        """The phase-3 proposals (city, nominee) player ``p`` may make (B.5)."""
        return self._query("proposals", self._seat_arg(p))  # type: ignore[no-any-return]

    def assassination_targets(self, first: int) -> list[tuple[int, int]]:
        return self._query("assassination_targets", self._seat_arg(first))  # type: ignore[no-any-return]

    def plague_losses(self, city: int) -> list[int]:
        city = checked_index("city", city, D.NUM_CITIES)
        return self._query("plague_losses", city)  # type: ignore[no-any-return]

    def election_outcome(self, city: int) -> tuple[int, int]:
        city = checked_index("city", city, D.NUM_CITIES)
        return self._query("election_outcome", city)  # type: ignore[no-any-return]

    def round_strengths(self, slot: int, unit_type: int) -> tuple[int, int]:
        """(attack, defence) entering the CRT for a round of ``unit_type`` at ``slot`` now."""
        slot = checked_index("slot", slot, D.LOCATION_SLOTS)
        args = (slot, checked_index("unit_type", unit_type, 2))
        return self._query("round_strengths", *args)  # type: ignore[no-any-return]

    def predicted_rounds(self, slot: int) -> list[tuple[int, int, int, int]]:
        """(unit type, kind, attack, defence) per round of the location at ``slot`` now."""
        slot = checked_index("slot", slot, D.LOCATION_SLOTS)
        return self._query("predicted_rounds", slot)  # type: ignore[no-any-return]

    # ---- what searches need (the C++ players and encoder are the NativeGame's) ------------

    def determinized(self, player: int, seed: int, record: bool) -> Game:
        from .determinize import resample

        return resample(self, player, seed, record)

    def random_playout(self, seed: int, max_decisions: int = 1 << 62) -> int:
        policy = Rng(seed)
        made = 0
        while made < max_decisions and self.phase != Phase.GAME_OVER:
            legal = self.legal_actions()
            self.apply_action(legal[policy.randrange(len(legal))])
            made += 1
        return made

    def to_python(self) -> Game:
        return self.clone()  # type: ignore[no-any-return]

    def heuristic_decide(
        self, player: int, params: tuple[float, ...], seed: Callable[[], int]
    ) -> int | None:
        return None

    def heuristic_scores(self, player: int, params: tuple[float, ...]) -> list[float] | None:
        return None

    def heuristic_playout(self, params: tuple[float, ...], seed: int, horizon: int) -> int | None:
        return None

    def encode_natively(
        self, player: int, out: Any, oracle: bool = False, blocks: FeatureBlocks = ()
    ) -> bool:
        return False

    def legal_mask(self, out: Any) -> None:
        mask = memoryview(out).cast("B")
        mask[:] = bytes(len(mask))
        for action in self.legal_actions():
            mask[action] = 1


def _slot_side(slot: int, side: int) -> tuple[int, int]:
    return checked_index("slot", slot, D.LOCATION_SLOTS), checked_index("side", side, 2)


# The Python reference of each rule query ``Game._query`` answers (arguments checked).
_REFERENCE: dict[str, Callable[..., Any]] = {
    "military_knowledge": Q.military_knowledge,
    "placement_targets": Q.placement_targets,
    "placement_status": Q.placement_status,
    "class_placement_status": Q.class_placement_status,
    "proposals": lambda g, p: Q.proposals(g.cubes, g.cand, p, g.n),
    "assassination_targets": lambda g, first: Q.assassination_targets(g.cubes, g.cand, g.n, first),
    "plague_losses": lambda g, city: Q.plague_losses(g.cubes, g.cand, city, g.n),
    "election_outcome": lambda g, city: Q.election_outcome(g.cubes, g.cand, city),
    "location_vp": lambda g, p: Q.location_vp(g.loc_claim, p),
    "statue_count": lambda g, p: sum(g.statues[p :: D.MAX_PLAYERS]),
    "statue_vp": lambda g, p: Q.statue_vp(g.statues, g.defeats, p),
    "cube_vp": lambda g, p: Q.cube_vp(g.cubes, g.cand, p),
    "round_strengths": lambda g, slot, t: g._round_strengths(slot, t),
    "predicted_rounds": lambda g, slot: g._predicted_rounds(slot),
}


_LEGAL: dict[Phase, Callable[[Game], list[int]]] = {
    Phase.SETUP_PLACE: Game._legal_setup,
    Phase.INFLUENCE_PICK: Game._legal_pick,
    Phase.ALKIBIADES_CUBE: Game._legal_alki_cube,
    Phase.ALKIBIADES_DEST: Game._legal_alki_dest,
    Phase.ANY_CITY: Game._legal_any_city,
    Phase.CANDIDATE_TILE: Game._legal_candidate,
    Phase.ASSASSIN_TILE: Game._legal_assassin,
    Phase.POST_PICK_SPECIAL: Game._legal_post_pick,
    Phase.PROPOSE: Game._legal_candidate,
    Phase.SPARTA_CHOICE: Game._legal_sparta,
    Phase.DEAD_POOL: Game._legal_dead_pool,
    Phase.COMMIT: Game._legal_commit,
    Phase.PERMISSION: Game._legal_permission,
    Phase.BATTLE_SPECIAL: Game._legal_battle_special,
    Phase.CASUALTY: Game._legal_casualty,
    Phase.GAME_OVER: lambda g: [],
}

_APPLY: dict[Phase, Callable[[Game, int], None]] = {
    Phase.SETUP_PLACE: Game._apply_setup,
    Phase.INFLUENCE_PICK: Game._apply_pick,
    Phase.ALKIBIADES_CUBE: Game._apply_alki_cube,
    Phase.ALKIBIADES_DEST: Game._apply_alki_dest,
    Phase.ANY_CITY: Game._apply_any_city,
    Phase.CANDIDATE_TILE: Game._apply_candidate_tile,
    Phase.ASSASSIN_TILE: Game._apply_assassin,
    Phase.POST_PICK_SPECIAL: Game._apply_post_pick,
    Phase.PROPOSE: Game._apply_propose,
    Phase.SPARTA_CHOICE: Game._apply_sparta,
    Phase.DEAD_POOL: Game._apply_dead_pool,
    Phase.COMMIT: Game._apply_commit,
    Phase.PERMISSION: Game._apply_permission,
    Phase.BATTLE_SPECIAL: Game._apply_battle_special,
    Phase.CASUALTY: Game._apply_casualty,
}

# Action ranges (``actions.RANGES`` names) each decision phase can ever accept (Appendix 1;
# the "phases" column of docs/actions.md). Also a 0/1 table per phase, so that ``is_legal``
# rejects most ids without building the legal list.
PHASE_ACTION_RANGES: dict[Phase, tuple[str, ...]] = {
    Phase.SETUP_PLACE: ("SETUP_CUBE",),
    Phase.INFLUENCE_PICK: ("TAKE_TILE", "PLAY_PERIKLES", "PLAY_PLAGUE", "ALKIBIADES_CUBE"),
    Phase.ALKIBIADES_CUBE: ("ALKIBIADES_CUBE",),
    Phase.ALKIBIADES_DEST: ("ALKIBIADES_DEST",),
    Phase.ANY_CITY: ("ANY_CITY",),
    Phase.CANDIDATE_TILE: ("PROPOSE",),
    Phase.ASSASSIN_TILE: ("ASSASSINATE",),
    Phase.POST_PICK_SPECIAL: ("END_PICK", "PLAY_PERIKLES", "PLAY_PLAGUE", "ALKIBIADES_CUBE"),
    Phase.PROPOSE: ("PROPOSE",),
    Phase.SPARTA_CHOICE: ("SPARTA_FIRST",),
    Phase.DEAD_POOL: ("DEAD_POOL",),
    Phase.COMMIT: ("PLACE", "SPEND_CUBE", "SLAVE_REVOLT", "END_STEP"),
    Phase.PERMISSION: ("GRANT", "DENY"),
    Phase.BATTLE_SPECIAL: ("BATTLE_PASS", "BATTLE_DOUBLE", "BATTLE_TOKEN"),
    Phase.CASUALTY: ("CASUALTY",),
    Phase.GAME_OVER: (),
}


def _phase_ids(kinds: tuple[str, ...]) -> bytes:
    table = bytearray(A.NUM_ACTIONS)
    for kind in kinds:
        start, size = A.RANGES[kind]
        table[start : start + size] = b"\x01" * size
    return bytes(table)


_PHASE_IDS: dict[Phase, bytes] = {p: _phase_ids(k) for p, k in PHASE_ACTION_RANGES.items()}
