"""Exact combat odds (docs/rules.md C.5-C.6), re-exported for agents and users.

``round_win_probability(attack, defence, att_tokens, def_tokens)`` is the probability that
the attacker wins one dice combat round with these strengths (both >= 1) and starting
tokens (head start and token tiles included), roll-offs included.
``battle_win_probability(rounds, att_tokens, def_tokens)`` chains the rounds of a location
(strength 0 on a side means that round is automatic, both 0 an empty round; C.3) and gives
the probability that the attacking side wins the final round. Both live in the engine
(``perikles_env.engine.combat``), which is where the combat rules they mirror are.
"""

from __future__ import annotations

from ..engine.combat import battle_win_probability, round_win_probability

__all__ = ["battle_win_probability", "round_win_probability"]
