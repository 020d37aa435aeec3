"""training/war_profile.py: counts read from the event log agree with the actions taken,
and the table tells the heuristic's war from a random player's."""

from __future__ import annotations

from perikles_env.training.war_profile import main, profile


def test_counts_agree_with_the_agents_actions():
    row = profile("random", "random", players=4, games=6)
    placed = sum(v for k, v in row.items() if k.startswith("place_") and k != "place_actions")
    # one "place" event per PLACE action of that seat, except requests denied (B.7.8)
    assert placed == row["place_actions"] - row.get("permission_denied", 0) > 0
    claims = row.get("claim_attack", 0) + row.get("claim_defend", 0)
    assert 0 < claims <= 21  # at most 7 location tiles per turn
    assert row["location_vp"] >= claims  # every location tile is worth at least 1 VP
    assert row["vp"] >= row["location_vp"]
    assert 0 <= row["win"] <= 1


def test_heuristic_defends_more_and_wins_more_defences_than_random(capsys):
    heuristic = profile("heuristic", "random", players=4, games=8)
    random = profile("random", "random", players=4, games=8)
    assert heuristic["place_main_defend"] > random["place_main_defend"]
    assert heuristic["claim_defend"] > random["claim_defend"]
    assert main(["--agents", "heuristic,random", "--games", "2", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n| heuristic |") == 1 and out.count("\n| random |") == 1
