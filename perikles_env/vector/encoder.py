"""Observation and legal mask of a game, in C++ where the game's state lives in C++ (the
game's ``encode_natively`` hook: its state is read in place, nothing is copied through
Python), else by the Python encoder (``analysis/observation.py``, the reference). Both give
the same bytes (tests/native/test_encoder.py). For the mask into a caller-owned array use
the game's ``legal_mask(out)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.encoding import Encoder, default_encoder
from ..analysis.observation import ObservationEncoder, observation_size
from ..engine import NUM_ACTIONS

if TYPE_CHECKING:
    from ..engine.interface import GameInterface


def _native_module() -> Any | None:
    """``perikles_env._native`` (the C++ encoder and feature blocks) or None when not built."""
    try:
        from .native import _native_vec
    except ImportError:
        return None
    return _native_vec


_NATIVE = _native_module()


def native_encoder_available() -> bool:
    return _NATIVE is not None


def encode_into(
    game: GameInterface, player: int, out: np.ndarray, oracle: bool = False
) -> np.ndarray:
    """Write ``player``'s observation of a ``NativeGame`` into ``out`` (float32, C-contiguous,
    ``observation_size(oracle)`` long): no allocation. TypeError for a Python-engine game."""
    if not game.encode_natively(player, out, oracle):
        raise TypeError("encode_into needs a NativeGame and the built C++ encoder")
    return out


class BackendEncoder:
    """``ObservationEncoder``'s interface (``encode`` returns a new array, ``reset``) that
    encodes a ``NativeGame`` in C++ and any other game with the Python encoder."""

    def __init__(self, oracle: bool = False) -> None:
        self.oracle = oracle
        self.size = observation_size(oracle)
        self._python = ObservationEncoder(oracle)

    def reset(self) -> None:
        self._python.reset()

    def encode(self, game: GameInterface, player: int) -> np.ndarray:
        out = np.empty(self.size, dtype=np.float32)
        if game.encode_natively(player, out, self.oracle):
            return out
        return self._python.encode(game, player)


def game_encoder(features: Sequence[str] = ()) -> Encoder:
    """``default_encoder(features)`` whose observation and feature blocks of a
    ``NativeGame`` are written in C++ (the same bytes): what the single-agent env and the
    learned agents encode with."""
    python = default_encoder(features, base=BackendEncoder())
    if not python.features or _NATIVE is None:
        return python
    blocks = native_block_writers(python.features)
    size = observation_size() + sum(length for _, length in blocks)

    def encode(game: GameInterface, player: int) -> np.ndarray:
        out = np.zeros(size, dtype=np.float32)
        if game.encode_natively(player, out, False, blocks):
            return out
        return python.encode(game, player)

    return Encoder(encode, python.space, python.features)


def native_blocks() -> dict[str, tuple[Any, int]]:
    """The C++ feature blocks: name -> (writer(engine, player, out), length)."""
    if _NATIVE is None:
        return {}
    ext = _NATIVE
    return {
        "battle": (ext.battle_features, ext.BATTLE_FEATURES_SIZE),
        "actions": (ext.action_features, ext.ACTION_FEATURES_SIZE),
    }


def native_block_writers(features: Sequence[str]) -> tuple[tuple[Any, int], ...]:
    """``(writer, length)`` of each named C++ feature block, in order (the game's
    ``encode_natively`` writes them after the observation)."""
    blocks = native_blocks()
    return tuple(blocks[name] for name in features)


def encode_with_features(game: GameInterface, player: int, features: Sequence[str]) -> np.ndarray:
    """``player``'s observation with the named feature blocks appended: in C++ for a
    ``NativeGame`` (the same bytes as the Python blocks), else in Python."""
    if _NATIVE is not None and all(name in native_blocks() for name in features):
        blocks = native_block_writers(features)
        out = np.zeros(observation_size() + sum(length for _, length in blocks), dtype=np.float32)
        if game.encode_natively(player, out, False, blocks):
            return out
    return default_encoder(features).encode(game, player)


def legal_mask(game: GameInterface) -> np.ndarray:
    """A new int8 mask of ``game``'s legal actions, whichever backend holds it."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    game.legal_mask(mask.view(np.uint8))
    return mask
