"""PlayerView exposes public state and the viewer's own secrets only (docs/rules.md section F)."""

from __future__ import annotations

import pytest
from engine.builders import DEFEND, game_at_commit, klass, place  # tests/engine

from perikles_env.agents import PlayerView
from perikles_env.engine import data as D
from perikles_env.engine.phases import Phase
from tests.agents.helpers import play
from tests.agents.hidden import hidden_differs, perturb_hidden, revealed_slot


def _decision_points(n: int, seed: int, every: int = 7):
    for i, (g, p, _) in enumerate(play(["heuristic"] * n, seed)):
        if i % every == 0 or g.phase in (Phase.COMMIT, Phase.BATTLE_SPECIAL, Phase.PERMISSION):
            yield g.clone(), p


@pytest.mark.parametrize("n", [3, 4, 5])
def test_view_unchanged_when_hidden_components_change(n: int) -> None:
    """F: deck orders, the RNG, others' specials and unknown counter strengths are hidden."""
    checked = changed = 0
    for g, p in _decision_points(n, seed=11 + n):
        other = perturb_hidden(g, p, seed=checked)
        changed += hidden_differs(g, other)
        assert PlayerView(g, p).snapshot() == PlayerView(other, p).snapshot()
        checked += 1
    assert checked > 50 and changed > checked // 2


def test_view_shows_own_special_and_pool_exactly() -> None:
    for g, p in _decision_points(4, seed=5):
        v = PlayerView(g, p)
        assert v.my_special == g.special[p]
        assert v.has_special == [t >= 0 for t in g.special]
        for k in range(D.NUM_CLASSES):
            mine = v.controlled >> D.CLASS_CITY[k] & 1
            assert v.my_pool[k] == (g.pool[k] if mine else 0)


def test_unknown_mean_is_the_mean_of_unrevealed_counters() -> None:
    """The public summary of a city's hidden strengths equals the true mean of its pooled and
    face-down counters (the multiset is public, F)."""
    seen = 0
    for g, p in _decision_points(4, seed=9, every=1):
        if g.phase != Phase.COMMIT:
            continue
        v = PlayerView(g, p)
        skip = revealed_slot(g)
        for x in range(D.NUM_MILITARY_CITIES):
            for t in (D.HOPLITE, D.TRIREME):
                count = total = 0
                for k in D.CLASSES_OF[x][t]:
                    here = g.pool[k] + sum(
                        g.at[box * D.NUM_CLASSES + k]
                        for box in range(D.LOCATION_SLOTS * 4)
                        if box // 4 != skip
                    )
                    count += here
                    total += here * D.CLASS_STRENGTH[k]
                if count:
                    assert v.unknown_mean[x * 2 + t] == pytest.approx(total / count)
                    seen += 1
    assert seen > 20


def test_own_committed_counters_are_known_exactly() -> None:
    found = 0
    for g, p in _decision_points(4, seed=3, every=1):
        v = PlayerView(g, p)
        for slot in range(D.LOCATION_SLOTS):
            for side in (0, 1):
                for t in (D.HOPLITE, D.TRIREME):
                    for x in range(D.NUM_MILITARY_CITIES):
                        if not v.controlled >> x & 1:
                            continue
                        exact = sum(
                            g.at[((slot * 2 + side) * 2 + box) * D.NUM_CLASSES + k]
                            * D.CLASS_STRENGTH[k]
                            for box in (0, 1)
                            for k in D.CLASSES_OF[x][t]
                        )
                        assert v.known_city_strength(slot, side, x, t) == exact
                        found += exact > 0
    assert found > 10


def test_permission_request_hides_the_counter_strength() -> None:
    """The owner asked for permission learns the city and type, not the strength (F)."""
    g = game_at_commit(n=4, leaders={"athens": 0, "sparta": 1}, locations=["attica"])
    g.current = g.step_player = 1
    weak, strong = klass("sparta", "H", 1), klass("sparta", "H", 4)
    views = []
    for k in (weak, strong):
        h = g.clone()
        h.apply_action_checked(place(k, 0, DEFEND))
        assert h.phase == Phase.PERMISSION and h.current == 0 and h.pending[0] == k
        views.append(PlayerView(h, 0))
    assert views[0].pending == (D.SPARTA, D.HOPLITE, 0, DEFEND)
    assert views[0].snapshot() == views[1].snapshot()
