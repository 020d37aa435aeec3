"""Every caller of the table loop plays the same games from the same seeds as before it
moved onto the loop: digests recorded on the code before the move (loop_digests.py)."""

from __future__ import annotations

import pytest

from perikles_env.engine.backend import native_available

from .loop_digests import CALLERS

# recorded at 7868ce4, before any caller went through agents/table_loop.py; expert_selfplay
# recorded again when the search's network began to run in C++ (native/players/net_forward.hpp:
# the same network, its float32 sums in another order, so its search targets differ in the
# last bits)
RECORDED = {
    "evaluation": "7939eefa820378c2",
    "pretrain": "67e4a4c590845f1b",
    "agreement": "de6ccb216f54cb04",
    "war_profile": "4babe2473c2ac487",
    "warmstart": "2abc20d4dc839773",
    "expert_selfplay": "9325c1f2bd51de80",
    "terminal_game": "51f908825d6abbfe",
    "single_agent_table": "dbb78d76c043d02f",
}


@pytest.mark.skipif(not native_available(), reason="C++ core not built")
@pytest.mark.parametrize("caller", sorted(RECORDED))
def test_caller_plays_the_games_it_played_before_the_loop(caller: str) -> None:
    assert CALLERS[caller]() == RECORDED[caller]
