// The feature blocks of learned policies in C++ (perikles_env/analysis/battle_features.py and
// action_features.py, the readable reference), written into the caller's float32 buffers and
// byte-identical to the Python blocks (tests/native/test_league_politics.py,
// test_league_war.py, test_vector_league.py).
//
//   features.cpp           action_features: the dispatch, scaling and clipping
//   features_battle.cpp    battle_features; the commit rows of action_features
//   features_politics.cpp  the influence rows of action_features
#pragma once

#include "analysis/analysis.hpp"
// Feature blocks appended to an observation (the vector env's rows, the search's leaves), in
// the caller's order: `Feature`, generated from analysis/encoding.py FEATURE_BLOCKS.
#include "env/generated/observation.hpp"

namespace pk::feat {

constexpr int BATTLE_PER_SLOT = 12, BATTLE_SIZE = SLOTS * BATTLE_PER_SLOT;
constexpr int ACTION_PER = 9, ACTIONS_SIZE = NUM_ACTIONS * ACTION_PER;
// Columns of an action's row (action_features.FEATURES).
enum Column : int { POLITICS, POLITICS_OWN, WAR, WAR_OWN, WAR_PAIR, COST, COST_KEPT, PERMISSION, SCORED };

// battle_features(game, player): BATTLE_SIZE floats, clipped to [-1, 1].
void battle(const Game& g, int player, float* out);
// action_features(game, player): ACTIONS_SIZE floats (rows of ACTION_PER per action id).
void actions(const Game& g, int player, float* out);
// The rows of one phase group, unscaled (VP as float(double)); `out` is zero on entry and
// `legal` the game's legal actions. actions() divides the VP columns by 7 and clips.
void actions_political(const ai::View& v, const Actions& legal, float* out);
void actions_commit(const ai::View& v, const Actions& legal, float* out);

}  // namespace pk::feat
