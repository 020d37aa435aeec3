"""What a seat's browser receives: only what that seat may know (the payload is the same for
every hidden state ``determinize`` can produce for the seat), every legal move in words with
a board place that exists, and battle odds that are the engine's."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from perikles_env.engine import actions as A
from perikles_env.engine import data as D
from perikles_env.engine.combat import battle_win_probability
from perikles_env.engine.determinize import determinize
from perikles_env.engine.information import known_cities
from perikles_env.engine.phases import Phase
from perikles_env.engine.queries import ROUND_DICE, odds_inputs
from perikles_env.render.narrate import class_words
from perikles_env.render.svg import board_svg
from perikles_env.web import hotspots
from perikles_env.web.moves import legal_moves
from perikles_env.web.payload import battle, seat_payload

from .helpers import STRENGTH, make_table, play_out, states

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished 4-player game (one uniform-random human seat, three heuristic players)
    and its states, and a 5-player one with two random humans."""
    tables = []
    for specs, seed in ((["human", "heuristic", "heuristic", "heuristic"], 11),
                        (["human", "heuristic", "human", "random", "heuristic"], 12)):
        table = make_table(tmp_path_factory.mktemp("games"), specs, seed)
        play_out(table, seed, lambda g, rng: int(rng.choice(g.legal_actions())))
        tables.append((table, states(table)))
    return tables


def test_a_seat_payload_is_the_same_for_every_hidden_state_it_cannot_tell_apart(played):
    rng = np.random.default_rng(5)
    checked = sensitive = 0
    for table, games in played:
        n = len(table.seats)
        for step in range(0, len(games), 6):
            game = games[step]
            feeds = [[x for x in table.feed[s] if x["step"] <= step] for s in range(n)]
            payloads = [seat_payload(game, s, table.names, feeds[s], step) for s in range(n)]
            for seat in range(n):
                other = determinize(game, seat, rng)
                assert seat_payload(other, seat, table.names, feeds[seat], step) == \
                    payloads[seat], f"step {step}: p{seat}'s payload depends on hidden state"
                checked += 1
                # the comparison can fail: the same sample usually changes another's view
                q = (seat + 1) % n
                sensitive += seat_payload(other, q, table.names, feeds[q], step) != payloads[q]
    assert checked > 200
    assert sensitive > 20


def test_the_feed_tells_a_placed_counter_strength_to_nobody_but_its_controllers(played):
    placed = 0
    for table, games in played:
        for step, action in enumerate(table.actions):
            kind, klass, _, _ = A.decode(action)
            if kind != "PLACE":
                continue
            game = games[step]
            for seat in range(len(table.seats)):
                if known_cities(game, seat) >> D.CLASS_CITY[klass] & 1:
                    continue
                # the placement's own line (a battle it ends in reveals counters later)
                line = next(x["text"] for x in table.feed[seat] if x["step"] == step + 1)
                assert class_words(klass, strength=False) in line or "permission" in line, line
                assert not STRENGTH.search(line), line
                placed += 1
    assert placed > 20


def _rects(svg: str, group: str) -> set[tuple[float, float, float, float]]:
    root = ET.fromstring(svg)
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == group:
            return {tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
                    for r in g.iter(f"{SVG}rect")}
    raise AssertionError(f"no group {group!r}")


def test_hotspots_lie_on_the_boxes_the_board_draws(played):
    table, games = played[0]
    game = next(g for g in games if g.phase == Phase.COMMIT and g.current == 0)
    svg = board_svg(game, 0)
    n = game.n
    for c in range(D.NUM_CITIES):
        assert hotspots.box(f"city:{c}", n, 0) in _rects(svg, f"city {D.CITY_NAMES[c]}")
    for slot in range(D.LOCATION_SLOTS):
        rects = _rects(svg, f"location {slot}")
        for side in (0, 1):
            assert hotspots.box(f"side:{slot}:{side}", n, 0) in rects
        x, y, _, h = hotspots.box(f"loc:{slot}", n, 0)
        assert any(r[:2] == (x, y) and r[3] == h for r in rects)
    tiles = _rects(svg, "influence")
    for i in range(D.INFLUENCE_DISPLAY_SIZE):
        assert hotspots.box(f"tile:{i}", n, 0) in tiles
    current = _rects(svg, f"player p{game.current}")  # the row of the player to act
    assert hotspots.box(f"player:{game.current}", n, 0) in current


def test_every_legal_move_has_words_and_a_board_place_that_exists(played):
    seen_kinds = set()
    for _table, games in played:
        for game in games[:-1]:
            moves = legal_moves(game)
            assert sorted(m.action for m in moves) == game.legal_actions()
            paths = [tuple(m.path) for m in moves]
            assert len(set(paths)) == len(paths), "two moves read the same"
            for m in moves:
                kind = A.decode(m.action)[0]
                seen_kinds.add(kind)
                text = " ".join(m.path)
                assert "_" not in text and kind not in text, text
                for target in m.targets:
                    assert hotspots.box(target, game.n, game.current) is not None, target
                assert m.confirm == (kind in ("PLACE", "END_STEP", "SPEND_CUBE",
                                              "PLAY_PERIKLES", "PLAY_PLAGUE", "SLAVE_REVOLT",
                                              "BATTLE_DOUBLE", "BATTLE_TOKEN"))
                if kind == "TAKE_TILE":
                    assert m.targets == [f"tile:{m.action - A.TAKE_TILE}"]
                if kind == "PLACE":
                    _, klass, slot, side = A.decode(m.action)
                    assert m.targets == [f"side:{slot}:{side}"]
                    assert class_words(klass) in text
    assert {"TAKE_TILE", "PROPOSE", "PLACE", "END_STEP", "BATTLE_PASS"} <= seen_kinds


