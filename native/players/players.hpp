// native/players/: the players of the C++ core (perikles_env/agents). They include engine/,
// analysis/ and env/ (the search writes observations and feature blocks for its network);
// bind/ and the self-test hand the heuristic's scorer to env/'s vector env. This header is
// the table of contents:
//
//   heuristic.hpp, heuristic.cpp,     the rule-based heuristic, every personality
//   heuristic_influence.cpp,          (agents/heuristic): one scorer per phase, decide,
//   heuristic_military.cpp,           playout
//   heuristic_commit.cpp
//   search.hpp, search.cpp            network-guided IS-MCTS, many trees at once, leaves
//                                     written for a batched evaluator (agents/search)
//   net_forward.hpp, net_forward.cpp  the search network's forward pass (SearchNet's
//                                     weights), so a search runs without Python per leaf
#pragma once

#include "players/heuristic.hpp"
#include "players/search.hpp"
