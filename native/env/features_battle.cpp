// battle_features (analysis/battle_features.py) and the commit rows of action_features
// (analysis/action_features.py _commit), on the battle model; see features.hpp.
#include <algorithm>

#include "analysis/battlefield.hpp"
#include "env/features.hpp"

namespace pk::feat {
namespace {

constexpr double VP = 7.0;  // the largest location VP

// _edge: the player's value minus the mean of the others'.
double edge(const double* values, int n, int player) {
  double others = 0.0;
  for (int q = 0; q < n; ++q)
    if (q != player) others += values[q];
  return values[player] - others / (n - 1);
}

// _probe_strengths: mean strength of the player's own hand per type (0 if none).
void probe_strengths(const ai::View& v, double* out) {
  for (int t = 0; t < 2; ++t) {
    int count = 0, strength = 0;
    for (int k = 0; k < NC; ++k)
      if (v.k().my_pool[k] && class_type(k) == t) {
        count += v.k().my_pool[k];
        strength += v.k().my_pool[k] * class_strength(k);
      }
    out[t] = count ? static_cast<double>(strength) / count : 0.0;
  }
}

bool has_round(int tile, int unit_type) {
  for (int i = 0; i < T.loc_nrounds[tile]; ++i)
    if (T.loc_round[tile][i] == unit_type) return true;
  return false;
}

}  // namespace

void battle(const Game& g, int player, float* out) {
  std::fill(out, out + BATTLE_SIZE, 0.0f);
  if (g.phase == Phase::GAME_OVER) return;
  const ai::View v(g, player);
  const ai::Params params;
  const ai::Battlefield bf(v, params);
  double probes[2], values[MAXP];
  probe_strengths(v, probes);
  // Sides any of the player's cities may join (B.7.6; a permission to ask counts as may).
  bool open[SLOTS * 2] = {};
  for (int x = 0; x < NMC; ++x) {
    if (!(v.controlled >> x & 1)) continue;
    Target targets[SLOTS * 2];
    int count = g.open_targets(player, x, false, false, targets);
    for (int i = 0; i < count; ++i) open[targets[i].slot * 2 + targets[i].side] = true;
  }
  for (int slot = 0; slot < SLOTS; ++slot) {
    int tile = g.loc_display[slot];
    if (g.loc_done[tile]) continue;
    float* row = out + slot * BATTLE_PER_SLOT;
    row[0] = 1.0f;
    double p_attack = bf.attack_probability(slot);
    row[1] = static_cast<float>(p_attack);
    bf.values(slot, nullptr, p_attack, values);
    row[2] = static_cast<float>(values[player] / VP);
    row[3] = static_cast<float>(edge(values, g.n, player) / VP);
    for (int side = 0; side < 2; ++side) {
      if (!open[slot * 2 + side]) continue;
      ai::Reinforcement reinforce = bf.reinforcement(slot, side);
      bf.values(slot, &reinforce, -1.0, values);
      double before = edge(values, g.n, player);
      for (int t = 0; t < 2; ++t) {
        if (probes[t] == 0.0 || !has_round(tile, t)) continue;
        for (int count = 1; count <= 2; ++count) {
          ai::Battlefield trial = bf;
          trial.add(player, slot, side, t, count * probes[t], count);
          trial.values(slot, &reinforce, -1.0, values);
          double gain = edge(values, g.n, player) - before;
          row[4 + (side * 2 + t) * 2 + count - 1] = static_cast<float>(gain / VP);
        }
      }
    }
  }
  for (int i = 0; i < BATTLE_SIZE; ++i) out[i] = std::clamp(out[i], -1.0f, 1.0f);
}

void actions_commit(const ai::View& v, const Actions& legal, float* out) {
  const Game& g = v.g;
  int me = v.me;
  double later = v.steps_left(me) / 3.0;
  later = later < 1.0 ? later : 1.0;
  const ai::Params params;
  const ai::Battlefield bf(v, params);
  bool have[SLOTS * 2] = {}, known[SLOTS * 2][8] = {};
  double memo[SLOTS * 2][8][3];
  ai::Reinforcement reinforce[SLOTS * 2];
  double before[SLOTS * 2][MAXP], after[MAXP], pair[MAXP];
  for (int a : legal) {
    float* row = out + a * ACTION_PER;
    if (a >= PLACE && a < SPEND_CUBE) {
      int rest = (a - PLACE) / 2, side = (a - PLACE) % 2, klass = rest / SLOTS, slot = rest % SLOTS;
      int t = slot * 2 + side;
      if (!have[t]) {
        reinforce[t] = bf.reinforcement(slot, side);
        bf.values(slot, &reinforce[t], -1.0, before[t]);
        have[t] = true;
      }
      // Counters of one (type, strength) shape give the same values: computed once.
      int shape = class_type(klass) * 4 + class_strength(klass) - 1;
      double* war = memo[t][shape];
      if (!known[t][shape]) {
        ai::Battlefield trial = bf;
        trial.place(me, klass, slot, side);
        trial.values(slot, &reinforce[t], -1.0, after);
        war[0] = bf.relative(after) - bf.relative(before[t]);
        war[1] = after[me] - before[t][me];
        trial.place(me, klass, slot, side);
        trial.values(slot, &reinforce[t], -1.0, pair);
        war[2] = bf.relative(pair) - bf.relative(before[t]);
        known[t][shape] = true;
      }
      row[WAR] = static_cast<float>(war[0]);
      row[WAR_OWN] = static_cast<float>(war[1]);
      row[WAR_PAIR] = static_cast<float>(war[2]);
      row[COST] = static_cast<float>(class_strength(klass));
      row[COST_KEPT] = static_cast<float>(class_strength(klass) * later);
      int status = g.target_status(me, class_city(klass), slot, side);
      row[PERMISSION] = status == NEEDS_PERMISSION ? 1.0f : 0.0f;
      row[SCORED] = 1.0f;
    } else if (a >= SPEND_CUBE && a < SLAVE_REVOLT) {
      row[COST] = 1.0f;
      row[SCORED] = 1.0f;
    } else if (a == END_STEP) {
      row[SCORED] = 1.0f;
    }
  }
}

}  // namespace pk::feat
