"""Election arithmetic for the heuristic: project who leads each city and what it costs
(B.5, B.6), value a cube layout, and pick the influence-phase action that improves it most.

The projection of one city from its main-area cubes and candidate slots:

* both slots filled: exact (B.6: the higher count wins, alpha wins ties; the winner returns
  as many of his own cubes as the loser has there);
* only alpha: the strongest other player is assumed to be nominated against him (his
  count drops by the candidate cube); alpha wins ties;
* no candidate: the player with most cubes leads, paying for the runner-up's cubes (minus
  the runner-up's candidate cube); a tie for the most is split evenly.

A player's gain is his main-area cubes (1 VP each, B.10) plus, for every city he is
projected to lead, the leadership value minus the cube loss. Candidate cubes return to the
supply after the election, so they are not counted. Options are scored as
``gain[me] - spite * mean(gain[others])``.
"""

from __future__ import annotations

from ..engine import actions as A
from ..engine import data as D
from ..engine import queries as Q
from .params import HeuristicParams
from .view import PlayerView

NCITY = D.NUM_CITIES
P_DEFEAT = 0.3  # rough chance that a displayed location of a city brings it a defeat
FORCE_WEIGHT = 0.06  # VP of leadership per point of a city's military strength


def track_value(city: int, defeats: float) -> float:
    """Statue value after a (possibly fractional, expected) number of defeats."""
    low = int(defeats)
    frac = defeats - low
    a = D.statue_value(city, low)
    b = D.statue_value(city, low + 1)
    return a + (b - a) * frac


def expected_statue_value(view: PlayerView, city: int, defeats: int = -1) -> float:
    """Expected value of one statue in ``city`` at game end, from public information;
    ``defeats`` overrides the city's current defeat count."""
    if defeats < 0:
        defeats = view.defeats[city]
    return track_value(city, defeats + expected_further_defeats(view)[city])


def expected_further_defeats(view: PlayerView) -> list[float]:
    """Per city, the defeats still expected this game: ``P_DEFEAT`` for each of its
    locations on display, and for each still in the deck the chance it is drawn in a later
    turn. One pass over the tiles for all cities (callers valuing several cities reuse it)."""
    on_display = [0.0] * NCITY
    unseen = [0] * NCITY
    for t in range(D.NUM_LOCATION_TILES):
        if view.loc_done[t]:
            continue
        city = D.LOCATION_TILES[t].city
        if t in view.loc_display:  # this turn's battles are still ahead
            on_display[city] += P_DEFEAT
        else:
            unseen[city] += 1
    future_turns = D.NUM_TURNS - view.turn
    if future_turns <= 0 or view.loc_deck_left <= 0:
        return on_display
    drawn = min(1.0, D.LOCATION_SLOTS * future_turns / view.loc_deck_left)
    return [on_display[c] + unseen[c] * drawn * P_DEFEAT for c in range(NCITY)]


def leadership_values(view: PlayerView, params: HeuristicParams) -> list[float]:
    """VP a player expects from leading each city this turn: statue plus military use."""
    out = []
    military_weight = 2.0 - params.politics
    for c in range(NCITY):
        statue = expected_statue_value(view, c)
        locations = sum(
            1
            for s in range(D.LOCATION_SLOTS)
            if D.LOCATION_TILES[view.loc_display[s]].city == c
            and not view.loc_done[view.loc_display[s]]
        )
        strength = (
            sum(view.stack[k] * D.CLASS_STRENGTH[k] for k in D.CLASSES_OF_CITY[c])
            + sum(view.dead[k] * D.CLASS_STRENGTH[k] for k in D.CLASSES_OF_CITY[c]) * 0.2
        )
        military = 1.5 * locations + FORCE_WEIGHT * strength
        out.append(params.politics * statue + military_weight * military)
    return out


class PoliticalModel:
    """Scores cube layouts for one player; see the module docstring."""

    __slots__ = ("n", "me", "lead", "spite")

    def __init__(self, view: PlayerView, params: HeuristicParams) -> None:
        self.n = view.n
        self.me = view.me
        self.lead = leadership_values(view, params)
        self.spite = params.spite

    def project(self, cubes: list[int], cand: list[int], c: int) -> list[tuple[int, float, int]]:
        """(leader, probability, cubes he loses) outcomes of city c's election."""
        n = self.n
        base = D.city_player_index(c, 0)
        alpha, beta = cand[c * 2], cand[c * 2 + 1]
        if alpha >= 0 and beta >= 0:  # exact: the engine's election (B.6)
            leader, loss = Q.election_outcome(cubes, cand, c)
            return [(leader, 1.0, loss)]
        if alpha >= 0:
            ma = cubes[base + alpha]
            best, who = -1, []
            for q in range(n):
                if q != alpha and cubes[base + q] >= 1:
                    m = cubes[base + q] - 1
                    if m > best:
                        best, who = m, [q]
                    elif m == best:
                        who.append(q)
            if best > ma:
                return [(q, 1.0 / len(who), ma) for q in who]
            return [(alpha, 1.0, max(best, 0))]
        top, second, tops = 0, 0, []
        for q in range(n):
            m = cubes[base + q]
            if m > top:
                second = top
                top, tops = m, [q]
            elif m == top and m > 0:
                tops.append(q)
            elif m > second:
                second = m
        if not tops:
            return []
        if len(tops) > 1:
            return [(q, 1.0 / len(tops), top - 1) for q in tops]
        return [(tops[0], 1.0, max(second - 1, 0))]

    def gains(self, cubes: list[int], cand: list[int]) -> list[float]:
        n = self.n
        out = [0.0] * n
        for c in range(NCITY):
            base = D.city_player_index(c, 0)
            for q in range(n):
                out[q] += cubes[base + q]
            for q, p, cost in self.project(cubes, cand, c):
                out[q] += p * (self.lead[c] - cost)
        return out

    def score(self, cubes: list[int], cand: list[int], extra: list[float] | None = None) -> float:
        g = self.gains(cubes, cand)
        if extra is not None:
            g = [a + b for a, b in zip(g, extra, strict=True)]
        others = [g[q] for q in range(self.n) if q != self.me]
        return g[self.me] - self.spite * sum(others) / len(others)


