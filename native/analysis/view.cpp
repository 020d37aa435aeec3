// View (analysis/view.py PlayerView), the statue outlook (analysis/politics.py) and the
// tie-breaking contract (agents/tiebreak.py); see analysis.hpp.
#include <cmath>
#include <numbers>

#include "analysis/analysis.hpp"

namespace pk::ai {
namespace {
constexpr int CT = NMC * 2;  // per (city, type) entries of a box
constexpr double P_DEFEAT = 0.3;
}  // namespace

int controlled_cities(const Game& g, int player) { return g.led_mask(player); }

View::View(const Game& game, int player) : g(game), me(player), n(game.n) {
  controlled = controlled_cities(g, me);
  has_pending = g.pending.n > 0;
  if (has_pending) {
    int klass = g.pending[0];
    pending[0] = class_city(klass);
    pending[1] = class_type(klass);
    pending[2] = g.pending[1];
    pending[3] = g.pending[2];
  } else {
    pending[0] = pending[1] = pending[2] = pending[3] = -1;
  }
}

double View::box_strength(int slot, int side, int box, int unit_type) const {
  double total = 0.0;
  int b = (slot * 2 + side) * 2 + box;
  for (int x = 0; x < NMC; ++x) {
    int i = b * CT + x * 2 + unit_type;
    int count = k().box_count[i];
    if (count) {
      int known = k().box_known[i];
      total += known >= 0 ? static_cast<double>(known) : count * k().unknown_mean[x * 2 + unit_type];
    }
  }
  return total;
}

double View::side_strength(int slot, int side, int unit_type) const {
  return box_strength(slot, side, 0, unit_type) + box_strength(slot, side, 1, unit_type);
}

int View::side_count(int slot, int side, int unit_type) const {
  int count = 0;
  for (int box = 0; box < 2; ++box) {
    int b = ((slot * 2 + side) * 2 + box) * CT;
    for (int x = 0; x < NMC; ++x) count += k().box_count[b + x * 2 + unit_type];
  }
  return count;
}

void View::side_totals(double* strength, int* count) const {
  for (int i = 0; i < SLOTS * 4; ++i) strength[i] = 0.0, count[i] = 0;
  for (int side_index = 0; side_index < SLOTS * 2; ++side_index) {
    double totals[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    bool seen = false;
    for (int box = 0; box < 2; ++box) {
      int base = (side_index * 2 + box) * CT;
      for (int xt = 0; xt < CT; ++xt) {
        int c = k().box_count[base + xt];
        if (!c) continue;
        seen = true;
        int known = k().box_known[base + xt];
        totals[box][xt & 1] += known >= 0 ? static_cast<double>(known) : c * k().unknown_mean[xt];
        count[side_index * 2 + (xt & 1)] += c;
      }
    }
    if (seen)
      for (int t = 0; t < 2; ++t) strength[side_index * 2 + t] = totals[0][t] + totals[1][t];
  }
}

int View::city_count(int slot, int side, int city, int unit_type) const {
  int count = 0;
  for (int box = 0; box < 2; ++box)
    count += k().box_count[((slot * 2 + side) * 2 + box) * CT + city * 2 + unit_type];
  return count;
}

double View::known_city_strength(int slot, int side, int city, int unit_type) const {
  double total = 0.0;
  for (int box = 0; box < 2; ++box) {
    int i = ((slot * 2 + side) * 2 + box) * CT + city * 2 + unit_type;
    int count = k().box_count[i];
    if (count) {
      int known = k().box_known[i];
      total += known >= 0 ? static_cast<double>(known)
                          : count * k().unknown_mean[city * 2 + unit_type];
    }
  }
  return total;
}

double View::pool_strength(int city, int unit_type) const {
  if (controlled >> city & 1) {
    int sum = 0;
    for (int s = 1; s <= 4; ++s) {
      int klass = class_of(city, unit_type, s);
      sum += k().my_pool[klass] * s;
    }
    return static_cast<double>(sum);
  }
  return k().pool_count[city * 2 + unit_type] * k().unknown_mean[city * 2 + unit_type];
}

double track_value(int city, double defeats) {
  int low = static_cast<int>(defeats);
  double frac = defeats - low;
  int a = statue_value(city, low), b = statue_value(city, low + 1);
  return a + (b - a) * frac;
}

void expected_further_defeats(const View& v, double* out) {
  int unseen[NUM_CITIES] = {};
  for (int c = 0; c < NUM_CITIES; ++c) out[c] = 0.0;
  for (int t = 0; t < NLOC; ++t) {
    if (v.g.loc_done[t]) continue;
    int city = T.loc_city[t];
    bool on_display = false;
    for (int s = 0; s < SLOTS; ++s) on_display = on_display || v.g.loc_display[s] == t;
    if (on_display) out[city] += P_DEFEAT;
    else ++unseen[city];
  }
  int future_turns = NUM_TURNS - v.g.turn;
  if (future_turns <= 0 || v.loc_deck_left() <= 0) return;
  double drawn = static_cast<double>(SLOTS * future_turns) / v.loc_deck_left();
  if (drawn > 1.0) drawn = 1.0;
  for (int c = 0; c < NUM_CITIES; ++c) out[c] = out[c] + unseen[c] * drawn * P_DEFEAT;
}

int pick_best(Scores& scores, uint64_t seed, double noise) {
  Rng r{seed};
  if (noise > 0.0) {
    for (double& s : scores) {
      double u1 = static_cast<double>(r.next64() >> 11) * 0x1.0p-53;
      double u2 = static_cast<double>(r.next64() >> 11) * 0x1.0p-53;
      double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
      s = s + noise * z;
    }
  }
  double best = scores[0];
  for (double s : scores) best = s > best ? s : best;
  int top[NUM_ACTIONS], count = 0;
  for (int i = 0; i < static_cast<int>(scores.size()); ++i)
    if (scores[i] >= best - 1e-9) top[count++] = i;
  return count == 1 ? top[0] : top[r.randrange(count)];
}

}  // namespace pk::ai
