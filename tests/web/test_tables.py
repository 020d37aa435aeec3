"""Nothing is lost: a web game is written as a replay record after every decision, a new
server continues it from its folder, and the record opens in the replay viewer."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest

from perikles_env.records import read_records, replay
from perikles_env.replay import write_html
from perikles_env.web.tables import Table, TableError, Tables

from .helpers import agents_move, make_table


def _record_state(table: Table):
    record = read_records(table.folder / "record.jsonl")[0]
    *_, (final, _) = replay(record)
    return record, final


def test_the_record_is_rewritten_after_every_decision(tmp_path) -> None:
    table = make_table(tmp_path, ["human", "heuristic", "random", "heuristic"], 3)
    rng = np.random.default_rng(0)
    for _ in range(12):
        agents_move(table, rng)
        table.apply(table.game.legal_actions()[-1])
        record, final = _record_state(table)
        assert record.actions == table.actions
        assert record.agents == ["human", "heuristic", "random", "heuristic"]
        assert final.to_dict() == table.game.to_dict()
    leftovers = [p.name for p in table.folder.iterdir()]
    assert sorted(leftovers) == ["record.jsonl", "seats.json"]  # no temporary files


def test_a_new_server_continues_every_game_from_its_folder(tmp_path) -> None:
    tables = Tables(tmp_path)
    one = tables.create(["human", "heuristic", "heuristic"], 1)
    two = tables.create(["human", "random", "human", "heuristic", "random"], 2)
    rng = np.random.default_rng(1)
    for table in (one, two):
        for _ in range(20):
            agents_move(table, rng)
            table.apply(table.game.legal_actions()[0])
    (tmp_path / "0123456789ab").mkdir()  # a folder that cannot be loaded: left alone
    (tmp_path / "0123456789ab" / "seats.json").write_text("{not json")
    again = Tables(tmp_path)
    loaded = again.load()
    assert sorted(t.id for t in loaded) == sorted([one.id, two.id])
    assert len(again.skipped) == 1 and "0123456789ab" in again.skipped[0]
    for table in (one, two):
        back = again.by_id[table.id]
        assert back.actions == table.actions
        assert back.game.to_dict() == table.game.to_dict()
        assert back.feed == table.feed
        assert back.names == table.names
        for p, seat in enumerate(table.seats):
            if seat.human:
                assert again.seat(seat.token) == (back, p)
    back = again.by_id[one.id]  # and the game goes on
    back.apply(back.game.legal_actions()[0])
    agents_move(back, rng)
    assert back.step > one.step
    assert read_records(back.folder / "record.jsonl")[0].actions == back.actions


def test_the_record_opens_in_the_replay_viewer(tmp_path) -> None:
    table = make_table(tmp_path, ["human", "heuristic", "heuristic", "heuristic"], 4)
    rng = np.random.default_rng(2)
    for _ in range(30):
        agents_move(table, rng)
        table.apply(table.game.legal_actions()[0])
    out = tmp_path / "game.html"
    write_html(read_records(table.folder / "record.jsonl")[0], out)
    assert out.stat().st_size > 10_000 and "human" in out.read_text(encoding="utf-8")


def test_an_illegal_action_changes_nothing(tmp_path) -> None:
    table = make_table(tmp_path, ["human", "heuristic", "heuristic"], 5)
    agents_move(table, np.random.default_rng(3))
    before = (table.folder / "record.jsonl").read_bytes()
    state, feed = table.game.to_dict(), [list(f) for f in table.feed]
    illegal = next(a for a in range(200) if not table.game.is_legal(a))
    for bad in (illegal, -1, 10**6):
        with pytest.raises(TableError, match="not legal") as info:
            table.apply(bad)
        assert info.value.status == 422
    assert (table.folder / "record.jsonl").read_bytes() == before
    assert table.game.to_dict() == state and table.feed == feed and table.step == len(
        json.loads(before)["actions"])


def test_seat_tokens_stay_in_a_private_file_and_out_of_the_record(tmp_path) -> None:
    table = make_table(tmp_path, ["human", "human", "heuristic"], 6)
    seats = table.folder / "seats.json"
    assert stat.S_IMODE(os.stat(seats).st_mode) == 0o600
    tokens = [s.token for s in table.seats if s.human]
    assert len(set(tokens)) == 2 and all(len(t) >= 32 for t in tokens)
    record = (table.folder / "record.jsonl").read_text()
    assert not any(t in record for t in tokens)
    data = json.loads(seats.read_text())
    assert [s["token"] for s in data["seats"] if s["spec"] == "human"] == tokens


@pytest.mark.parametrize("specs, message", [
    (["human", "heuristic"], "3 to 5 players"),
    (["human"] * 6, "3 to 5 players"),
    (["random", "heuristic", "random"], "at least one human"),
    (["human", "heuristic", "alphazero"], "unknown agent"),
    (["human", "heuristic:boldness=3", "random"], "unknown heuristic option"),
])
def test_a_table_that_cannot_be_seated_is_refused(tmp_path, specs, message) -> None:
    tables = Tables(tmp_path)
    with pytest.raises(TableError, match=message):
        tables.create(specs)
    assert list(tmp_path.iterdir()) == [] and tables.by_id == {}


def test_finished_games_are_replayed_only_when_asked_for(tmp_path, monkeypatch) -> None:
    """A start with many finished game folders replays none of them: the lobby shows them
    from their files, exactly as a replayed table would; the first request for one (its
    seat, its page, its join code) replays that one only."""
    import shutil

    from perikles_env.web import tables as tables_module
    from perikles_env.web.lobby import lobby_entry

    from .helpers import play_out

    first = Tables(tmp_path)
    done = first.create(["human", "random", "human"], 5)
    first.claim(done, 2)
    play_out(done, 5)
    running = first.create(["human", "heuristic", "random", "random"], 6)
    copies = []
    for i in range(6):  # the archive: finished games under their own ids
        copy = tmp_path / f"{i:012x}"
        shutil.copytree(done.folder, copy)
        seats = json.loads((copy / "seats.json").read_text())
        seats["id"] = copy.name
        for seat in seats["seats"]:
            seat["token"] = seat["token"] and f"{seat['token']}-{i}"
        (copy / "seats.json").write_text(json.dumps(seats))
        copies.append((copy.name, seats))

    replayed: list[str] = []
    real_load = tables_module._load
    monkeypatch.setattr(tables_module, "_load",
                        lambda folder: replayed.append(folder.name) or real_load(folder))
    again = Tables(tmp_path)
    loaded = again.load()
    assert [t.id for t in loaded] == [running.id] and replayed == [running.id]
    assert sorted(again.shelved) == sorted([done.id, *(name for name, _ in copies)])
    assert again.has(done.id) and not again.has("ffffffffffff")

    entries = {e["id"]: e for e in map(lobby_entry, again.summaries())}
    assert replayed == [running.id]  # the lobby replays nothing
    expected = lobby_entry(done.summary())
    assert expected["state"] == "finished" and expected["scores"] and expected["winners"]
    assert entries[done.id] == expected
    for name, _ in copies:
        assert entries[name] == {**expected, "id": name, "watch": f"/watch/{name}"}

    name, seats = copies[3]
    table, p = again.seat(seats["seats"][2]["token"])  # a seat link of an archived game
    assert replayed == [running.id, name] and p == 2 and table.id == name
    assert table.game.to_dict() == done.game.to_dict() and table.feed == done.feed
    assert again.seat(seats["seats"][2]["token"]) == (table, 2)  # loaded once
    assert again.table(done.id).actions == done.actions
    assert replayed == [running.id, name, done.id]
    assert name not in again.shelved and len(again.shelved) == 5
    with pytest.raises(TableError, match="unknown seat token"):
        again.seat("not-a-token-of-any-game")
    assert len(replayed) == 3


def test_each_players_last_move_is_marked_with_public_words_only(tmp_path) -> None:
    """``Table.last_moves`` keeps each player's newest move (as a spectator reads it, and
    the board places it touched), kept through an undo and a restart; the board's marks
    layer outlines those places in the player's colour, the newest one animated, and the
    battle being fought."""
    from perikles_env.engine.phases import Phase
    from perikles_env.render.svg import PLAYER_COLOURS
    from perikles_env.web.marks import marks_layer

    from .helpers import public_last_moves, states

    table = make_table(tmp_path, ["human", "heuristic", "random", "heuristic"], 8)
    rng = np.random.default_rng(2)
    while not table.game.is_terminal:
        agents_move(table, rng)
        if not table.game.is_terminal:
            table.apply(int(rng.choice(table.game.legal_actions())))
    games = states(table)
    assert table.last_moves == public_last_moves(games, table.actions)
    assert set(table.last_moves) == {0, 1, 2, 3}
    battles = [g for g in games if g.phase in (Phase.BATTLE_SPECIAL, Phase.CASUALTY)]
    assert battles and all('class="battle"' in marks_layer(g, {}, None) for g in battles)
    assert not any('class="battle"' in marks_layer(g, {}, None) for g in games[:20])
    layer = marks_layer(table.game, table.last_moves, 0)
    newest = max(step for _, _, step in table.last_moves.values())
    for p, (words, places, step) in table.last_moves.items():
        assert words.startswith(f"p{p}") and step <= table.step
        for place in places:
            assert f'data-player="{p}" data-place="{place}"' in layer
        if places:
            assert f'stroke="{PLAYER_COLOURS[p]}"' in layer
    assert layer.count('class="last newest"') == len(
        next(pl for _, pl, s in table.last_moves.values() if s == newest))
    back = Tables(tmp_path)
    back.load()
    again = back.by_id.get(table.id) or back.table(table.id)
    assert again.last_moves == table.last_moves

