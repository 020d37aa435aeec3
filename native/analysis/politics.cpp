// The election model and its trial layouts (analysis/politics.py); see politics.hpp.
#include "analysis/politics.hpp"

#include <algorithm>

namespace pk::ai {

// ---- rule queries on plain arrays (engine/queries.py) ----

void plague_losses(const int* cubes, const int* cand, int city, int n, int* out) {
  for (int q = 0; q < n; ++q) {
    int in_main = cubes[city * MAXP + q];
    int total = in_main + (cand[city * 2] == q) + (cand[city * 2 + 1] == q);
    out[q] = std::min(total / 2, in_main);  // both non-negative: floor division
  }
}

int election_outcome(const int* cubes, const int* cand, int city, int* loss) {
  int alpha = cand[city * 2], beta = cand[city * 2 + 1];
  *loss = 0;
  if (alpha < 0) return -1;
  if (beta < 0) return alpha;
  int a_count = cubes[city * MAXP + alpha], b_count = cubes[city * MAXP + beta];
  if (a_count >= b_count) {
    *loss = b_count;
    return alpha;
  }
  *loss = a_count;
  return beta;
}

int seat_candidate(int* cubes, int* cand, int city, int nominee) {
  int slot = city * 2 + (cand[city * 2] < 0 ? 0 : 1);
  cand[slot] = nominee;
  cubes[city * MAXP + nominee] -= 1;
  return slot;
}

int unseat_candidate(int* cand, int* supply, int slot) {
  int victim = cand[slot];
  supply[victim] += 1;
  cand[slot] = -1;
  if (slot % 2 == 0 && cand[slot + 1] >= 0) {
    cand[slot] = cand[slot + 1];
    cand[slot + 1] = -1;
  }
  return victim;
}

// ---- the statue outlook and the election model ----

double expected_statue_value(const View& v, int city, int defeats, const double* further) {
  if (defeats < 0) defeats = v.g.defeats[city];
  double own[NUM_CITIES];
  if (further == nullptr) {
    expected_further_defeats(v, own);
    further = own;
  }
  return track_value(city, defeats + further[city]);
}

void leadership_values(const View& v, const Params& p, double* out) {
  double further[NUM_CITIES];
  expected_further_defeats(v, further);
  double military_weight = 2.0 - p.politics;
  for (int c = 0; c < NUM_CITIES; ++c) {
    double statue = expected_statue_value(v, c, -1, further);
    int locations = 0;
    for (int s = 0; s < SLOTS; ++s) {
      int t = v.g.loc_display[s];
      if (T.loc_city[t] == c && !v.g.loc_done[t]) ++locations;
    }
    int stacked = 0, dead = 0;
    for (int k = c * 8; k < c * 8 + 8; ++k) {
      stacked += v.g.stack[k] * class_strength(k);
      dead += v.g.dead[k] * class_strength(k);
    }
    double strength = stacked + dead * 0.2;
    double military = 1.5 * locations + FORCE_WEIGHT * strength;
    out[c] = p.politics * statue + military_weight * military;
  }
}

PoliticalModel::PoliticalModel(const View& v, const Params& p)
    : n(v.n), me(v.me), spite(p.spite) {
  leadership_values(v, p, lead);
}

int PoliticalModel::project(const int* cubes, const int* cand, int c, Outcome* out) const {
  int base = c * MAXP;
  int alpha = cand[c * 2], beta = cand[c * 2 + 1];
  if (alpha >= 0 && beta >= 0) {  // exact: the engine's election (B.6)
    int loss;
    int leader = election_outcome(cubes, cand, c, &loss);
    out[0] = {leader, 1.0, loss};
    return 1;
  }
  if (alpha >= 0) {
    int ma = cubes[base + alpha];
    int best = -1, who[MAXP], count = 0;
    for (int q = 0; q < n; ++q) {
      if (q != alpha && cubes[base + q] >= 1) {
        int m = cubes[base + q] - 1;
        if (m > best) {
          best = m;
          who[0] = q;
          count = 1;
        } else if (m == best) {
          who[count++] = q;
        }
      }
    }
    if (best > ma) {
      double share = 1.0 / count;
      for (int i = 0; i < count; ++i) out[i] = {who[i], share, ma};
      return count;
    }
    out[0] = {alpha, 1.0, std::max(best, 0)};
    return 1;
  }
  int top = 0, second = 0, tops[MAXP], count = 0;
  for (int q = 0; q < n; ++q) {
    int m = cubes[base + q];
    if (m > top) {
      second = top;
      top = m;
      tops[0] = q;
      count = 1;
    } else if (m == top && m > 0) {
      tops[count++] = q;
    } else if (m > second) {
      second = m;
    }
  }
  if (count == 0) return 0;
  if (count > 1) {
    double share = 1.0 / count;
    for (int i = 0; i < count; ++i) out[i] = {tops[i], share, top - 1};
    return count;
  }
  out[0] = {tops[0], 1.0, std::max(second - 1, 0)};
  return 1;
}

void PoliticalModel::gains(const int* cubes, const int* cand, double* out) const {
  for (int q = 0; q < n; ++q) out[q] = 0.0;
  Outcome outcomes[MAXP];
  for (int c = 0; c < NUM_CITIES; ++c) {
    int base = c * MAXP;
    for (int q = 0; q < n; ++q) out[q] += cubes[base + q];
    int count = project(cubes, cand, c, outcomes);
    for (int i = 0; i < count; ++i) {
      const Outcome& o = outcomes[i];
      out[o.leader] += o.probability * (lead[c] - o.loss);
    }
  }
}

double PoliticalModel::score(const int* cubes, const int* cand, const double* extra) const {
  double g[MAXP];
  gains(cubes, cand, g);
  if (extra != nullptr)
    for (int q = 0; q < n; ++q) g[q] = g[q] + extra[q];
  double others = 0.0;  // Python's sum() from int 0: 0 + x == 0.0 + x for every double
  for (int q = 0; q < n; ++q)
    if (q != me) others += g[q];
  return g[me] - spite * others / (n - 1);
}

// ---- trial layouts ----

Layout Layout::of(const View& v) {
  Layout l;
  std::copy(v.g.cubes, v.g.cubes + NCUBES, l.cubes);
  std::copy(v.g.cand, v.g.cand + NCAND, l.cand);
  std::copy(v.g.supply, v.g.supply + MAXP, l.supply);
  return l;
}

void Layout::add(int player, int city, int count) {
  int added = std::min(count, supply[player]);  // B.12
  supply[player] -= added;
  cubes[city * MAXP + player] += added;
}

void Layout::remove(int player, int city, int count) {
  cubes[city * MAXP + player] -= count;
  supply[player] += count;
}

void Layout::assassinate(int city, int target, int victim) {
  if (target < MAXP) remove(victim, city);
  else unseat_candidate(cand, supply, city * 2 + target - ASSASSIN_ALPHA);
}

void Layout::plague(int city, int n) {
  int losses[MAXP];
  plague_losses(cubes, cand, city, n, losses);  // D.2, E19
  for (int q = 0; q < n; ++q)
    if (losses[q]) remove(q, city, losses[q]);
}

int Layout::proposals(int p, int n, Proposal* out) const {
  int count = 0;
  for (int c = 0; c < NUM_CITIES; ++c) {
    int alpha = cand[c * 2], beta = cand[c * 2 + 1];
    if (beta >= 0) continue;  // both slots full
    int base = c * MAXP;
    if (!(cubes[base + p] || alpha == p)) continue;  // E12: the candidate slot counts
    // queries.proposals lists nominees in seat order from p; sorted() orders them by seat.
    for (int q = 0; q < n; ++q)
      if (cubes[base + q] && q != alpha) out[count++] = {c, q};
  }
  return count;
}

int Layout::removals(int n, Removal* out) const {
  int count = 0;
  for (int c = 0; c < NUM_CITIES; ++c) {
    for (int q = 0; q < n; ++q)  // queries.assassination_targets with first = 0
      if (cubes[c * MAXP + q]) out[count++] = {c, q, q};
    if (cand[c * 2] >= 0) out[count++] = {c, ASSASSIN_ALPHA, cand[c * 2]};
    if (cand[c * 2 + 1] >= 0) out[count++] = {c, ASSASSIN_BETA, cand[c * 2 + 1]};
  }
  return count;
}

double best_follow_up(const PoliticalModel& m, const Layout& layout, int kind, int me) {
  int n = m.n;
  bool found = false;
  double best = 0.0;
  auto consider = [&](const Layout& trial) {
    double s = trial.score(m);
    if (!found || s > best) best = s;
    found = true;
  };
  if (kind == CANDIDATE) {
    Proposal options[NUM_CITIES * MAXP];
    int count = layout.proposals(me, n, options);
    for (int i = 0; i < count; ++i) {
      Layout trial = layout;
      trial.propose(options[i].city, options[i].nominee);
      consider(trial);
    }
  } else if (kind == ASSASSIN) {
    Removal options[NUM_CITIES * ASSASSIN_TARGETS];
    int count = layout.removals(n, options);
    for (int i = 0; i < count; ++i) {
      Layout trial = layout;
      trial.assassinate(options[i].city, options[i].target, options[i].victim);
      consider(trial);
    }
  } else if (kind == ANY_KIND) {
    for (int c = 0; c < NUM_CITIES; ++c) {
      Layout trial = layout;
      trial.add(me, c, 1);
      consider(trial);
    }
  }
  return found ? best : layout.score(m);
}

double tile_value(const PoliticalModel& m, const View& v, int slot) {
  int tile = v.g.display[slot];
  Layout layout = Layout::of(v);
  int kind = T.inf_kind[tile];
  if (kind != ANY_KIND) layout.add(v.me, T.inf_colour[tile], T.inf_shards[tile]);
  return best_follow_up(m, layout, kind, v.me);
}

}  // namespace pk::ai
