"""A benchmark protocol: one YAML file (``protocols/v1.yaml``) naming the reference pool,
player counts, seeds, seatings and game counts, checked by a pydantic model.

A shipped version's file content is pinned by its SHA-256 below: a file edited by hand is
refused, so a result labelled ``perikles-bench/v1`` always means the same games. A change
to the pool or the seeds is a new version with its own file and hash.

A pool member that plays a model file (``net``, ``search``, ``ppo``: the package's shipped
networks, or a path) is pinned too, by the file's SHA-256 (``sha256`` in the protocol file;
for v1, written before members carried one, ``RECORDED_MODELS``): when the installed file
is another, the run is refused before any game, since the member would not be the agent
the version's results were measured with.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from perikles_env.errors import InvalidConfigError

PROTOCOLS = Path(__file__).parent / "protocols"
DEFAULT_VERSION = "perikles-bench/v3"
# version -> SHA-256 of its shipped file (a new version adds a line; none is ever changed)
RECORDED_HASHES = {
    "perikles-bench/v1": "021a4be39db4f372f691b2e31c4a8f3f1c7ef4c3c6575fab3923cfc9c1bbb5c9",
    "perikles-bench/v2": "e0db05611b3fce9ef7fd123b42cf8a4b26b994a2df950380b335ba0e91286f3f",
    "perikles-bench/v3": "fff5becc6bf6212e54d5974d0e21b31aee2d265ac51dac791f0a744f6ef90ca2",
}
# version -> member -> SHA-256 of the model file it plays (versions whose file has no sha256)
V1_NETWORK = "c259bc215d6ff21461d893018d87bc180c89b7be3b77df9bef33f478f57456da"
RECORDED_MODELS = {"perikles-bench/v1": {"net": V1_NETWORK, "search": V1_NETWORK}}

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
    sha256: str | None = None  # of the model file the spec plays (model_file)


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

    def model_hashes(self) -> dict[str, str]:
        """Member name -> the SHA-256 its model file must have."""
        recorded = RECORDED_MODELS.get(self.version, {})
        return {m.name: m.sha256 or recorded[m.name] for m in self.pool
                if m.sha256 or m.name in recorded}

    def check_models(self, players: Sequence[int], quick: bool = False) -> None:
        """``InvalidConfigError`` (one line) when a member to be played reads a model file
        other than the one pinned for it (the package's network replaced, a file edited)."""
        pinned = self.model_hashes()
        for member in {m.name: m for n in players for m in self.playable(n, quick)}.values():
            if member.name not in pinned:
                continue
            path = model_file(str(member.spec))
            found = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
            if found != pinned[member.name]:
                raise InvalidConfigError(
                    f"{self.version}'s member {member.name!r} plays the model file with SHA-256 "
                    f"{pinned[member.name][:12]}; this install's {path.name} is "
                    f"{'missing' if found is None else found[:12]}: use a newer protocol "
                    f"version, or the package version that shipped it"
                )

    def playable(self, players: int, quick: bool = False) -> list[PoolMember]:
        """The pool members that play at ``players`` (in the quick suite: the fast ones)."""
        return [m for m in self.pool
                if m.spec is not None and players in m.players and (m.quick or not quick)]


def board_file(protocol: Protocol) -> Path:
    """Where the package keeps the published leaderboard of a shipped version."""
    return PROTOCOLS / f"leaderboard_{protocol.version.removeprefix('perikles-bench/')}.json"


def published_ratings(protocol: Protocol) -> tuple[dict[str, float], str] | None:
    """The pool members' ratings on the leaderboard published for ``protocol`` (members
    it did not rate are left out), and its suite; None when none is published for this
    exact protocol file."""
    if "/" in protocol.version.removeprefix("perikles-bench/"):
        return None
    path = board_file(protocol)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if (data.get("protocol"), data.get("protocol_sha256")) != (protocol.version,
                                                              protocol.sha256):
        return None
    return {m["name"]: float(m["rating"]) for m in data["members"]}, str(data["suite"])


def model_file(spec: str) -> Path:
    """The model file an agent spec plays: ``net``/``search`` without a file the shipped
    network, ``ppo`` without one the shipped ``make train`` model."""
    from perikles_env.agents.ppo import SHIPPED_PPO
    from perikles_env.agents.registry import parse_spec
    from perikles_env.agents.search.net_agent import SHIPPED_NET

    name, options = parse_spec(spec)
    named = options.get("model" if name == "search" else "path") or ""
    if named:
        return Path(str(named))
    return SHIPPED_PPO if name == "ppo" else SHIPPED_NET


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
