"""``rgb_array`` videos show how each turn ended: the step that fights a turn's battles
leaves the end-of-turn board in ``turn_end_frames`` (one per turn passed, captioned)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("resvg_py")

from perikles_env.environment import env as make_env  # noqa: E402


def test_a_video_gets_one_end_of_turn_frame_per_finished_turn() -> None:
    aec = make_env(num_players=3, render_mode="rgb_array", backend="python")
    aec.reset(seed=4)
    rng = np.random.default_rng(4)
    frames_at_turn_ends = []
    turn = aec.unwrapped.game.turn
    while not all(aec.terminations.values()) and not all(aec.truncations.values()):
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
        extra = aec.unwrapped.turn_end_frames
        game = aec.unwrapped.game
        if game.turn != turn and not game.is_terminal:
            assert len(extra) == 1, "the step that ended a turn shows its board"
            frames_at_turn_ends.append(extra[0])
            turn = game.turn
        elif not game.is_terminal:
            assert extra == []
    assert frames_at_turn_ends  # every turn that ended before the game did (the last one's
    # end is the final board itself)
    picture = aec.render()
    for frame in frames_at_turn_ends:
        assert frame.shape == picture.shape and frame.dtype == np.uint8
        assert not np.array_equal(frame, picture)
