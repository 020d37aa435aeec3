"""Exact combat odds (C.5, C.6, C.3): ``round_win_probability`` and ``battle_win_probability``
checked against an independent oracle written here (explicit 6^4 dice enumeration and an
exact rational solve of the token-race Markov chain) and against a seeded Monte-Carlo run of
the real engine's dice."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product

import pytest

from perikles_env.engine import data as D
from perikles_env.engine.combat import battle_win_probability, round_win_probability
from perikles_env.engine.rng import Rng
from tests.engine.builders import klass, prepare_battles, reference_crt_column, start_battles

ATT, DEF = 0, 1
MAIN = 0
# C.5 table: column -> (attacker needs, defender needs), P(attacker hits) * 36, P(def) * 36.
NEEDS = {"1:2": (10, 5), "-2": (9, 6), "1:1": (8, 7), "+2": (7, 8), "2:1": (6, 9), "3:1": (5, 10)}
HIT36 = {"1:2": (6, 30), "-2": (10, 26), "1:1": (15, 21), "+2": (21, 15), "2:1": (26, 10),
         "3:1": (30, 6)}  # fmt: skip
COLUMN_ORDER = ("1:2", "-2", "1:1", "+2", "2:1", "3:1")
# One strength pair per column, for the symmetry checks.
PAIR = {"1:2": (1, 2), "-2": (3, 5), "1:1": (4, 4), "+2": (5, 3), "2:1": (4, 2), "3:1": (3, 1)}


# ---- the independent oracle -------------------------------------------------------------------


def solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Exact Gauss-Jordan elimination."""
    n = len(rhs)
    m = [row[:] + [r] for row, r in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if m[r][col] != 0)
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col] != 0:
                f = m[r][col] / m[col][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


@cache
def exact_round(column: str) -> dict[tuple[int, int], Fraction]:
    """P(attacker wins the round) from each starting token state, C.6 rules applied to every
    one of the 6^4 equally likely dice outcomes of a roll."""
    need_a, need_d = NEEDS[column]
    states = [(0, 0), (0, 1), (1, 0), (1, 1), "rolloff"]
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    matrix = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    rhs = [Fraction(0)] * n
    w = Fraction(1, 6**4)
    for s in states:
        i = index[s]
        for d1, d2, d3, d4 in product(range(1, 7), repeat=4):
            hit_a, hit_d = d1 + d2 >= need_a, d3 + d4 >= need_d
            if s == "rolloff":
                nxt = 1 if hit_a and not hit_d else 0 if hit_d and not hit_a else "rolloff"
            else:
                ta, td = min(s[0] + hit_a, 2), min(s[1] + hit_d, 2)
                if ta == 2 and td == 2:
                    nxt = "rolloff"
                elif ta == 2:
                    nxt = 1
                elif td == 2:
                    nxt = 0
                else:
                    nxt = (ta, td)
            if nxt in (0, 1):
                rhs[i] += w * nxt
            else:
                matrix[i][index[nxt]] -= w
    values = solve(matrix, rhs)
    return {s: values[index[s]] for s in states if s != "rolloff"}


def oracle_round(a: int, d: int, ta: int = 0, td: int = 0) -> Fraction:
    return exact_round(reference_crt_column(a, d))[(ta, td)]


def oracle_battle(rounds: list[tuple[int, int]], ta: int = 0, td: int = 0) -> Fraction:
    """P(the attacker wins the final round): C.3 (automatic, empty, head start) by recursion
    over the rounds, with the oracle's exact dice rounds."""
    last = len(rounds) - 1

    def go(i: int, head: int | None) -> Fraction:
        a, d = rounds[i]
        extra_a, extra_d = (ta, td) if i == 0 else (0, 0)
        if a == 0 and d == 0:  # empty round: no head start; empty final round -> no win
            return Fraction(0) if i == last else go(i + 1, None)
        if a == 0:
            p = Fraction(0)
        elif d == 0:
            p = Fraction(1)
        else:
            p = oracle_round(a, d, extra_a + (head == ATT), extra_d + (head == DEF))
        if i == last:
            return p
        return p * go(i + 1, ATT) + (1 - p) * go(i + 1, DEF)

    return go(0, None)


# ---- C.5 hit probabilities -----------------------------------------------------------------


def test_C5_hit_probability_rows():
    """C.5: P(hit on one roll) per column, by enumerating 2d6, matches the C.5 table and
    the engine's needs table."""
    for i, column in enumerate(D.CRT_COLUMNS):
        need_a, need_d = D.CRT_ATTACKER_NEEDS[i], D.CRT_DEFENDER_NEEDS[i]
        assert (need_a, need_d) == NEEDS[column]
        hits_a = sum(1 for x, y in product(range(1, 7), repeat=2) if x + y >= need_a)
        hits_d = sum(1 for x, y in product(range(1, 7), repeat=2) if x + y >= need_d)
        assert (hits_a, hits_d) == HIT36[column]
        assert (D.TWO_D6_AT_LEAST[need_a], D.TWO_D6_AT_LEAST[need_d]) == HIT36[column]


# ---- round_win_probability -------------------------------------------------------------------


def test_C6_round_win_probability_matches_exact_oracle():
    """C.6: the engine's exact round odds equal the oracle for A, D in 1..15 and every
    starting token state (head start and token tiles)."""
    worst = 0.0
    for a, d, ta, td in product(range(1, 16), range(1, 16), (0, 1), (0, 1)):
        worst = max(worst, abs(round_win_probability(a, d, ta, td) - oracle_round(a, d, ta, td)))
    assert worst < 1e-12


def test_C6_oracle_closed_form_at_one_to_one_with_both_tokens():
    """C.6 sanity of the oracle itself: from 1:1 tokens the next roll decides unless both hit
    (roll-off) or both miss (repeat): P = (a(1-d) + a d r) / (1 - (1-a)(1-d)), with the
    roll-off value r = a(1-d) / (a(1-d) + d(1-a))."""
    for column, (ha, hd) in HIT36.items():
        a, d = Fraction(ha, 36), Fraction(hd, 36)
        r = a * (1 - d) / (a * (1 - d) + d * (1 - a))
        expected = (a * (1 - d) + a * d * r) / (1 - (1 - a) * (1 - d))
        assert exact_round(column)[(1, 1)] == expected
        assert round_win_probability(*PAIR[column], 1, 1) == pytest.approx(float(expected))


@pytest.mark.parametrize("column, mirror", [("3:1", "1:2"), ("+2", "1:1"), ("2:1", "-2")])
@pytest.mark.parametrize("ta, td", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_C5_C6_mirror_columns_are_complementary(column, mirror, ta, td):
    """C.5/C.6 symmetry: 3:1 is 1:2 with the roles swapped (30/36 vs 6/36), +2 mirrors 1:1
    and 2:1 mirrors -2; swapping the tokens too, the two win chances add up to 1."""
    p = round_win_probability(*PAIR[column], ta, td)
    q = round_win_probability(*PAIR[mirror], td, ta)
    assert p + q == pytest.approx(1.0, abs=1e-12)


def test_C3_C6_head_start_helps_and_columns_are_ordered():
    """C.3/C.6: a token helps its owner strictly; better columns win strictly more often."""
    for a, d in product(range(1, 13), repeat=2):
        p00 = round_win_probability(a, d)
        assert round_win_probability(a, d, 1, 0) > p00 > round_win_probability(a, d, 0, 1)
        assert (
            round_win_probability(a, d, 1, 0)
            > round_win_probability(a, d, 1, 1)
            > round_win_probability(a, d, 0, 1)
        )
    by_column = [round_win_probability(*PAIR[c]) for c in COLUMN_ORDER]
    assert by_column == sorted(by_column) and len(set(by_column)) == 6


def test_C6_round_win_probability_known_values():
    """C.6 spot values from the oracle as exact fractions: e.g. 1:1 from 0:0."""
    for column in COLUMN_ORDER:
        for tokens, value in exact_round(column).items():
            assert round_win_probability(*PAIR[column], *tokens) == pytest.approx(
                float(value), abs=1e-12
            )
    assert 0.0 < round_win_probability(4, 4) < 0.5  # the defender's 21/36 beats 15/36


# ---- battle_win_probability ------------------------------------------------------------------


def test_C3_battle_win_probability_matches_oracle_on_a_grid():
    """C.3/C.8: two-round battles with strengths 0..4 each (automatic rounds, empty rounds,
    head start) and round-1 token tiles agree with the oracle."""
    worst = 0.0
    for a1, d1, a2, d2 in product(range(5), repeat=4):
        for ta, td in ((0, 0), (1, 0), (0, 1)):
            rounds = [(a1, d1), (a2, d2)]
            got = battle_win_probability(rounds, ta, td)
            worst = max(worst, abs(got - oracle_battle(rounds, ta, td)))
    assert worst < 1e-12


@pytest.mark.parametrize(
    "rounds, expected",
    [
        ([(3, 3), (0, 0)], 0.0),  # E28: empty final round is never an attacker win
        ([(3, 0), (0, 0)], 0.0),  # E28 after an automatic round-1 win
        ([(3, 3), (2, 0)], 1.0),  # automatic attacker win in the final round
        ([(3, 3), (0, 2)], 0.0),  # automatic defender win in the final round
        ([(0, 0), (0, 0)], 0.0),
    ],
)
def test_C3_E28_battle_win_probability_special_cases(rounds, expected):
    """C.3/E28: automatic and empty rounds in the battle odds."""
    assert battle_win_probability(rounds) == expected


def test_C3_battle_win_probability_head_start_and_single_round():
    """C.3: round-1 winners carry 1 token; an empty round 1 carries none; one-round tiles
    equal the round odds."""
    assert battle_win_probability([(4, 4)]) == pytest.approx(round_win_probability(4, 4))
    assert battle_win_probability([(4, 4)], 1, 0) == pytest.approx(
        round_win_probability(4, 4, 1, 0)
    )
    assert battle_win_probability([(0, 0), (2, 2)]) == pytest.approx(round_win_probability(2, 2))
    assert battle_win_probability([(3, 0), (2, 2)]) == pytest.approx(
        round_win_probability(2, 2, 1, 0)
    )
    assert battle_win_probability([(0, 3), (2, 2)]) == pytest.approx(
        round_win_probability(2, 2, 0, 1)
    )
    p1 = round_win_probability(7, 5)
    sicily = p1 * round_win_probability(3, 7, 1, 0) + (1 - p1) * round_win_probability(3, 7, 0, 1)
    assert battle_win_probability([(7, 5), (3, 7)]) == pytest.approx(sicily, abs=1e-12)


# ---- Monte-Carlo with the engine's own dice ---------------------------------------------------


def monte_carlo(base, tile: str, runs: int) -> float:
    """Fraction of seeded runs in which the main attacker (player 0) claims the tile."""
    wins = 0
    for seed in range(runs):
        g = base.clone()
        g.rng = Rng(10_000 + seed)
        g.record = False
        start_battles(g)
        assert g.is_terminal
        wins += g.loc_claim[D.LOCATION_IDS[tile]] & 1
    return wins / runs


def test_C9_monte_carlo_of_the_engine_matches_battle_odds():
    """C.3-C.6: the C.9 Sicily forces (T 7 vs 5, H 3 vs 7 incl. militia) fought 3000 times
    with the engine's RNG; the attacker's win rate matches battle_win_probability."""
    base = prepare_battles(
        leaders={"athens": 0, "sparta": 1},
        locations=["sicily"],
        mains={(0, ATT): 0, (0, DEF): 1},
        counters=[
            (0, ATT, MAIN, klass("athens", "T", 4), 1),
            (0, ATT, MAIN, klass("athens", "T", 3), 1),
            (0, ATT, MAIN, klass("athens", "H", 3), 1),
            (0, DEF, MAIN, klass("sparta", "T", 3), 1),
            (0, DEF, MAIN, klass("sparta", "T", 1), 1),
            (0, DEF, MAIN, klass("sparta", "H", 4), 1),
            (0, DEF, MAIN, klass("sparta", "H", 2), 1),
        ],
    )
    runs = 3000
    expected = battle_win_probability([(7, 5), (3, 7)])
    assert monte_carlo(base, "sicily", runs) == pytest.approx(expected, abs=0.04)


@pytest.mark.parametrize(
    "attackers, defenders, a, d",
    [
        ([("athens", "H", 3)], [("argos", "H", 3), ("argos", "H", 2)], 3, 5),  # -2
        ([("athens", "H", 3), ("athens", "H", 2)], [("argos", "H", 2)], 5, 2),  # 2:1
    ],
)
def test_C6_monte_carlo_single_round(attackers, defenders, a, d):
    """C.6: one dice round at Mantinea (H only, no militia), 2000 seeded engine runs."""
    base = prepare_battles(
        leaders={"athens": 0, "sparta": 1, "argos": 2},
        locations=["mantinea"],
        mains={(0, ATT): 0, (0, DEF): 2},
        counters=[(0, ATT, MAIN, klass(*c), 1) for c in attackers]
        + [(0, DEF, MAIN, klass(*c), 1) for c in defenders],
    )
    expected = round_win_probability(a, d)
    assert monte_carlo(base, "mantinea", 2000) == pytest.approx(expected, abs=0.045)
