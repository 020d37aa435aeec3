"""TorchRL drives the PettingZoo AEC env through ``PettingZooWrapper(use_mask=True)``:
docs/ecosystem.md's example runs as written, the acting seat's actions are legal, and
``parallel_env`` fails as the docs say. Needs the ``interop`` extra; skipped without it."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl")

import torch  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import MarlGroupMapType  # noqa: E402

from perikles_env import perikles_v0  # noqa: E402
from tests.ecosystem_examples import run_example  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")


def test_torchrl_example_in_the_docs_runs_as_written() -> None:
    decisions, rewards = run_example("torchrl").strip().splitlines()[-2:]
    words = decisions.split()
    assert words[0] == "decisions" and int(words[1]) > 100, decisions
    assert words[-1] == "True", decisions  # exactly one seat acted in every step
    values = [float(v) for v in rewards.removeprefix("rewards ").strip("[]").split(",")]
    assert len(values) == 3 and abs(sum(values)) < 1e-6 and max(values) > 0, rewards


def test_aec_rollout_applies_only_legal_actions_of_the_acting_seat() -> None:
    env = PettingZooWrapper(
        perikles_v0.env(num_players=3), use_mask=True, seed=3,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
    )
    td = env.reset()
    game = env._env.unwrapped.game  # the game reset() dealt
    steps = 0
    while not td["done"].item():
        mask = td["agents", "mask"]
        legal = td["agents", "action_mask"]
        (seat,) = mask.nonzero().flatten().tolist()
        assert seat == game.current_player
        assert sorted(legal[seat].nonzero().flatten().tolist()) == game.legal_actions()
        assert legal[~mask].all()  # waiting seats: placeholder masks, all true
        td = env.rand_action(td)
        assert legal[seat, td["agents", "action"][seat]]
        before = game.decisions
        td = env.step(td)["next"]
        assert game.decisions == before + 1 or game.is_terminal
        steps += 1
    assert game.is_terminal and steps == game.decisions
    final = td["agents", "reward"].flatten()
    assert torch.isclose(final.sum(), torch.tensor(0.0), atol=1e-6)


def test_parallel_env_fails_on_the_waiting_seats_empty_masks() -> None:
    env = PettingZooWrapper(perikles_v0.parallel_env(num_players=3), use_mask=True, seed=0)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        env.rollout(5)
