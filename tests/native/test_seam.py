"""The boundary between Python and the C++ core refuses instead of diverging.

Each defect found by probing the old, writable boundary has a test here. Where the old
behaviour hung or crashed the interpreter (an edit that spun ``run_battles`` or the dice
loop with the GIL held, two threads stepping one vector env), the check runs in a forked
child with a deadline, so a regression fails the test instead of the test run.
"""

from __future__ import annotations

import copy
import multiprocessing
import pickle
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from perikles_env.engine import GameConfig, Phase, new_game, schema
from perikles_env.engine.rng import Rng
from perikles_env.errors import (
    ConcurrentUseError,
    CoreFailureError,
    IllegalActionError,
    InvalidConfigError,
    InvalidStateError,
    ReadOnlyStateError,
)
from tests.engine import builders as B
from tests.native.helpers import (
    play_in_lockstep,
    require_native,
    run_in_threads,
    unvalidated_twin,
)

native = require_native()


def _in_child(check: Callable[[], None], seconds: float = 60) -> None:
    """Run ``check`` in a forked child: it must finish in time and without a crash."""
    context = multiprocessing.get_context("fork")
    child = context.Process(target=check)
    child.start()
    child.join(seconds)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"{check.__name__} hung (> {seconds} s)")
    assert child.exitcode == 0, f"{check.__name__} ended with exit code {child.exitcode}"


def _python_game_at(phase: Phase, n: int = 4, seed: int = 5):  # type: ignore[no-untyped-def]
    game = new_game(GameConfig(num_players=n), seed=seed, backend="python")
    policy = Rng(seed)
    while game.phase != phase:
        legal = game.legal_actions()
        game.apply_action(legal[policy.randrange(len(legal))])
    return game


# ---- edits the old loader accepted but from_dict refused ------------------------------------


def _battle_edits_are_refused() -> None:
    python = _python_game_at(Phase.BATTLE_SPECIAL)
    cpp = native.NativeGame.from_python(python)
    for field, value in (("b_stage", 2), ("b_tokens", [3, 3])):
        with pytest.raises(ReadOnlyStateError, match="from_python"):
            setattr(cpp, field, value)
        edited = python.clone()
        setattr(edited, field, value)
        with pytest.raises(InvalidStateError, match=field):
            native.NativeGame.from_python(edited)
        with pytest.raises(InvalidStateError, match=field):
            native.NativeGame.from_dict(edited.to_dict())
    cpp.apply_action(cpp.legal_actions()[0])  # the game itself plays on


def test_battle_edits_that_hung_the_core_never_reach_it() -> None:
    """``b_stage = 2`` during a battle spun ``run_battles``; ``b_tokens = [3, 3]`` never
    ended the dice loop (memory grew until bad_alloc): both refused now, at the edit on a
    NativeGame and at the load of an edited Python game."""
    _in_child(_battle_edits_are_refused)


def _the_private_loader_refuses_a_stage_that_never_ends() -> None:
    for phase, wrong in ((Phase.BATTLE_SPECIAL, (0, 2)), (Phase.CASUALTY, (0, 1))):
        python = _python_game_at(phase)
        unvalidated_twin(python)  # the state as played loads
        for stage in wrong:
            edited = python.clone()
            edited.b_stage = stage
            with pytest.raises(ValueError, match="b_stage: not the stage of this phase"):
                unvalidated_twin(edited)
    outside = _python_game_at(Phase.COMMIT)
    outside.b_stage = 1
    with pytest.raises(ValueError, match="b_stage"):
        unvalidated_twin(outside)


def test_the_core_loader_itself_refuses_the_endless_battle_stage() -> None:
    """``b_stage = 2`` in BATTLE_SPECIAL loaded through the core's private loader made the
    next action spin in ``run_battles`` (the GIL held, Ctrl-C ignored): the public paths
    refused it, but the C++ cross-field checks did not. They now hold the stage rule."""
    _in_child(_the_private_loader_refuses_a_stage_that_never_ends)


def test_an_empty_location_deck_is_refused_and_a_failed_action_poisons_the_game() -> None:
    """``loc_deck = []`` made an action raise halfway and later calls read out of bounds.
    The validator refuses it; and should any action still fail inside C++ (here forced
    through the core's private loader), the game refuses every further call."""
    python = _python_game_at(Phase.COMMIT)
    python.loc_deck = []
    with pytest.raises(InvalidStateError, match="loc_deck"):
        native.NativeGame.from_python(python)
    broken = unvalidated_twin(python)
    policy = Rng(1)
    with pytest.raises(CoreFailureError, match="refuses every further call"):
        while not broken.is_terminal:
            legal = broken.legal_actions()
            broken.apply_action(legal[policy.randrange(len(legal))])
    for call in (broken.legal_actions, lambda: broken.military_knowledge(0),
                 lambda: broken.core.get(0), broken.clone):
        with pytest.raises(RuntimeError, match="refuses every further call"):
            call()


