"""A benchmark protocol: one YAML file (``protocols/v1.yaml``) naming the reference pool,
player counts, seeds, seatings and game counts, checked by a pydantic model.

A shipped version's file content is pinned by its SHA-256 below: a file edited by hand is
refused, so a result labelled ``perikles-bench/v1`` always means the same games. A change
to the pool or the seeds is a new version with its own file and hash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from perikles_env.errors import InvalidConfigError

PROTOCOLS = Path(__file__).parent / "protocols"
DEFAULT_VERSION = "perikles-bench/v1"
# version -> SHA-256 of its shipped file (a new version adds a line; none is ever changed)
RECORDED_HASHES = {
    "perikles-bench/v1": "021a4be39db4f372f691b2e31c4a8f3f1c7ef4c3c6575fab3923cfc9c1bbb5c9",
}

Players = Annotated[int, Field(ge=3, le=5)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PoolMember(_Strict):
    """A reference agent; ``players`` the counts it can play (skipped, "not played", at the
    others); ``spec`` None: a reserved slot with no agent yet."""

    name: str
    spec: str | None
    players: tuple[Players, ...] = (3, 4, 5)
    quick: bool = True  # False: too slow for --quick, which skips it


class Games(_Strict):
    quick: Annotated[int, Field(gt=0)]
    full: Annotated[int, Field(gt=0)]


class Mixed(_Strict):
    tables: Annotated[int, Field(ge=0)]
    seed: Annotated[int, Field(ge=0)]


class Protocol(_Strict):
    version: str
    players: tuple[Players, ...]
    seed: Annotated[int, Field(ge=0)]
    seatings: Literal["rotations"]
    games: Games
    mixed: Mixed
    pool: tuple[PoolMember, ...] = Field(min_length=1)
    sha256: str = ""  # of the file it was read from

    @model_validator(mode="after")
    def _unique_names(self) -> Protocol:
        names = [m.name for m in self.pool]
        if len(set(names)) != len(names):
            raise ValueError(f"pool names must be unique, got {names}")
        return self

    def playable(self, players: int, quick: bool = False) -> list[PoolMember]:
        """The pool members that play at ``players`` (in the quick suite: the fast ones)."""
        return [m for m in self.pool
                if m.spec is not None and players in m.players and (m.quick or not quick)]


def protocol_file(version_or_path: str | None = None) -> Path:
    """The shipped file of a version (``perikles-bench/v1`` or ``v1``), or a path."""
    text = version_or_path or DEFAULT_VERSION
    short = text.removeprefix("perikles-bench/")
    shipped = PROTOCOLS / f"{short}.yaml"
    if "/" not in short and shipped.is_file():
        return shipped
    path = Path(text)
    if not path.is_file():
        known = ", ".join(sorted(RECORDED_HASHES))
        raise InvalidConfigError(f"no benchmark protocol {text!r} (known: {known}, or a file)")
    return path


def load_protocol(version_or_path: str | None = None) -> Protocol:
    """Read and check a protocol; ``InvalidConfigError`` (one line) when the file is not a
    valid protocol, or its content differs from the one recorded for its version."""
    path = protocol_file(version_or_path)
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    try:
        data = yaml.safe_load(raw)
        protocol = Protocol.model_validate({**(data or {}), "sha256": digest})
    except (yaml.YAMLError, ValidationError, TypeError) as exc:
        first = str(exc).splitlines()
        raise InvalidConfigError(f"{path}: not a benchmark protocol: {' '.join(first[:3])}") \
            from None
    recorded = RECORDED_HASHES.get(protocol.version)
    if recorded is not None and recorded != digest:
        raise InvalidConfigError(
            f"{path}: its content differs from {protocol.version}'s recorded hash (edited by "
            f"hand?); a changed pool or seeds is a new protocol version"
        )
    return protocol