# ---- simulated effects on a copy of (cubes, cand, supply) ------------------------------------


class Layout:
    """A mutable copy of the cube layout to try an option on."""

    __slots__ = ("cubes", "cand", "supply")

    def __init__(self, cubes: list[int], cand: list[int], supply: list[int]) -> None:
        self.cubes = cubes[:]
        self.cand = cand[:]
        self.supply = supply[:]

    @classmethod
    def of(cls, view: PlayerView) -> Layout:
        return cls(view.cubes, view.cand, view.supply)

    def copy(self) -> Layout:
        return Layout(self.cubes, self.cand, self.supply)

    def add(self, player: int, city: int, count: int) -> None:
        added = min(count, self.supply[player])  # B.12
        self.supply[player] -= added
        self.cubes[D.city_player_index(city, player)] += added

    def remove(self, player: int, city: int, count: int = 1) -> None:
        self.cubes[D.city_player_index(city, player)] -= count
        self.supply[player] += count

    # The effects and legal targets below are the engine's rule queries (engine.queries).

    def propose(self, city: int, nominee: int) -> None:
        Q.seat_candidate(self.cubes, self.cand, city, nominee)  # B.5

    def assassinate(self, city: int, target: int, victim: int) -> None:
        if target < D.MAX_PLAYERS:
            self.remove(victim, city)
        else:
            Q.unseat_candidate(self.cand, self.supply, city * 2 + target - A.ASSASSIN_ALPHA)

    def plague(self, city: int, n: int) -> None:
        for q, loss in enumerate(Q.plague_losses(self.cubes, self.cand, city, n)):  # D.2, E19
            if loss:
                self.remove(q, city, loss)

    def proposals(self, p: int, n: int) -> list[tuple[int, int]]:
        """Legal (city, nominee) proposals of player p here (B.5, E12), nominees by seat."""
        return sorted(Q.proposals(self.cubes, self.cand, p, n))

    def removals(self, n: int) -> list[tuple[int, int, int]]:
        """Legal Assassin targets: (city, target code, victim) (B.4, E16)."""
        cand = self.cand
        return [
            (c, t, t if t < D.MAX_PLAYERS else cand[c * 2 + t - A.ASSASSIN_ALPHA])
            for c, t in Q.assassination_targets(self.cubes, cand, n)
        ]


def best_follow_up(model: PoliticalModel, layout: Layout, kind: int, me: int) -> float:
    """Best score after the action a just-taken tile grants (A.5), or the plain score."""
    n = model.n
    best = None
    if kind == D.CANDIDATE:
        for c, q in layout.proposals(me, n):
            trial = layout.copy()
            trial.propose(c, q)
            s = model.score(trial.cubes, trial.cand)
            best = s if best is None or s > best else best
    elif kind == D.ASSASSIN:
        for c, target, victim in layout.removals(n):
            trial = layout.copy()
            trial.assassinate(c, target, victim)
            s = model.score(trial.cubes, trial.cand)
            best = s if best is None or s > best else best
    elif kind == D.ANY_CITY:
        for c in range(NCITY):
            trial = layout.copy()
            trial.add(me, c, 1)
            s = model.score(trial.cubes, trial.cand)
            best = s if best is None or s > best else best
    return model.score(layout.cubes, layout.cand) if best is None else best


def tile_value(model: PoliticalModel, view: PlayerView, slot: int) -> float:
    """Score after taking the display tile in ``slot`` and using it well (B.4 step 3)."""
    tile = D.INFLUENCE_TILES[view.display[slot]]
    layout = Layout.of(view)
    me = view.me
    if tile.kind != D.ANY_CITY:
        layout.add(me, tile.colour, tile.shards)
    return best_follow_up(model, layout, tile.kind, me)


def offset_of(view: PlayerView, player: int) -> int:
    """Seat offset of ``player`` relative to the viewer (actions.py convention)."""
    return (player - view.me) % view.n


def seat_of(view: PlayerView, offset: int) -> int:
    return (view.me + offset) % view.n
