// native/env/: the environment side of the C++ core, what a learner sees and how games are
// stepped in batches (perikles_env/vector and the observation of perikles_env/analysis).
// It includes engine/ and analysis/ only: the vector env's heuristic opponents score their
// actions with a function the caller hands in (players/ is a floor above). This header is the
// table of contents:
//
//   encoder.hpp, encoder.cpp        the observation encoder and the legal mask
//                                   (analysis/observation.py, docs/observation.md)
//   features.hpp, features.cpp,     the `battle` and `actions` feature blocks
//   features_battle.cpp,            (analysis/battle_features.py, action_features.py)
//   features_politics.cpp
//   vector_env.hpp, vector_env.cpp  N games stepped in one call, auto-reset, the league
#pragma once

#include "env/encoder.hpp"
#include "env/features.hpp"
#include "env/vector_env.hpp"
