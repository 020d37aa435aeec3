// Rule queries (perikles_env/engine/queries.py). The rules call these, and the bindings
// answer queries.py's functions with them for a NativeGame (the placement queries are in
// military.cpp, the VP ones with the scoring in setup.cpp).
#include <algorithm>

#include "engine/game.hpp"

namespace pk {

bool Game::fights_rounds(int tile, bool attacked, bool defended) {  // C.2
  return attacked && (defended || T.loc_militia[tile][0] || T.loc_militia[tile][1]);
}

int Game::round_kind(int tile, int unit_type, int attackers, int defenders) {  // C.3
  if (!attackers) return defenders ? ROUND_DEFENDER : ROUND_EMPTY;
  if (defenders || T.loc_militia[tile][unit_type]) return ROUND_DICE;
  return ROUND_ATTACKER;
}

// Game.round_strengths: (attack, defence) entering the CRT for a round at `slot` now
// (C.4, D.5, D.7): counters (doubled by a Brasidas / Phormio on this round), rebels, militia.
void Game::round_strengths(int slot, int unit_type, int* attack, int* defence) const {
  int tile = tile_at(slot);
  *attack = strength(slot, ATT, unit_type) + T.loc_rebels[tile][unit_type];
  *defence = strength(slot, DEF, unit_type) + T.loc_militia[tile][unit_type];
}

// Game.predicted_rounds (queries.location_rounds with the counters at `slot` now, no
// doubling); returns the number of rounds written to `out` (at most 2).
int Game::predicted_rounds(int slot, Round* out) const {
  int tile = tile_at(slot), count = T.loc_nrounds[tile];
  for (int i = 0; i < count; ++i) {
    int t = T.loc_round[tile][i];
    int attack = side_strength(slot, ATT, t, -1), defence = side_strength(slot, DEF, t, -1);
    int kind = round_kind(tile, t, counters(slot, ATT, t), counters(slot, DEF, t));
    if (kind == ROUND_DICE) {
      attack += T.loc_rebels[tile][t];
      defence += T.loc_militia[tile][t];
    }
    out[i] = {t, kind, attack, defence};
  }
  return count;
}

// Cubes each of the n players loses in `city` to Plague (D.2, E19).
void Game::plague_losses(int city, int* out) const {
  for (int q = 0; q < n; ++q) {
    int in_main = cubes[city * 5 + q];
    int total = in_main + (cand[city * 2] == q) + (cand[city * 2 + 1] == q);
    out[q] = std::min(total / 2, in_main);
  }
}

// The leader elected in `city` (-1: none) and the cubes he loses (B.6, E36).
int Game::election_outcome(int city, int* loss) const {
  int alpha = cand[city * 2], beta = cand[city * 2 + 1];
  *loss = 0;
  if (alpha < 0) return -1;
  if (beta < 0) return alpha;
  int a_count = cubes[city * 5 + alpha], b_count = cubes[city * 5 + beta];
  if (a_count >= b_count) {
    *loss = b_count;
    return alpha;
  }
  *loss = a_count;
  return beta;
}

int Game::revealed_slot() const {  // information.revealed_slot
  return (phase == Phase::BATTLE_SPECIAL || phase == Phase::CASUALTY) && b_round >= 0 ? b_slot : -1;
}

// queries.military_knowledge: where `p` knows every counter to be and the strength he sees
// (own pool per class, pools per (city, type), counts and known strength sums per (box,
// city, type) with -1 where hidden, a hidden counter's mean strength per (city, type)).
void Game::military_knowledge(int p, MilitaryKnowledge& out) const {
  constexpr int CT = NMC * 2, ALL = (1 << NMC) - 1;
  const int controlled = led_mask(p), revealed = revealed_slot();
  std::fill(std::begin(out.my_pool), std::end(out.my_pool), 0);
  std::fill(std::begin(out.pool_count), std::end(out.pool_count), 0);
  std::fill(std::begin(out.box_count), std::end(out.box_count), 0);
  std::fill(std::begin(out.box_known), std::end(out.box_known), 0);
  for (int k = 0; k < NC; ++k) {
    int c = pool[k];
    if (!c) continue;
    int x = class_city(k);
    out.pool_count[x * 2 + class_type(k)] += c;
    if (controlled >> x & 1) out.my_pool[k] = c;
  }
  for (int box = 0; box < NBOX; ++box) {
    const int* counts = at + box * NC;
    const int seen = box / 4 == revealed ? ALL : controlled;
    for (int e = 0; e < T.n_existing; ++e) {
      int k = T.existing[e], c = counts[k];
      if (!c) continue;
      int x = class_city(k), i = box * CT + x * 2 + class_type(k);
      out.box_count[i] += c;
      if (seen >> x & 1)
        out.box_known[i] += c * class_strength(k);
      else
        out.box_known[i] = -1;
    }
  }
  int unseen[NC];
  for (int k = 0; k < NC; ++k) unseen[k] = T.initial[k] - stack[k] - dead[k];
  if (revealed >= 0)
    for (int box = revealed * 4; box < revealed * 4 + 4; ++box)
      for (int e = 0; e < T.n_existing; ++e) {
        int k = T.existing[e];
        unseen[k] -= at[box * NC + k];
      }
  for (int i = 0; i < CT; ++i) {
    int total = 0, strength = 0;
    for (int st = 1; st <= 4; ++st) {
      int k = class_of(i / 2, i % 2, st);
      total += unseen[k];
      strength += unseen[k] * st;
    }
    out.unknown_mean[i] = total ? static_cast<double>(strength) / total : 0.0;
  }
}

}  // namespace pk
