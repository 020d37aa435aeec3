"""Information-Set Monte Carlo Tree Search (single-observer IS-MCTS, Cowling et al. 2012).

Each iteration samples a determinisation of the searching player's information set with
``perikles_env.engine.determinize.determinize`` (hidden tiles, deck orders, unknown counter
strengths and the future dice are re-drawn consistently with what he knows), then walks one
shared tree keyed by action sequences on that sample:

* selection: UCB1 with availability counts (a child's exploration term uses how often it
  was legal, not the parent's visits); each node's acting player maximises his own
  component of the value vector (multi-player, every player for himself);
* candidate actions per node: the heuristic's top ``width`` actions (the root) or
  ``opp_width`` (deeper nodes) for the player to act, extended when a new determinisation
  makes other actions legal; untried candidates are expanded in heuristic order;
* rollout: ``horizon`` decisions of the rollout policy (``heuristic``: its decisions with
  more than one legal action, ``HeuristicAgent.playout``, one C++ call on the core; or
  ``random``; -1 plays to the end), then ``leaf_value.leaf_values`` (exact win shares at
  the end, else a softmax of projected VP). The random rollout is
  ``legal[Rng(seed).randrange(len)]`` at every decision, forced ones included (they count
  towards ``horizon``): the game's ``random_playout`` (one C++ call on the C++ core, the
  same policy in Python on the Python engine), so both backends play the same rollouts;
* decisions with a single legal action are applied without a tree node.

The search reads the real game only through ``determinize`` and ``legal_actions`` of the
searching player's own decision. Budget: ``sims`` iterations, so a seed fixes the decision;
all randomness comes from the rng the caller passes. ``seconds`` > 0 also stops the search
once that much wall time has passed (at least one iteration runs), trading that
reproducibility for a bounded think time.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.leaf_value import leaf_values
from ..analysis.params import HeuristicParams
from ..errors import InvalidConfigError
from .base import Agent
from .heuristic.agent import HeuristicAgent

if TYPE_CHECKING:
    from ..engine.game import Game
    from ..engine.interface import GameInterface

# (game, player, rng, record_events=None) -> a sample of the same engine (engine.determinize)
Determinizer = Callable[..., "Game"]
_TO_THE_END = 1 << 62  # a random rollout's decision limit when horizon is -1


@dataclass(frozen=True)
class ISMCTSParams:
    """Search settings; see the module docstring."""

    sims: int = 30
    rollout: str = "heuristic"
    horizon: int = 8
    c: float = 0.5
    width: int = 5
    opp_width: int = 2
    seconds: float = 0.0

    def __post_init__(self) -> None:
        ints = {"sims": 1, "horizon": -1, "width": 1, "opp_width": 1}
        for name, low in ints.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidConfigError(f"ismcts {name} must be an int >= {low}, got {value!r}")
        if self.rollout not in ("heuristic", "random"):
            raise InvalidConfigError(
                f"ismcts rollout must be 'heuristic' or 'random', got {self.rollout!r}"
            )
        for name in ("c", "seconds"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0 <= value < math.inf
            ):
                raise InvalidConfigError(f"ismcts {name} must be a number >= 0, got {value!r}")
            object.__setattr__(self, name, float(value))

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> ISMCTSParams:
        known = {f.name for f in fields(cls)}
        unknown = set(options) - known
        if unknown:
            raise InvalidConfigError(
                f"unknown ismcts option(s) {sorted(unknown)}; known: {sorted(known)}"
            )
        return cls(**options)


class Node:
    """Statistics of one action sequence, shared by all determinisations reaching it."""

    __slots__ = ("children", "cands", "visits", "avail", "value")

    def __init__(self, n: int) -> None:
        self.children: dict[int, Node] = {}
        self.cands: list[int] = []
        self.visits = 0
        self.avail = 0
        self.value = [0.0] * n


def _default_determinize() -> Determinizer:
    from ..engine.determinize import determinize

    return determinize


class ISMCTSAgent(Agent):
    name = "ismcts"
    uses_state = True

    def __init__(
        self,
        params: ISMCTSParams | None = None,
        determinize: Determinizer | None = None,
        heuristic: HeuristicAgent | None = None,
    ) -> None:
        """``heuristic``: ranks the candidates and plays the heuristic rollouts (default:
        the default personality, in C++ on a game of the C++ core)."""
        self.params = params or ISMCTSParams()
        self._determinize = determinize
        self._heuristic = heuristic or HeuristicAgent(HeuristicParams())

    def describe(self) -> str:
        defaults = asdict(ISMCTSParams())
        diff = [f"{k}={v}" for k, v in asdict(self.params).items() if defaults[k] != v]
        return self.name + (":" + ",".join(diff) if diff else "")

    # ---- the search ------------------------------------------------------------------------

    def act_state(self, game: Game, player: int, rng: np.random.Generator) -> int:
        legal = game.legal_actions()  # the searching player's own options
        if len(legal) == 1:
            return legal[0]
        determinize = self._determinize or _default_determinize()
        self._determinize = determinize
        r = random.Random(int(rng.integers(2**63)))
        deadline = time.perf_counter() + self.params.seconds if self.params.seconds else None
        root = Node(game.n)
        root.cands = self._candidates(game, player, legal, self.params.width)
        for i in range(self.params.sims):
            if deadline is not None and i and time.perf_counter() >= deadline:
                break
            seed = np.random.default_rng(r.getrandbits(63))
            sample = determinize(game, player, seed, record_events=False)  # no log read
            self._iterate(root, sample, r)
        best = max(root.cands, key=lambda a: (_visits(root, a), -root.cands.index(a)))
        return best

    def _candidates(self, game: Game, player: int, legal: list[int], width: int) -> list[int]:
        """Top ``width`` legal actions by the heuristic's scores, best first (in C++ on a
        native game)."""
        scores = self._heuristic.scores(game, player, legal)
        order = sorted(range(len(legal)), key=lambda i: (-scores[i], legal[i]))
        return [legal[i] for i in order[:width]]

    def _iterate(self, root: Node, g: Game, r: random.Random) -> None:
        p = self.params
        path = [root]
        node = root
        while not g.is_terminal:
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply_action(legal[0])
                continue
            actor = g.current
            if not node.cands:
                node.cands = self._candidates(g, actor, legal, p.opp_width)
            available = [a for a in node.cands if a in legal]
            if not available:
                extra = self._candidates(g, actor, legal, p.opp_width)
                node.cands += [a for a in extra if a not in node.cands]
                available = [a for a in node.cands if a in legal]
            for a in available:
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = Node(g.n)
                child.avail += 1
            untried = [a for a in available if node.children[a].visits == 0]
            if untried:
                action = untried[0]
                g.apply_action(action)
                node = node.children[action]
                path.append(node)
                break
            action = self._ucb(node, available, actor)
            g.apply_action(action)
            node = node.children[action]
            path.append(node)
        self._rollout(g, r)
        values = leaf_values(g)
        for n in path:
            n.visits += 1
            v = n.value
            for q, x in enumerate(values):
                v[q] += x

    def _ucb(self, node: Node, available: list[int], actor: int) -> int:
        c = self.params.c
        best, best_score = available[0], -math.inf
        for a in available:
            child = node.children[a]
            score = child.value[actor] / child.visits + c * math.sqrt(
                math.log(child.avail) / child.visits
            )
            if score > best_score:
                best, best_score = a, score
        return best

    def _rollout(self, g: Game, r: random.Random) -> None:
        steps = self.params.horizon
        if self.params.rollout == "random":
            random_playout(g, r.getrandbits(63), _TO_THE_END if steps < 0 else steps)
            return
        self._heuristic.playout(g, r.getrandbits(63), steps)


def random_playout(g: GameInterface, seed: int, max_decisions: int) -> int:
    """Play ``legal[Rng(seed).randrange(len(legal))]`` until the end or ``max_decisions``
    decisions (forced ones count); returns the decisions made (``random_playout`` of the
    game: one C++ call on the C++ core, the same moves on the Python engine)."""
    return g.random_playout(seed, max_decisions)


def _visits(node: Node, action: int) -> int:
    child = node.children.get(action)
    return child.visits if child else 0
