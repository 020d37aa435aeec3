// The heuristic's commit step (agents/heuristic/commit.py): which counter goes where, extra
// forces, Slave Revolt; see heuristic.hpp. Fixed arrays only: the commit step is the
// heuristic's most frequent decision.
#include <algorithm>
#include <cstring>

#include "analysis/battlefield.hpp"
#include "players/heuristic.hpp"

namespace pk::ai {
namespace {

constexpr double PLACE_THRESHOLD = 0.05;
// commit.REVOLT_HOLD: minimum gain before Slave Revolt is spent, by turn (1-3).
constexpr double REVOLT_HOLD[NUM_TURNS + 1] = {0.0, 1.2, 0.8, 0.1};
constexpr double MISSING = -1e9;  // _best_pairs' default for a key not yet scored

double opportunity_cost(const Params& p, const View& v) {
  double later = v.steps_left(v.me) / 3.0;
  return 0.12 * (2.0 - p.aggression) * (later < 1.0 ? later : 1.0);
}

double grant_chance(const View& v, int slot) {
  const Game& g = v.g;
  if (g.main_[slot * 2 + DEF] >= 0) return 0.8;
  int tile = v.location(slot), owner = g.leader[T.loc_city[tile]];
  if (owner < 0) return 0.0;
  bool can_defend = false;
  if (v.steps_left(owner))
    for (int c = 0; c < NUM_CITIES; ++c)
      if (g.leader[c] == owner)
        for (int i = 0; i < T.loc_nrounds[tile]; ++i)
          can_defend = can_defend || v.k().pool_count[c * 2 + T.loc_round[tile][i]] != 0;
  return g.main_[slot * 2 + ATT] >= 0 && !can_defend ? 0.5 : 0.25;
}

struct Place {
  int klass, slot, side;
};
Place place_args(int a) {
  int rest = (a - PLACE) / 2;
  return {rest / SLOTS, rest % SLOTS, (a - PLACE) % 2};
}

// The iteration order of a CPython set of small non-negative ints built by adding `keys` in
// order (open addressing, hash(k) == k): _representatives breaks strength ties by it.
int python_set_order(const int* keys, int count, int* out) {
  constexpr int LINEAR_PROBES = 9, CAP = 256;
  int table[CAP], mask = 7, fill = 0;
  std::fill(table, table + CAP, -1);
  auto insert_clean = [](int* tab, int m, int key) {
    size_t perturb = static_cast<size_t>(key), i = static_cast<size_t>(key) & m;
    for (;;) {
      if (tab[i] < 0) { tab[i] = key; return; }
      if (i + LINEAR_PROBES <= static_cast<size_t>(m))
        for (size_t j = 1; j <= LINEAR_PROBES; ++j)
          if (tab[i + j] < 0) { tab[i + j] = key; return; }
      perturb >>= 5;
      i = (i * 5 + 1 + perturb) & m;
    }
  };
  for (int e = 0; e < count; ++e) {
    int key = keys[e];
    size_t perturb = static_cast<size_t>(key), i = static_cast<size_t>(key) & mask, j = 0;
    bool found = false;
    for (;;) {
      int probes = i + LINEAR_PROBES <= static_cast<size_t>(mask) ? LINEAR_PROBES : 0;
      bool done = false;
      for (j = i;; ++j, --probes) {
        if (table[j] < 0 || table[j] == key) {
          found = table[j] == key;
          done = true;
          break;
        }
        if (probes == 0) break;
      }
      if (done) break;
      perturb >>= 5;
      i = (i * 5 + 1 + perturb) & mask;
    }
    if (found) continue;
    table[j] = key;
    if (++fill * 5 < mask * 3) continue;
    int size = 8;
    while (size <= fill * 4) size <<= 1;
    int old[CAP];
    std::copy(table, table + mask + 1, old);
    int old_mask = mask;
    mask = size - 1;
    std::fill(table, table + size, -1);
    for (int s = 0; s <= old_mask; ++s)
      if (old[s] >= 0) insert_clean(table, mask, old[s]);
  }
  int written = 0;
  for (int s = 0; s <= mask; ++s)
    if (table[s] >= 0) out[written++] = table[s];
  return written;
}

// _representatives: the weakest and strongest class of each type (ties as sorted() over
// the set leaves them), in class order per type; returns the count (<= 4).
int representatives(const int* classes, int count, int* out) {
  int order[NC];
  int size = python_set_order(classes, count, order), written = 0;
  for (int t = 0; t < 2; ++t) {
    int weak = -1, strong = -1;
    for (int e = 0; e < size; ++e) {
      int k = order[e];
      if (class_type(k) != t) continue;
      if (weak < 0 || class_strength(k) < class_strength(weak)) weak = k;
      if (strong < 0 || class_strength(k) >= class_strength(strong)) strong = k;
    }
    if (weak < 0) continue;
    out[written++] = std::min(weak, strong);
    if (weak != strong) out[written++] = std::max(weak, strong);
  }
  return written;
}

// Gains: value change of trial placements at one location side, with cached baselines. The
// memo is keyed as the Python's, by the sorted (type, strength) shapes, so a pair reached
// in either order keeps the value of the order computed first (the additions differ).
class Gains {
 public:
  Gains(const Battlefield& bf, int player) : bf_(bf), player_(player) {
    std::memset(base_done_, 0, sizeof base_done_);
    std::memset(memo_done_, 0, sizeof memo_done_);
  }

