// Small pure helpers of the rules, inline for speed: counter classes, the combat results
// table, statue values, and the value types that the queries return. Constants, tables
// (`T`) and enums are generated (generated/schema.hpp); these only combine them.
#pragma once

#include <vector>

#include "engine/generated/schema.hpp"

namespace pk {

using Actions = std::vector<int>;  // action ids (actions.py), increasing

// Counter classes k = city * 8 + type * 4 + (strength - 1) (data.py COUNTER_CLASSES).
inline int class_city(int k) { return k / 8; }
inline int class_type(int k) { return (k / 4) % 2; }
inline int class_strength(int k) { return k % 4 + 1; }
inline int class_of(int c, int t, int s) { return c * 8 + t * 4 + (s - 1); }

// The CRT column of a dice round (C.4): 0..5, from the defender's best to the attacker's.
inline int crt_column(int attack, int defence) {
  if (attack >= defence) {
    if (attack >= 3 * defence) return 5;
    if (attack >= 2 * defence) return 4;
    if (attack >= defence + 2) return 3;
    return 2;
  }
  if (defence >= 2 * attack) return 0;
  if (defence >= attack + 2) return 1;
  return 2;
}

// VP of one statue of `city` after `defeats` defeats (A.2).
inline int statue_value(int city, int defeats) {
  return defeats < T.statue_len[city] ? T.statue[city][defeats] : 0;
}

// queries.py: placement statuses and the kinds of a combat round (C.3).
constexpr int ILLEGAL = 0, LEGAL = 1, NEEDS_PERMISSION = 2;
constexpr int ROUND_EMPTY = 0, ROUND_ATTACKER = 1, ROUND_DEFENDER = 2, ROUND_DICE = 3;

struct Target {  // an open placement: slot, side (ATT / DEF), status (LEGAL / NEEDS_PERMISSION)
  int slot, side, status;
};
struct Round {  // a predicted combat round: unit type, ROUND_* kind, strengths entering the CRT
  int unit_type, kind, attack, defence;
};

// queries.military_knowledge: what player `p` knows of every counter (Game::military_knowledge).
struct MilitaryKnowledge {
  int32_t my_pool[NC];                 // own pool per class (cities p controls), else 0
  int32_t pool_count[NMC * 2];         // pool counters per (city, type)
  int32_t box_count[NBOX * NMC * 2];   // counters per (box, city, type)
  int32_t box_known[NBOX * NMC * 2];   // their known strength sum, -1 where hidden
  double unknown_mean[NMC * 2];        // mean strength of a hidden counter per (city, type)
};

}  // namespace pk