def test_battle_odds_are_the_engines_for_the_rounds_left(played):
    checked = 0
    for _table, games in played:
        for game in games:
            if game.phase != Phase.BATTLE_SPECIAL or game.b_double:
                continue
            odds = battle(game, game.current)
            rounds = game.predicted_rounds(game.b_slot)[game.b_round:]
            if odds is None:  # a round without dice asks no battle decision
                assert rounds[0][1] != ROUND_DICE
                continue
            engine = battle_win_probability(list(odds_inputs(rounds)), *game.b_tokens)
            assert odds["p_location"] == pytest.approx(engine)
            assert (odds["attack"], odds["defence"]) == game.round_strengths(
                game.b_slot, rounds[0][0])
            assert sorted(o["action"] for o in odds["options"]) == game.legal_actions()
            passing = next(o for o in odds["options"] if o["action"] == A.BATTLE_PASS)
            assert passing["p_location"] == odds["p_location"]
            others = [battle(game, q) for q in range(game.n) if q != game.current]
            assert all(o["options"] == [] for o in others)
            checked += 1
    assert checked >= 3
    assert battle(played[0][1][0], 0) is None


def test_the_payload_offers_moves_only_to_the_seat_to_act(played):
    table, games = played[1]
    game = next(g for g in games if g.phase == Phase.COMMIT
                and any(g.main[slot * 2] >= 0 for slot in range(D.LOCATION_SLOTS)))
    for seat in range(game.n):
        payload = seat_payload(game, seat, table.names, [], 0)
        mine = seat == game.current
        assert bool(payload["moves"]) == mine
        assert ('id="hotspots"' in payload["board"]) == mine
        assert payload["status"].startswith("Your move" if mine else "Waiting for")
        assert payload["forecast"] and all(0 <= f["attack_wins"] <= 1
                                           for f in payload["forecast"])
    end = seat_payload(games[-1], 0, table.names, [], len(games) - 1)
    assert end["finished"] and end["winners"] == games[-1].winners()
    assert end["status"].startswith("Game over.")


def test_moves_read_in_words_for_a_random_sample_of_states(played):
    rnd = random.Random(3)
    table, games = played[0]
    for game in rnd.sample(games[:-1], 30):
        for m in legal_moves(game):
            assert all(step and step[0].isalpha() for step in m.path), m.path


def test_the_hotspots_read_the_board_layout_the_picture_is_drawn_from(played, monkeypatch):
    """One layout (``render.svg``): moving a part of the board moves its hotspot with it."""
    from perikles_env.render import svg

    table, games = played[0]
    game = games[-1]
    monkeypatch.setattr(svg, "LOC_X", 600)
    monkeypatch.setattr(svg, "CITY_CARD", (180, 170))
    monkeypatch.setattr(svg, "PLAYERS_BOX", (10, 614, 590, 198))
    picture = board_svg(game, 0)
    assert hotspots.box("loc:0", game.n, 0)[0] == 600
    assert hotspots.box("side:2:1", game.n, 0) in _rects(picture, "location 2")
    assert hotspots.box("city:4", game.n, 0) == (200, 228, 180, 170)
    assert hotspots.box("city:4", game.n, 0) in _rects(picture, f"city {D.CITY_NAMES[4]}")
    assert hotspots.box("player:0", game.n, 0)[1] == 614 + 26


def test_the_board_explains_its_pieces_and_numbers_the_same_for_every_seat(played):
    """Every board a page gets carries tooltips (SVG ``<title>``) over each city card, its
    candidates, cube rows and stack/hand line, each location (militia) and its attack and
    defence boxes, and each player's row; the words are the same for every seat and step,
    and the picture under them is ``render.svg``'s, unchanged."""
    from perikles_env.web.legend import explain_layer

    table, games = played[1]
    layer = explain_layer(5)
    root = ET.fromstring('<svg xmlns="http://www.w3.org/2000/svg">' + layer + "</svg>")
    rects = root.findall(f"{SVG}g/{SVG}rect")
    kinds = [r.get("data-explains") for r in rects]
    assert kinds.count("city") == kinds.count("cand") == kinds.count("forces") == 6
    assert kinds.count("location") == 7 and kinds.count("side") == 14
    assert kinds.count("player") == 5 and kinds.count("tiles") == 1
    words = " ".join(r.find(f"{SVG}title").text for r in rects)
    for said in ("stack H? T?", "hand H?x6", "militia H T", "cand. α β", "statue track",
                 "Athens", "Megara"):
        assert said in words
    for r in rects:  # each lies on the board
        x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
        assert x >= 0 and y >= 0 and w > 0 and h > 0
    for game in (games[0], games[len(games) // 2], games[-1]):
        for seat in (*range(game.n), None):
            board = seat_payload(game, seat, table.names, [], 0)["board"]
            picture = board_svg(game, seat, list(table.names))
            assert board.startswith(picture.removesuffix("</svg>") + layer)
    assert explain_layer(3).count('data-explains="player"') == 3
