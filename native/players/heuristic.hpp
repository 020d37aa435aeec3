// The rule-based heuristic player in C++ (perikles_env/agents/heuristic, the readable
// reference): one scoring rule per decision phase over a View, the best score taken with the
// tie-breaking contract of analysis.hpp. Every personality is a Params.
//
//   heuristic.cpp            the phase table, decide()
//   heuristic_influence.cpp  setup, tile picks, specials, Alkibiades, proposals, assassins
//   heuristic_military.cpp   Sparta's choice, dead pool, permission, battle specials,
//                            casualties; heuristic_commit.cpp the commit step
#pragma once

#include "analysis/analysis.hpp"

namespace pk::ai {

// agents/heuristic score_actions: the score of each legal action (higher is better).
void score_actions(const View& v, const Params& p, const Actions& legal, Scores& out);
// The phases of each area (the same signature; `out` has one entry per legal action).
void score_influence(const View& v, const Params& p, const Actions& legal, Scores& out);
void score_military(const View& v, const Params& p, const Actions& legal, Scores& out);
void score_commit(const View& v, const Params& p, const Actions& legal, Scores& out);

// HeuristicAgent.act_state: the action of `player` (the one to act) in `g`. With one legal
// action that action (no seed used); else pick_best(scores, seed, p.noise). `legal` and
// `scores` are scratch space reused between calls.
int decide(const Game& g, int player, const Params& p, uint64_t seed, Actions& legal,
           Scores& scores);

// Heuristic play of every seat for `horizon` decisions with more than one legal action
// (forced ones are applied without counting; -1: to the end), each drawing its seed from
// SplitMix64(seed) in turn: IS-MCTS rollouts (agents/heuristic/agent.py heuristic_playout
// is the same in Python). Returns the decisions counted.
int64_t playout(Game& g, const Params& p, uint64_t seed, int64_t horizon, Actions& legal,
                Scores& scores);

}  // namespace pk::ai
