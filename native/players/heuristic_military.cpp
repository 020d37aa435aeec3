// The heuristic's small phase-5 and phase-6 decisions (agents/heuristic/agent.py): Sparta's
// choice, the dead pool, permission, battle specials and casualties; see heuristic.hpp.
#include <stdexcept>

#include "analysis/battlefield.hpp"
#include "players/heuristic.hpp"

namespace pk::ai {
namespace {

// agent.BATTLE_HOLD: minimum gain before a battle special is spent, by turn (1-3).
constexpr double BATTLE_HOLD[NUM_TURNS + 1] = {0.0, 1.2, 0.8, 0.1};

// _score_sparta: name himself (B.7.2, B.7.5).
void score_sparta(const Actions& legal, Scores& out) {
  for (size_t i = 0; i < legal.size(); ++i) out[i] = legal[i] == SPARTA_FIRST ? 1.0 : 0.0;
}

// _score_dead_pool: the type whose lowest dead counter is strongest, ties to the type the
// displayed locations fight with more (B.7.3).
void score_dead_pool(const View& v, const Actions& legal, Scores& out) {
  const Game& g = v.g;
  int city = g.dp_queue[g.dp_index + 1], rounds[2] = {0, 0};
  for (int slot = 0; slot < SLOTS; ++slot) {
    int tile = v.location(slot);
    for (int i = 0; i < T.loc_nrounds[tile]; ++i) ++rounds[T.loc_round[tile][i]];
  }
  for (size_t i = 0; i < legal.size(); ++i) {
    int t = legal[i] - DEAD_POOL, lowest = 0;
    for (int s = 1; s <= 4 && !lowest; ++s)
      if (g.dead[class_of(city, t, s)]) lowest = s;
    out[i] = lowest + 0.01 * rounds[t];
  }
}

// _score_permission: grant when joining an existing main defender, or when the location is
// attacked and the owner's leader can no longer defend it himself (B.7.8, C.2).
void score_permission(const View& v, const Actions& legal, Scores& out) {
  const Game& g = v.g;
  int slot = v.pending[2], md = g.main_[slot * 2 + DEF], ma = g.main_[slot * 2 + ATT];
  bool grant = md >= 0;
  if (md < 0) {
    int tile = v.location(slot);
    bool can_defend = false;
    if (v.steps_left(v.me) > 0)
      for (int c = 0; c < NUM_CITIES && !can_defend; ++c) {
        if (g.leader[c] != v.me) continue;
        for (int i = 0; i < T.loc_nrounds[tile]; ++i)
          for (int s = 1; s <= 4; ++s)
            can_defend = can_defend || v.k().my_pool[class_of(c, T.loc_round[tile][i], s)] != 0;
      }
    grant = ma >= 0 && !can_defend;
  }
  for (size_t i = 0; i < legal.size(); ++i) out[i] = (legal[i] == GRANT) == grant ? 1.0 : 0.0;
}

// _battle_probability: P(attacker wins) from the current round on with the revealed
// strengths, `doubled` adding the doubled city's counters once more (D.5, D.7).
double battle_probability(const View& v, int att_tokens, int def_tokens, bool doubled) {
  const Game& g = v.g;
  int slot = g.b_slot, tile = v.location(slot), counts[4];
  double strengths[4];
  for (int side = 0; side < 2; ++side)
    for (int t = 0; t < 2; ++t) {
      counts[side * 2 + t] = v.side_count(slot, side, t);
      strengths[side * 2 + t] = v.side_strength(slot, side, t);
    }
  if (doubled) {
    int t = T.loc_round[tile][g.b_round], home = doubled_city(t);
    strengths[ATT * 2 + t] += v.known_city_strength(slot, ATT, home, t);
    strengths[DEF * 2 + t] += v.known_city_strength(slot, DEF, home, t);
  }
  RoundX rounds[2];
  int c = location_rounds(tile, counts, strengths, g.b_round, rounds);
  return battle_win_probability(odds_inputs(rounds, c), att_tokens, def_tokens);
}

// _score_battle_special: the exact change in this location's value, net of the hold value.
void score_battle_special(const View& v, const Params& p, const Actions& legal, Scores& out) {
  const Game& g = v.g;
  Battlefield bf(v, p);
  int ta = g.b_tokens[0], td = g.b_tokens[1];
  double hold = BATTLE_HOLD[g.turn], values[MAXP];
  for (size_t i = 0; i < legal.size(); ++i) {
    int a = legal[i];
    double prob;
    if (a == BATTLE_PASS) {
      prob = battle_probability(v, ta, td, g.b_double);
    } else if (a == BATTLE_DOUBLE) {
      prob = battle_probability(v, ta, td, true);
    } else {
      int side = a - BATTLE_TOKEN;
      prob = battle_probability(v, ta || side == ATT, td || side == DEF, g.b_double);
    }
    bf.values(g.b_slot, nullptr, prob, values);
    out[i] = bf.relative(values) - (a == BATTLE_PASS ? 0.0 : hold);
  }
}

// _score_casualty: a Persian counter if possible (back to the shield, B.11), else one of the
// city with the most counters of that type (C.7).
void score_casualty(const View& v, const Actions& legal, Scores& out) {
  int t = class_type(v.g.b_cas[0]);
  for (size_t i = 0; i < legal.size(); ++i) {
    int x = legal[i] - CASUALTY, total = 0;
    for (int s = 1; s <= 4; ++s) total += T.initial[class_of(x, t, s)];
    out[i] = x == PERSIA ? 100.0 : static_cast<double>(total);
  }
}

}  // namespace

void score_military(const View& v, const Params& p, const Actions& legal, Scores& out) {
  switch (v.g.phase) {
    case Phase::SPARTA_CHOICE:
      return score_sparta(legal, out);
    case Phase::DEAD_POOL:
      return score_dead_pool(v, legal, out);
    case Phase::PERMISSION:
      return score_permission(v, legal, out);
    case Phase::BATTLE_SPECIAL:
      return score_battle_special(v, p, legal, out);
    case Phase::CASUALTY:
      return score_casualty(v, legal, out);
    default:
      throw std::logic_error("score_military: not a military decision");
  }
}

}  // namespace pk::ai
