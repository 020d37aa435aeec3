"""Board pictures: ``render_mode="rgb_array"`` frames over a whole seeded game,
what the SVG shows (docs/rules.md F: only what the observer may know), and that envs which do
not render never load the rasteriser."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from perikles_env import env
from perikles_env.engine import Phase
from perikles_env.engine import data as D
from perikles_env.engine.determinize import determinize
from perikles_env.engine.information import known_cities
from perikles_env.errors import InvalidConfigError
from perikles_env.render import HEIGHT, WIDTH, board_rgb, board_svg
from perikles_env.render.narrate import special_title
from perikles_env.render.raster import svg_to_rgb

from .helpers import commit_with_hidden_forces, group_texts, svg_texts


def _frames_of_a_game(every: int) -> None:
    """Step a seeded 4-player game with rgb_array rendering; rasterise every ``every``-th
    decision, every phase change and the end. Each frame is a real picture, and two frames
    differ exactly when the public board (its SVG) differs."""
    e = env(num_players=4, render_mode="rgb_array")
    e.reset(seed=21)
    raw = e.unwrapped
    rng = np.random.default_rng(21)
    previous: tuple[str, np.ndarray] | None = None
    phases = set()
    decision = 0
    checked = 0
    while True:
        game = raw.game
        svg = board_svg(game, None)
        phase_change = previous is None or game.phase.name not in phases
        phases.add(game.phase.name)
        if decision % every == 0 or phase_change or game.is_terminal:
            frame = e.render()
            assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
            rgb = frame.astype(np.int32)
            colours = np.unique(rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2])
            assert len(colours) > 50  # a drawn board, not a blank canvas
            assert (frame.std(axis=(0, 1)) > 20).all()
            if previous is not None:
                assert (previous[0] == svg) == np.array_equal(previous[1], frame)
            previous = (svg, frame)
            checked += 1
        if game.is_terminal:
            break
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
        decision += 1
    assert checked >= decision // every and "GAME_OVER" in phases and "COMMIT" in phases


def test_rgb_array_frames_through_a_seeded_game_sampled() -> None:
    _frames_of_a_game(every=80)


@pytest.mark.slow
def test_rgb_array_frame_at_every_decision_of_a_seeded_4_player_game() -> None:
    _frames_of_a_game(every=1)


def test_svg_changes_at_every_decision_of_a_seeded_game() -> None:
    """Every decision changes what the public picture shows (who acts, or the board)."""
    e = env(num_players=4)
    e.reset(seed=21)
    rng = np.random.default_rng(21)
    svg = board_svg(e.unwrapped.game)
    while not e.unwrapped.game.is_terminal:
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        after = board_svg(e.unwrapped.game)
        texts_changed = svg_texts(after) != svg_texts(svg)
        assert after != svg and (texts_changed or "<rect" in after)
        svg = after


@pytest.mark.parametrize("players,seed", [(3, 5), (4, 6), (5, 7)])
def test_states_differing_only_in_hidden_information_give_identical_pictures(
    players: int, seed: int
) -> None:
    g = commit_with_hidden_forces(players, seed)
    strength_swaps = 0
    for viewer in range(players):
        picture = board_svg(g, viewer)
        public = board_svg(g, None)
        for sample in range(4):
            h = determinize(g, viewer, np.random.default_rng([seed, viewer, sample]))
            strength_swaps += h.at != g.at or h.pool != g.pool
            assert board_svg(h, viewer) == picture
            assert board_svg(h, None) == public
    assert strength_swaps > 0  # the samples really moved hidden strengths
    h = determinize(g, 0, np.random.default_rng(99))
    assert np.array_equal(board_rgb(h, 0), board_rgb(g, 0))


def test_a_visible_change_changes_the_picture() -> None:
    g = commit_with_hidden_forces(4, 8)
    d = g.to_dict()
    d["cubes"][D.MEGARA * 5 + 1] += 1
    d["supply"][1] -= 1
    h = type(g).from_dict(d)
    assert not np.array_equal(board_rgb(h, None, scale=0.5), board_rgb(g, None, scale=0.5))


def test_the_picture_shows_own_strengths_and_backs_for_the_rest() -> None:
    g = commit_with_hidden_forces(4, 9)
    for viewer in range(4):
        known = known_cities(g, viewer)
        for slot in range(D.LOCATION_SLOTS):
            texts = group_texts(board_svg(g, viewer), f"location {slot}")
            for side in (0, 1):
                for box in (0, 1):
                    base = ((slot * 2 + side) * 2 + box) * D.NUM_CLASSES
                    for k in D.EXISTING_CLASSES:
                        if not g.at[base + k]:
                            continue
                        kind = D.UNIT_TYPE_NAMES[D.CLASS_TYPE[k]]
                        if known >> D.CLASS_CITY[k] & 1:
                            assert f"{kind}{D.CLASS_STRENGTH[k]}" in texts
                        else:
                            assert f"{kind}?" in texts
        public = board_svg(g, None)
        assert not any(t[:1] in "HT" and t[1:].isdigit() and len(t) == 2
                       for t in svg_texts(public))  # no strength is public here


def test_the_picture_shows_scores_leaders_and_own_special_only() -> None:
    g = commit_with_hidden_forces(4, 10)
    scores = g.scores()
    for viewer in (None, 0, 1, 2, 3):
        svg = board_svg(g, viewer)
        for p in range(4):
            row = group_texts(svg, f"player p{p}")
            assert str(scores[p]) in row
            own = g.special[p]
            if own >= 0:
                name = special_title(D.SPECIAL_NAMES[own])
                assert any(name in t for t in row) == (viewer == p)
        for c in range(D.NUM_CITIES):
            card = group_texts(svg, f"city {D.CITY_NAMES[c]}")
            assert card[0] == D.CITY_NAMES[c].upper()
            assert (g.leader[c] >= 0) == (str(g.leader[c]) in card[1:])
    header = group_texts(board_svg(g, None), "header")
    assert f"to act: p{g.current}" in header and "public view" in header


def test_during_a_battle_everyone_sees_the_revealed_strengths() -> None:
    import random

    from perikles_env.engine import GameConfig, new_game

    g = new_game(GameConfig(num_players=4), seed=9)
    r = random.Random(9)
    while not (g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY) and g.b_round >= 0
               and sum(g.at[g.b_slot * 4 * D.NUM_CLASSES:(g.b_slot + 1) * 4 * D.NUM_CLASSES])):
        g.apply_action(r.choice(g.legal_actions()))
    texts = group_texts(board_svg(g, None), f"location {g.b_slot}")
    faces = [t for t in texts if len(t) == 2 and t[0] in "HT" and t[1].isdigit()]
    assert faces and not any(t.endswith("?") and len(t) == 2 for t in texts)


def test_render_modes_are_checked_and_idle_envs_never_load_the_rasteriser() -> None:
    with pytest.raises(InvalidConfigError, match="render_mode"):
        env(num_players=4, render_mode="video")
    assert "rgb_array" in env(num_players=3).unwrapped.metadata["render_modes"]
    code = (
        "import sys, numpy as np\n"
        "from perikles_env import env\n"
        "e = env(num_players=4); e.reset(seed=1)\n"
        "for _ in range(50):\n"
        "    e.step(int(np.flatnonzero(e.observe(e.agent_selection)['action_mask'])[0]))\n"
        "print(sorted(m for m in ('resvg_py', 'PIL') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_svg_to_rgb_scales() -> None:
    svg = board_svg(commit_with_hidden_forces(3, 11))
    small = svg_to_rgb(svg, scale=0.5)
    assert small.shape == (HEIGHT // 2, WIDTH // 2, 3) and small.dtype == np.uint8


def _commit_phases(players: int, seeds):
    """The first commit-phase state of a uniform-random game per seed (if it gets there)."""
    import random

    from perikles_env.engine import GameConfig, new_game

    for seed in seeds:
        game = new_game(GameConfig(num_players=players), seed=seed)
        chooser = random.Random(seed)
        while not game.is_terminal and game.phase != Phase.COMMIT:
            game.apply_action(chooser.choice(game.legal_actions()))
        if not game.is_terminal:
            yield game


def test_a_leaders_hand_is_never_cut_off_on_its_city_card() -> None:
    """In the leader's own view every counter of his hand is listed on the city card (on two
    lines when one is too short), none cut off."""


    longest = 0
    for game in _commit_phases(4, range(12)):
        for c in range(D.NUM_CITIES):
            leader = game.leader[c]
            if leader < 0:
                continue
            texts = group_texts(board_svg(game, leader), f"city {D.CITY_NAMES[c]}")
            start = next(i for i, t in enumerate(texts) if t.startswith("hand "))
            shown = " ".join(texts[start:])[5:].split()
            hand = [
                f"{D.UNIT_TYPE_NAMES[D.CLASS_TYPE[k]]}{D.CLASS_STRENGTH[k]}x{game.pool[k]}"
                for t in (D.HOPLITE, D.TRIREME)
                for k in D.CLASSES_OF[c][t]
                if game.pool[k]
            ]
            assert shown == hand and all(len(t) <= 34 for t in texts[start:]), texts
            longest = max(longest, len("hand " + " ".join(hand)))
    assert longest > 34  # some hand needed the second line


def test_a_video_gets_the_board_at_each_end_of_turn() -> None:
    """``turn_end_frames``: no frame for an ordinary step; for the step that ends a turn, the
    public board after the turn's battles and scoring, which the next decision's board (the
    new turn) does not show."""
    import random

    from perikles_env.engine import GameConfig, new_game
    from perikles_env.environment.render import turn_end_frames
    from perikles_env.render.turns import turn_end_states

    game = new_game(GameConfig(num_players=3), seed=4)
    chooser = random.Random(4)
    ordinary = 0
    while True:
        action = chooser.choice(game.legal_actions())
        before = game.clone()
        game.apply_action(action)
        ended = any(e[0] == "end_turn" for e in game.event_log[len(before.event_log):])
        if not ended:
            if ordinary < 3:
                assert turn_end_frames(before, action) == []
                ordinary += 1
            continue
        [frame] = turn_end_frames(before, action)
        [state] = turn_end_states(before, action)
        expected = svg_to_rgb(board_svg(state, None, caption=f"end of turn {state.turn}"))
        assert frame.shape == (HEIGHT, WIDTH, 3) and np.array_equal(frame, expected)
        assert not np.array_equal(frame, board_rgb(game, None))
        header = group_texts(board_svg(state, None, caption="end of turn 1"), "header")
        assert f"turn 1 of {D.NUM_TURNS}  ·  end of turn 1" in header
        assert not any("to act" in t for t in header)
        break


def test_the_cities_a_player_leads_fit_their_column() -> None:
    """However many cities a player leads, their names stay inside the 'led' column
    (three letters a city up to three cities, then two at a smaller size: at most 17
    characters), never over his special tiles."""


    most = 0
    for game in _commit_phases(3, range(40)):
        for p in range(game.n):
            count = sum(1 for c in range(D.NUM_CITIES) if game.leader[c] == p)
            texts = group_texts(board_svg(game, None), f"player p{p}")
            led = texts[5]
            assert len(led.split()) == max(count, 1) and len(led) <= 17, led
            most = max(most, count)
    assert most >= 4