def test_scripted_dice_are_bounded() -> None:
    """A million scripted dice made one action take 30 s (the list is consumed from the
    front): the declaration caps them (a fixed-size list in C++)."""
    python = new_game(GameConfig(num_players=3), seed=1, backend="python")
    python.forced_dice = [3] * (schema.MAX_FORCED_DICE + 1)
    cap = schema.MAX_FORCED_DICE
    with pytest.raises(InvalidStateError, match=f"forced_dice: at most {cap} items"):
        native.NativeGame.from_python(python)
    python.forced_dice = [3] * schema.MAX_FORCED_DICE
    assert native.NativeGame.from_python(python).forced_dice == python.forced_dice


def test_a_bool_is_not_an_action() -> None:
    """``apply_action(True)`` applied action 1."""
    game = new_game(GameConfig(num_players=4), seed=1, backend="native")
    before = game.to_dict()
    for bad in (True, False, 1.0, np.int64(2)):
        assert not game.is_legal(bad)  # type: ignore[arg-type]
        with pytest.raises(IllegalActionError):
            game.apply_action(bad)  # type: ignore[arg-type]
    assert game.to_dict() == before


def test_a_snapshot_read_before_a_decision_cannot_be_written_back() -> None:
    game = new_game(GameConfig(num_players=4), seed=1, backend="native")
    old = game.cubes
    game.apply_action(game.legal_actions()[0])
    with pytest.raises(ReadOnlyStateError):
        old[0] = 7
    with pytest.raises(ReadOnlyStateError):
        game.cubes = old


def test_a_native_env_stays_native_through_deepcopy_and_pickle() -> None:
    from perikles_env.environment import env as make_env

    aec = make_env(num_players=3, backend="native")
    aec.reset(seed=3)
    for _ in range(20):
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    for other in (copy.deepcopy(aec), pickle.loads(pickle.dumps(aec))):
        assert type(other.unwrapped.game) is native.NativeGame
        assert other.unwrapped.game == aec.unwrapped.game
    assert type(copy.deepcopy(aec.unwrapped.game)) is native.NativeGame


# ---- the vector env ---------------------------------------------------------------------------


def _two_threads_step_one_env() -> None:
    from perikles_env.vector import VectorEnv

    env = VectorEnv(1024, 4, threads=1)
    env.reset(0)
    refused: list[BaseException] = []
    done = threading.Event()

    def stepper() -> None:
        deadline = time.monotonic() + 30
        while not refused and time.monotonic() < deadline:  # until the intruder collides
            try:
                env.step(env.random_actions())
            except ConcurrentUseError as error:
                refused.append(error)
        done.set()

    def intruder() -> None:
        while not done.is_set():
            for call in (lambda: env.step(np.zeros(1024, dtype=np.int32)),
                         lambda: env.game(3), env.random_actions):
                try:
                    call()
                except ConcurrentUseError as error:
                    refused.append(error)
                except IllegalActionError:
                    pass

    run_in_threads(stepper, intruder)
    assert refused and all("another thread" in str(e) for e in refused)
    env.step(env.random_actions())  # still usable


def test_a_second_thread_gets_a_typed_error_not_a_crash() -> None:
    """Two threads stepping one VectorEnv segfaulted; copying a game during a step copied a
    torn state. Now the second caller gets ConcurrentUseError at once."""
    _in_child(_two_threads_step_one_env, seconds=120)


def test_nothing_is_readable_before_reset_and_sizes_are_bounded() -> None:
    from perikles_env.vector import MAX_NUM_ENVS, MAX_THREADS, VectorEnv

    env = VectorEnv(2, 3)
    for call in (lambda: env.game(0), lambda: env.game_seed(0), lambda: env.episodes(0),
                 env.random_actions, lambda: env.step([0, 0])):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    with pytest.raises(InvalidConfigError, match=f"num_envs must be an int in 1..{MAX_NUM_ENVS}"):
        VectorEnv(1 << 20, 4)
    with pytest.raises(InvalidConfigError, match=f"threads must be an int in 1..{MAX_THREADS}"):
        VectorEnv(2, 4, threads=256)
    env.reset(seed=None)  # a fresh seed, as the other envs accept
    with pytest.raises(InvalidConfigError, match="i must be an int in 0..1"):
        env.game(2)
    game = env.game(1)
    with pytest.raises(ReadOnlyStateError):
        game.turn = 2


# ---- scenarios built the way a user would -----------------------------------------------------

SCENARIOS: dict[str, Callable] = {  # type: ignore[type-arg]
    "commit": lambda: B.game_at_commit(n=3, leaders={"athens": 0, "sparta": 1}),
    "battles": lambda: B.game_at_battles(n=4),
    "pick": lambda: B.game_at_pick(n=4),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_user_scenarios_run_identically_or_stop_at_the_first_edit(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario written against the default engine (the builders edit fields and enter
    phases): on a NativeGame the first edit raises ReadOnlyStateError; built on the Python
    engine and loaded with from_python it is refused as a whole (InvalidStateError) or
    plays exactly like the Python game."""
    monkeypatch.setattr(B, "new_game", lambda n=4, seed=0: new_game(
        GameConfig(num_players=n), seed=seed, backend="native"))
    with pytest.raises(ReadOnlyStateError):
        SCENARIOS[name]()
    monkeypatch.undo()
    python = SCENARIOS[name]()
    try:
        cpp = native.NativeGame.from_python(python)
    except InvalidStateError:
        return  # refused whole: never a silent divergence
    play_in_lockstep(python, cpp, 9)
    assert cpp == python
