"""Game records (perikles_env/records.py) and the HTML replay viewer's data
(perikles_env/replay.py): records replay exactly, bad records are refused with the line and
field named, the evaluator's games.jsonl rows are records too, and every step of the viewer
holds the engine's state at that step, with hidden information only in the views allowed
to see it."""

from __future__ import annotations

import json
import re

import pytest

from perikles_env.engine import GameConfig, new_game
from perikles_env.play import play
from perikles_env.records import GameRecord, RecordError, append_record, read_records, replay
from perikles_env.render.narrate import describe_action
from perikles_env.render.svg import board_sections
from perikles_env.render.turns import turn_end_states
from perikles_env.replay import main, viewer_data, write_html

from .helpers import random_record


@pytest.fixture(scope="module")
def four_player_game():
    """A seeded 4-player game, its final state and its viewer data (built once: the viewer's
    data of a whole game takes seconds)."""
    record, final = random_record(4, 12)
    return record, final, viewer_data(record)


def test_a_recorded_game_replays_to_the_same_states(tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    record, final = random_record(4, 3)
    append_record(path, record, final)
    record2, final2 = random_record(3, 4)
    append_record(path, record2, final2)  # appends: the first game is kept
    loaded = read_records(path)
    assert [r.seed for r in loaded] == [3, 4] and loaded[0].actions == record.actions
    assert loaded[0].scores == final.scores() and loaded[0].events
    steps = list(replay(loaded[0]))
    assert len(steps) == len(record.actions) + 1
    assert [a for _, a in steps[:-1]] == record.actions and steps[-1][1] is None
    assert steps[-1][0].to_dict() == final.to_dict()
    fresh = new_game(GameConfig(num_players=4), seed=3)
    for (state, action), _ in zip(steps, range(40), strict=False):
        assert state.to_dict() == fresh.to_dict()
        fresh.apply_action(action)


def test_play_appends_a_record_the_replay_reads(tmp_path) -> None:
    path = tmp_path / "mine.jsonl"
    out: list[str] = []
    from perikles_env.agents import make_agent

    scores = play(3, 1, ["random"], seed=6, write=out.append, auto=make_agent("random"),
                  record=str(path))
    [record] = read_records(path)
    assert record.agents[1].startswith("you") and record.agents[0] == "random"
    assert record.scores == scores
    *_, (final, _) = replay(record)
    assert final.is_terminal and final.scores() == scores


@pytest.mark.parametrize(
    "line,message",
    [
        ("{not json", ":1: not JSON"),
        ('{"format": "other"}', "unknown record format"),
        ('{"seed": 1, "players": 7, "agents": [], "actions": []}', "'players' is invalid"),
        ('{"seed": -1, "players": 3, "agents": ["a","b","c"], "actions": []}',
         "'seed' is invalid"),
        ('{"seed": 1, "players": 3, "agents": ["a","b","c"]}', "'actions' is missing"),
        ('{"seed": 1, "players": 3, "agents": ["a","b"], "actions": []}', "'agents' is invalid"),
        ('{"seed": 1, "players": 3, "agents": ["a","b","c"], "actions": [true]}',
         "'actions' is invalid"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_records_are_refused_naming_line_and_field(tmp_path, line, message) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(RecordError, match=re.escape(message)):
        read_records(path)


def test_illegal_or_edited_actions_and_scores_are_caught() -> None:
    record, _ = random_record(3, 8)
    bad = GameRecord(record.seed, 3, record.agents, record.actions[:5] + [956])
    with pytest.raises(RecordError, match="action 6 of 6 .* is not legal"):
        list(replay(bad))
    wrong = GameRecord(record.seed, 3, record.agents, record.actions, scores=[1, 2, 3])
    with pytest.raises(RecordError, match="replayed scores"):
        list(replay(wrong))
    with pytest.raises(RecordError, match="no such record file"):
        read_records("/nonexistent/games.jsonl")


def test_evaluator_game_rows_are_records(tmp_path) -> None:
    try:
        from perikles_env.evaluation.runner import Job, play_job
    except ImportError:  # its former home
        from perikles_env.evaluation.runner import Job, play_job  # type: ignore

    row = play_job(Job(0, ("random", "heuristic", "random"), 0, 77, 1)).to_dict()
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(row) + "\n")
    [record] = read_records(path)
    assert record.players == 3 and record.agents == row["seats"] and record.seed == 77
    *_, (final, _) = replay(record)
    assert final.scores() == row["scores"]


def test_viewer_data_holds_each_steps_state_and_views(four_player_game) -> None:
    """One frame per decision point and one per end of turn; each decision frame shows the
    state there and tells the decision that led to it, as each view may know it."""
    record, _, data = four_player_game
    frames = [f for f in data["frames"] if f["phase"] != "END_OF_TURN"]
    assert len(frames) == len(record.actions) + 1
    states = list(replay(record))
    for i, (state, _action) in enumerate(states):
        frame = frames[i]
        assert frame["scores"] == state.scores() and frame["turn"] == state.turn
        assert frame["phase"] == state.phase.name
        assert frame["events"] == len(state.event_log)
        if i % 17 == 0 or i == len(states) - 1:
            for v, viewer in enumerate([None, 0, 1, 2, 3]):
                sections = [data["sections"][k] for k in frame["views"][v]]
                assert sections == board_sections(state, viewer, record.agents)
        if i == 0:
            assert frame["actor"] == -1
            continue
        before, action = states[i - 1]
        if any(e[0] == "end_turn" for e in state.event_log[len(before.event_log):]):
            continue  # told at the end-of-turn frame before this one
        assert frame["actor"] == before.current
        for v, viewer in enumerate([None, 0, 1, 2, 3]):
            assert frame["chose"][v] == describe_action(before, action, viewer)
    assert len(data["events"]) == frames[-1]["events"] > 0


def test_the_step_label_counts_decisions_not_frames(four_player_game) -> None:
    """A game of N decisions reads "decision 1 of N" .. "decision N of N", then the last
    board "after all N decisions"; the end-of-turn frames say after which decision they
    come, and never count as decisions themselves."""
    record, _, data = four_player_game
    n = len(record.actions)
    assert data["decisions"] == n
    labels = [f["where"] for f in data["frames"]]
    asked = [w for w in labels if w.startswith("decision ")]
    assert asked == [f"decision {k} of {n}" for k in range(1, n + 1)]
    assert labels[-1] == f"last board · after all {n} decisions"
    ends = [i for i, f in enumerate(data["frames"]) if f["phase"] == "END_OF_TURN"]
    assert ends
    for i in ends:
        after = labels[i + 1]  # the board of the next decision asked
        k = int(after.split()[1])
        assert labels[i] == f"end of turn · after decision {k - 1} of {n}"
    assert f" of {n}" in " ".join(labels) and f" of {len(labels) - 1}" not in " ".join(labels)


def test_the_end_of_every_turn_is_a_frame(four_player_game) -> None:
    """The board after each turn's battles and scoring, which no decision shows, is a frame
    of its own: scores as the end_turn event gives them, every location of the turn decided,
    the decision that ended the turn told there."""
    _, final, data = four_player_game
    ends = [e for e in final.event_log if e[0] == "end_turn"]
    frames = data["frames"]
    at_end = [i for i, f in enumerate(frames) if f["phase"] == "END_OF_TURN"]
    assert len(at_end) == len(ends) - 1 >= 1  # the last turn's end is the final board
    for i, event in zip(at_end, ends, strict=False):
        frame = frames[i]
        assert frame["status"].startswith(f"end of turn {event[1]} ")
        assert frame["scores"] == list(event[2]) and frame["turn"] == event[1]
        assert data["events"][frame["events"] - 1].startswith(f"End of turn {event[1]};")
        assert frame["actor"] >= 0 and frame["chose"][0]
        texts = " ".join(data["sections"][k] for k in frame["views"][0])
        assert f"end of turn {event[1]}" in texts and "to act" not in texts
        assert texts.count("won by") + texts.count("unclaimed") == 7  # every location decided
        after = frames[i + 1]
        assert after["actor"] == -1 and after["turn"] == event[1] + 1


def test_turn_end_states_leave_the_state_alone() -> None:
    record, _ = random_record(3, 5)
    states = list(replay(record))
    for (before, action), (after, _) in zip(states, states[1:], strict=False):
        if any(e[0] == "end_turn" for e in after.event_log[len(before.event_log):]):
            snapshot = before.to_dict()
            [end] = turn_end_states(before, action)
            assert before.to_dict() == snapshot
            assert end.event_log[-1][0] == "end_turn" and end.scores() == list(
                end.event_log[-1][2]
            )
            break
    else:
        raise AssertionError("no turn ended")


def test_placements_show_strength_only_to_those_who_may_know(four_player_game) -> None:
    from perikles_env.engine import actions as A
    from perikles_env.engine import data as D
    from perikles_env.engine.information import known_cities

    record, _, data = four_player_game
    told = {text for f in data["frames"] for text in f["chose"]}
    placements = 0
    for _i, (state, action) in enumerate(replay(record)):
        if action is None or A.decode(action)[0] != "PLACE":
            continue
        klass = A.decode(action)[1]
        strength = f" {D.CLASS_STRENGTH[klass]} to"
        for _v, viewer in enumerate([None, 0, 1, 2, 3]):
            knows = viewer is not None and known_cities(state, viewer) >> D.CLASS_CITY[klass] & 1
            text = describe_action(state, action, viewer)
            assert (strength in text) == bool(knows) and text in told
        placements += 1
    assert placements > 5


def test_write_html_is_self_contained(tmp_path) -> None:
    record, _ = random_record(3, 14)
    out = tmp_path / "game.html"
    size = write_html(record, out)
    html = out.read_text()
    assert size == len(html.encode()) and "<script" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing from a network
    assert "</script" not in html.split('id="data"')[1].split("</script>")[0]


def test_replay_cli_writes_and_refuses_to_overwrite(tmp_path, capsys) -> None:
    path = tmp_path / "g.jsonl"
    record, final = random_record(3, 15)
    append_record(path, record, final)
    assert main([str(path)]) == 0
    assert (tmp_path / "g-game1.html").exists()
    with pytest.raises(SystemExit) as exit_:
        main([str(path)])
    assert exit_.value.code == 2 and "exists" in capsys.readouterr().err
    assert main([str(path), "--force"]) == 0
