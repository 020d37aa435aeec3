"""Observation and legal mask of a game, in C++ when the game is a ``NativeGame`` (its state
is read in place, nothing is copied through Python), else by the Python encoder
(``analysis/observation.py``, the reference). Both give the same bytes
(tests/native/test_encoder.py). For the mask of a ``NativeGame`` into a caller-owned array
use ``NativeGame.legal_mask(out)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.encoding import Encoder, default_encoder
from ..analysis.observation import ObservationEncoder, observation_size
from ..engine import NUM_ACTIONS, Game

if TYPE_CHECKING:
    from ..engine.native import NativeGame


def _native_module() -> tuple[type[NativeGame], Any] | None:
    """``(NativeGame, perikles_env._native_vec)`` or None when not built."""
    try:
        from ..engine.native import NativeGame
        from .native import _native_vec
    except ImportError:
        return None
    return NativeGame, _native_vec


_NATIVE = _native_module()


def native_encoder_available() -> bool:
    return _NATIVE is not None


def encode_into(game: Game, player: int, out: np.ndarray, oracle: bool = False) -> np.ndarray:
    """Write ``player``'s observation of a ``NativeGame`` into ``out`` (float32, C-contiguous,
    ``observation_size(oracle)`` long): no allocation. TypeError for a Python-engine game."""
    if _NATIVE is None or not isinstance(game, _NATIVE[0]):
        raise TypeError("encode_into needs a NativeGame and the built C++ encoder")
    _NATIVE[1].encode(game.core, player, out, oracle)
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

    def encode(self, game: Game, player: int) -> np.ndarray:
        if _NATIVE is not None and isinstance(game, _NATIVE[0]):
            out = np.empty(self.size, dtype=np.float32)
            _NATIVE[1].encode(game.core, player, out, self.oracle)
            return out
        return self._python.encode(game, player)


def game_encoder(features: Sequence[str] = ()) -> Encoder:
    """``default_encoder(features)`` whose observation and feature blocks of a
    ``NativeGame`` are written in C++ (the same bytes): what the single-agent env and the
    learned agents encode with."""
    python = default_encoder(features, base=BackendEncoder())
    if not python.features or _NATIVE is None:
        return python
    native_game = _NATIVE[0]

    def encode(game: Game, player: int) -> np.ndarray:
        if isinstance(game, native_game):
            return encode_with_features(game, player, python.features)
        return python.encode(game, player)

    return Encoder(encode, python.space, python.features)


def native_blocks() -> dict[str, tuple[Any, int]]:
    """The C++ feature blocks: name -> (writer(engine, player, out), length)."""
    if _NATIVE is None:
        return {}
    ext = _NATIVE[1]
    return {
        "battle": (ext.battle_features, ext.BATTLE_FEATURES_SIZE),
        "actions": (ext.action_features, ext.ACTION_FEATURES_SIZE),
    }


def encode_with_features(game: Game, player: int, features: Sequence[str]) -> np.ndarray:
    """``player``'s observation with the named feature blocks appended: in C++ for a
    ``NativeGame`` (the same bytes as the Python blocks), else in Python."""
    if _NATIVE is None or not isinstance(game, _NATIVE[0]):
        return default_encoder(features).encode(game, player)
    blocks = native_blocks()
    size = observation_size() + sum(blocks[f][1] for f in features)
    out = np.zeros(size, dtype=np.float32)
    _NATIVE[1].encode(game.core, player, out[: observation_size()], False)
    start = observation_size()
    for name in features:
        write, length = blocks[name]
        write(game.core, player, out[start : start + length])
        start += length
    return out


def legal_mask(game: Game) -> np.ndarray:
    """A new int8 mask of ``game``'s legal actions, whichever backend holds it."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if _NATIVE is not None and isinstance(game, _NATIVE[0]):
        game.legal_mask(mask.view(np.uint8))  # NativeGame's mask, written in C++
    elif not game.is_terminal:
        mask.put(game.legal_actions(), 1)
    return mask
