"""The observation encoder the wrapper shares with ``perikles_env.environment`` and
``ppo:<path>``.

One source of truth: the learner sees exactly what the PettingZoo env's ``observe`` gives
that player (``perikles_env.analysis.observation.py``, docs/observation.md), and a
trained policy is later fed by the same encoder (``agents/ppo.py``).

Optional derived feature blocks (``FEATURE_BLOCKS``, e.g. ``battle``: battle odds per
location, ``battle_features.py``) are appended after that observation. A saved model
records ``layout_signature(features)`` (``agents/ppo_file.py``); loading it checks the
signature against this code's, so a model is never fed a layout it was not trained on.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from ..engine.game import Game
from ..errors import InvalidConfigError
from . import action_features, battle_features


@dataclass(frozen=True)
class Encoder:
    encode: Callable[[Game, int], np.ndarray]
    space: gym.spaces.Box
    features: tuple[str, ...] = ()


# name -> (block(game, player) -> floats, its length)
FEATURE_BLOCKS: dict[str, tuple[Callable[[Game, int], np.ndarray], int]] = {
    "battle": (battle_features.battle_features, battle_features.SIZE),
    "actions": (action_features.action_features, action_features.SIZE),
}
FEATURE_BLOCK_NAMES = tuple(FEATURE_BLOCKS)
# A block's id in the C++ core (the order above; scripts/gen_native.py generates the
# ``Feature`` enum of native/env/generated/observation.hpp from it).
FEATURE_IDS = {name: i for i, name in enumerate(FEATURE_BLOCK_NAMES)}


def check_features(features: Sequence[str]) -> tuple[str, ...]:
    """The feature block names as a tuple, or ``InvalidConfigError`` for unknown ones."""
    if isinstance(features, str) or not isinstance(features, Sequence):
        raise InvalidConfigError(f"features must be a list of names, got {features!r}")
    for name in features:
        if name not in FEATURE_BLOCK_NAMES:
            raise InvalidConfigError(
                f"unknown feature block {name!r}; known: {', '.join(FEATURE_BLOCK_NAMES)}"
            )
    if len(set(features)) != len(features):
        raise InvalidConfigError(f"feature blocks repeated: {list(features)}")
    return tuple(features)


def default_encoder(features: Sequence[str] = (), base: Any = None) -> Encoder:
    """A fresh encoder (incremental: keep one per env or agent, not one per call), with the
    named feature blocks appended in the order given. ``base`` encodes the observation
    itself (an ``ObservationEncoder``, the default, or anything with its ``encode``:
    ``vector.encoder.game_encoder`` passes one that writes a ``NativeGame``'s in C++)."""
    from .observation import CLIP, ObservationEncoder, observation_size

    features = check_features(features)
    base = (base or ObservationEncoder()).encode
    size = observation_size()
    if not features:
        return Encoder(base, _box(size, CLIP))
    blocks = [FEATURE_BLOCKS[name] for name in features]
    size += sum(n for _, n in blocks)

    def encode(game: Game, player: int) -> np.ndarray:
        return np.concatenate([base(game, player), *(f(game, player) for f, _ in blocks)])

    return Encoder(encode, _box(size, CLIP), features)


# Bump when the meaning of the observation or of a feature block changes without its
# field names or sizes changing (those changes the fingerprint below catches by itself).
LAYOUT_VERSION = 1


def layout_signature(features: Sequence[str] = ()) -> dict[str, object]:
    """What a saved model records about its input: the layout version, the feature blocks,
    the vector size and a fingerprint (sha256 of every field name and span of the base
    observation and of each named block's feature names)."""
    from .observation import OFFSETS, observation_size

    features = check_features(features)
    blocks = {}
    for name in features:
        block, size = FEATURE_BLOCKS[name]
        fields = getattr(sys.modules[block.__module__], "FEATURES", ())
        blocks[name] = [f"{block.__module__}.{block.__name__}", size, list(fields)]
    described = {"base": OFFSETS, "blocks": blocks}
    text = json.dumps(described, sort_keys=True)
    return {
        "version": LAYOUT_VERSION,
        "features": list(features),
        "size": observation_size() + sum(FEATURE_BLOCKS[f][1] for f in features),
        "fingerprint": hashlib.sha256(text.encode("utf-8")).hexdigest(),
    }


def _box(size: int, clip: float) -> gym.spaces.Box:
    return gym.spaces.Box(-1.0, clip, shape=(size,), dtype=np.float32)
