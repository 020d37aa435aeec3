"""The tables a benchmark run plays: at each player count of the protocol, the agent
against n-1 copies of each pool member that plays that count, then mixed tables of the
agent and n-1 pool members drawn (seeded) without replacement. The agent is always the
lineup's first entry; the evaluator seats it in every rotation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .protocol import Protocol


@dataclass(frozen=True)
class Table:
    players: int
    kind: str  # "vs" (n-1 copies of one member) or "mixed"
    opponents: tuple[str, ...]  # pool member names, seat order after the agent
    lineup: tuple[str, ...]  # agent spec, then the opponents' specs


def plan_tables(protocol: Protocol, agent: str, quick: bool) -> list[Table]:
    """Every table of one run, in a fixed order (the same protocol gives the same list)."""
    tables = []
    for n in protocol.players:
        members = protocol.playable(n, quick)
        for m in members:
            assert m.spec is not None
            tables.append(Table(n, "vs", (m.name,) * (n - 1), (agent,) + (m.spec,) * (n - 1)))
        count = min(protocol.mixed.tables, 1) if quick else protocol.mixed.tables
        if len(members) >= n - 1:
            rng = np.random.default_rng(protocol.mixed.seed + n)
            for _ in range(count):
                picked = [members[int(i)] for i in rng.choice(len(members), n - 1, replace=False)]
                tables.append(Table(n, "mixed", tuple(m.name for m in picked),
                                    (agent,) + tuple(str(m.spec) for m in picked)))
    return tables


def not_played(protocol: Protocol, quick: bool = False) -> list[dict[str, object]]:
    """The pool members skipped at some count, and why (reported, never silently dropped)."""
    out = []
    for m in protocol.pool:
        for n in protocol.players:
            if m.spec is None:
                out.append({"member": m.name, "players": n, "why": "no agent in this slot yet"})
            elif n not in m.players:
                out.append({"member": m.name, "players": n,
                            "why": f"plays only {'/'.join(map(str, m.players))} players"})
            elif quick and not m.quick:
                out.append({"member": m.name, "players": n, "why": "too slow for --quick"})
    return out