  double gain(const int* klasses, int count, int slot, int side) {
    int a = shape(klasses[0]), key = a;
    if (count == 2) {
      int b = shape(klasses[1]);
      key = SHAPES + std::min(a, b) * SHAPES + std::max(a, b);
    }
    int target = slot * 2 + side;
    if (memo_done_[target][key]) return memo_[target][key];
    if (!base_done_[target]) {
      base_r_[target] = bf_.reinforcement(slot, side);
      double values[MAXP];
      bf_.values(slot, &base_r_[target], -1.0, values);
      base_v_[target] = bf_.relative(values);
      base_done_[target] = true;
    }
    Battlefield trial = bf_;
    for (int i = 0; i < count; ++i) trial.place(player_, klasses[i], slot, side);
    double values[MAXP];
    trial.values(slot, &base_r_[target], -1.0, values);
    double value = trial.relative(values) - base_v_[target];
    memo_done_[target][key] = true;
    memo_[target][key] = value;
    return value;
  }
  double gain1(int klass, int slot, int side) { return gain(&klass, 1, slot, side); }

 private:
  static constexpr int SHAPES = 16;  // type * 8 + strength
  static int shape(int k) { return class_type(k) * 8 + class_strength(k); }

  const Battlefield& bf_;
  int player_;
  bool base_done_[SLOTS * 2];
  Reinforcement base_r_[SLOTS * 2];
  double base_v_[SLOTS * 2];
  bool memo_done_[SLOTS * 2][SHAPES * (SHAPES + 1)];
  double memo_[SLOTS * 2][SHAPES * (SHAPES + 1)];
};

// The dict of (slot, side) targets to their classes, in insertion order.
struct Targets {
  int count = 0;
  int order[SLOTS * 2];
  int size[SLOTS * 2] = {};
  int classes[SLOTS * 2][NC];
  void add(int slot, int side, int klass) {
    int t = slot * 2 + side;
    if (!size[t]) order[count++] = t;
    classes[t][size[t]++] = klass;
  }
};

// The dict of best pair scores per (first class, slot, side).
struct Pairs {
  bool has[NC][SLOTS * 2] = {};
  double value[NC][SLOTS * 2];
  void offer(int k, int target, double v) {
    if (v > (has[k][target] ? value[k][target] : MISSING)) {
      has[k][target] = true;
      value[k][target] = v;
    }
  }
};

int room(const Game& g) {
  if (g.step_closed) return 0;
  return 2 - (g.step_spend < 0 ? g.step_normal : g.step_extra);
}

bool needs_permission(const View& v, const int* classes, int slot, int side) {
  return side == DEF &&
         v.g.target_status(v.me, class_city(classes[0]), slot, side) == NEEDS_PERMISSION;
}

void best_pairs(const View& v, Gains& gains, const Targets& targets, double cost, Pairs& out) {
  for (int e = 0; e < targets.count; ++e) {
    int target = targets.order[e], slot = target / 2, side = target % 2;
    const int* classes = targets.classes[target];
    int reps[4], count = representatives(classes, targets.size[target], reps);
    double factor = needs_permission(v, classes, slot, side) ? grant_chance(v, slot) : 1.0;
    for (int i = 0; i < count; ++i)
      for (int j = i; j < count; ++j) {
        int pair[2] = {reps[i], reps[j]};
        if (pair[0] == pair[1] && v.k().my_pool[pair[0]] < 2) continue;
        double value = gains.gain(pair, 2, slot, side) -
                       cost * (class_strength(pair[0]) + class_strength(pair[1]));
        value *= factor;
        out.offer(pair[0], target, value);
        out.offer(pair[1], target, value);
      }
  }
}

// _spend_value: the best extra pair (or single) from the spend city (Persia for a Persian
// leader), minus the cube's VP and a margin (B.7.5 step 4).
double spend_value(const Params& p, const View& v, Gains& gains, int city, double cost) {
  const Game& g = v.g;
  int me = v.me, x = (g.persian >> me & 1) ? PERSIA : city;
  int classes[8], count = 0;
  for (int k = x * 8; k < x * 8 + 8; ++k)
    if (v.k().my_pool[k]) classes[count++] = k;
  if (!count) return -1e9;
  Targets targets;
  double best = 0.0;
  for (int slot = 0; slot < SLOTS; ++slot) {
    bool hoplite_only = T.loc_hoplite_only[v.location(slot)];
    for (int side = 0; side < 2; ++side) {
      if (g.target_status(me, x, slot, side) != LEGAL) continue;
      int reps[4], usable[8], n_usable = 0;
      for (int i = 0; i < count; ++i)
        if (!(hoplite_only && class_type(classes[i]))) usable[n_usable++] = classes[i];
      if (!n_usable) continue;
      for (int i = 0; i < n_usable; ++i) targets.add(slot, side, usable[i]);
      int n_reps = representatives(usable, n_usable, reps);
      for (int i = 0; i < n_reps; ++i) {
        double value = gains.gain1(reps[i], slot, side) - cost * class_strength(reps[i]);
        best = value > best ? value : best;
      }
    }
  }
  Pairs pairs;
  best_pairs(v, gains, targets, cost, pairs);
  for (int k = 0; k < NC; ++k)
    for (int t = 0; t < SLOTS * 2; ++t)
      if (pairs.has[k][t] && pairs.value[k][t] > best) best = pairs.value[k][t];
  return best - 1.0 - 0.3 * (1.0 - p.aggression / 2.0);
}

// _slave_revolt_value: one random Spartan hoplite sent home (D.4), minus the hold value.
double slave_revolt_value(const Params& p, const View& v, const Battlefield& bf, int source) {
  const Game& g = v.g;
  double hold = REVOLT_HOLD[g.turn], mean = v.k().unknown_mean[SPARTA * 2 + HOPLITE];
  if (source == 0) {
    int sparta = g.leader[SPARTA];
    if (sparta == v.me || !v.steps_left(sparta)) return -hold;
    return 0.5 * mean * p.spite - hold;
  }
  int slot = source - 1;
  double values[MAXP];
  bf.values(slot, nullptr, -1.0, values);
  double before = bf.relative(values);
  Battlefield trial = bf;
  for (int side = 0; side < 2; ++side) {
    int count = v.city_count(slot, side, SPARTA, HOPLITE);
    if (!count) continue;
    int i = (slot * 2 + side) * 2 + HOPLITE;
    trial.strength[i] -= v.known_city_strength(slot, side, SPARTA, HOPLITE) / count;
    trial.count[i] -= 1;
  }
  trial.values(slot, nullptr, -1.0, values);
  return trial.relative(values) - before - hold;
}

}  // namespace

void score_commit(const View& v, const Params& p, const Actions& legal, Scores& out) {
  const Game& g = v.g;
  int me = v.me;
  Battlefield bf(v, p);
  Gains gains(bf, me);
  double cost = opportunity_cost(p, v);
  Targets targets;
  for (size_t i = 0; i < legal.size(); ++i) {
    int a = legal[i];
    if (a < SPEND_CUBE) {
      Place pl = place_args(a);
      double gain = gains.gain1(pl.klass, pl.slot, pl.side) - cost * class_strength(pl.klass);
      if (g.target_status(me, class_city(pl.klass), pl.slot, pl.side) == NEEDS_PERMISSION)
        gain *= grant_chance(v, pl.slot);
      out[i] = gain - PLACE_THRESHOLD;
      targets.add(pl.slot, pl.side, pl.klass);
    } else if (a < SLAVE_REVOLT) {
      out[i] = spend_value(p, v, gains, a - SPEND_CUBE, cost);
    } else if (a < END_STEP) {
      out[i] = slave_revolt_value(p, v, bf, a - SLAVE_REVOLT);
    } else {
      out[i] = 0.0;
    }
  }
  if (room(g) < 2 || !targets.count) return;
  Pairs pairs;
  best_pairs(v, gains, targets, cost, pairs);
  for (size_t i = 0; i < legal.size(); ++i) {
    if (legal[i] >= SPEND_CUBE) continue;
    Place pl = place_args(legal[i]);
    int t = pl.slot * 2 + pl.side;
    if (!pairs.has[pl.klass][t]) continue;
    double paired = pairs.value[pl.klass][t] - PLACE_THRESHOLD;
    out[i] = paired > out[i] ? paired : out[i];
  }
}

}  // namespace pk::ai
