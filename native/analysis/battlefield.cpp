// The battle model (analysis/battlefield.py), the exact odds (engine/combat.py) and the
// battle-round queries (engine/queries.py); see battlefield.hpp.
#include "analysis/battlefield.hpp"

#include <algorithm>
#include <cmath>

namespace pk::ai {
namespace {

// data.TWO_D6_AT_LEAST: rolls of 2d6 (of 36) reaching at least `need`.
constexpr int two_d6_at_least(int need) {
  int count = 0;
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; b <= 6; ++b) count += a + b >= need;
  return count;
}

// One dice round's probabilities (round_win_probability's locals).
struct RoundOdds {
  double only_a, only_d, both, neither, rolloff;
};

// round_win_probability's inner win(ta, td), the same recursion.
double win(const RoundOdds& o, int ta, int td) {
  if (ta >= 2 && td >= 2) return o.rolloff;
  if (ta >= 2) return 1.0;
  if (td >= 2) return 0.0;
  double progress = o.both * win(o, ta + 1, td + 1) + o.only_a * win(o, ta + 1, td) +
                    o.only_d * win(o, ta, td + 1);
  return progress / (1 - o.neither);
}

// combat._round_outcome: P(attacker wins one round); -1.0 for an empty round (C.3).
double round_outcome(int a, int d, int ta, int td) {
  if (a <= 0 && d <= 0) return -1.0;
  if (a <= 0) return 0.0;
  if (d <= 0) return 1.0;
  return round_win_probability(a, d, std::min(ta, 1), std::min(td, 1));
}

int python_round(double x) { return static_cast<int>(std::nearbyint(x)); }  // half to even

}  // namespace

// ---- exact odds ----

namespace {

// round_win_probability's body: a round's odds depend on its CRT column only (C.5).
double column_win_probability(int column, int att_tokens, int def_tokens) {
  double pa = two_d6_at_least(T.crt_att[column]) / 36.0;
  double pd = two_d6_at_least(T.crt_def[column]) / 36.0;
  RoundOdds o;
  o.only_a = pa * (1 - pd);
  o.only_d = pd * (1 - pa);
  o.rolloff = o.only_a / (o.only_a + o.only_d);
  o.both = pa * pd;
  o.neither = (1 - pa) * (1 - pd);
  return win(o, att_tokens, def_tokens);
}

// Every (column, starting tokens 0-1 each) computed once when the library loads, so the
// hot loops look the odds up and no thread ever writes a shared table.
struct ColumnTable {
  double p[6][2][2];
  ColumnTable() {
    for (int c = 0; c < 6; ++c)
      for (int ta = 0; ta < 2; ++ta)
        for (int td = 0; td < 2; ++td) p[c][ta][td] = column_win_probability(c, ta, td);
  }
};
const ColumnTable COLUMN_ODDS;

}  // namespace

double round_win_probability(int attack, int defence, int att_tokens, int def_tokens) {
  int column = crt_column(attack, defence);
  if (att_tokens <= 1 && def_tokens <= 1 && att_tokens >= 0 && def_tokens >= 0)
    return COLUMN_ODDS.p[column][att_tokens][def_tokens];
  return column_win_probability(column, att_tokens, def_tokens);
}

double battle_win_probability(const OddsRounds& rounds, int att_tokens, int def_tokens) {
  // Mass by who holds the head start entering a round: none, attacker, defender.
  double mass[3] = {1.0, 0.0, 0.0};
  for (int i = 0; i < rounds.count; ++i) {
    int ea = i == 0 ? att_tokens : 0, ed = i == 0 ? def_tokens : 0;
    double outcome[3];
    for (int h = 0; h < 3; ++h)
      outcome[h] = round_outcome(rounds.attack[i], rounds.defence[i], ea + (h == 1), ed + (h == 2));
    if (i == rounds.count - 1) {
      double total = 0.0;
      for (int h = 0; h < 3; ++h) total += mass[h] * (outcome[h] > 0.0 ? outcome[h] : 0.0);
      return total;
    }
    double next[3] = {0.0, 0.0, 0.0};
    for (int h = 0; h < 3; ++h) {
      double p = outcome[h], w = mass[h];
      if (p < 0) {
        next[0] += w;
      } else {
        next[1] += w * p;
        next[2] += w * (1 - p);
      }
    }
    std::copy(next, next + 3, mass);
  }
  return 0.0;
}

// ---- battle-round queries ----

int side_claimants(int persian, int main, int n, int* out) {
  if (main < 0) return 0;
  if (!(persian >> main & 1)) {
    out[0] = main;
    return 1;
  }
  int count = 0;
  for (int p = 0; p < n; ++p)
    if (persian >> p & 1) out[count++] = p;
  return count;
}

int location_rounds(int tile, const int* counts, const double* strengths, int first,
                    RoundX* out) {
  int written = 0;
  for (int i = first; i < T.loc_nrounds[tile]; ++i) {
    int t = T.loc_round[tile][i];
    double a = strengths[t], d = strengths[2 + t];
    int kind = Game::round_kind(tile, t, counts[t], counts[2 + t]);
    if (kind == ROUND_DICE) {
      a = a + T.loc_rebels[tile][t];
      d = d + T.loc_militia[tile][t];
    }
    out[written++] = {t, kind, a, d};
  }
  return written;
}

OddsRounds odds_inputs(const RoundX* rounds, int count) {
  OddsRounds out;
  out.count = count;
  for (int i = 0; i < count; ++i) {
    const RoundX& r = rounds[i];
    int a = 0, d = 0;
    if (r.kind == ROUND_DEFENDER) {
      d = std::max(1, python_round(r.defence));
    } else if (r.kind == ROUND_ATTACKER) {
      a = std::max(1, python_round(r.attack));
    } else if (r.kind == ROUND_DICE) {
      a = std::max(1, python_round(r.attack));
      d = std::max(1, python_round(r.defence));
    }
    out.attack[i] = a;
    out.defence[i] = d;
  }
  return out;
}

// ---- Battlefield ----

Battlefield::Battlefield(const View& v, const Params& p) : view(&v), params(&p), n(v.n), me(v.me) {
  v.side_totals(strength, count);
  std::copy(v.g.main_, v.g.main_ + SLOTS * 2, main);
  double further[NUM_CITIES];
  expected_further_defeats(v, further);
  for (int c = 0; c < NUM_CITIES; ++c) {
    double now = track_value(c, v.g.defeats[c] + further[c]);
    double after = track_value(c, (v.g.defeats[c] + 1) + further[c]);
    double drop = now - after;
    statue_drop[c] = drop > 0.0 ? drop : 0.0;
  }
}

void Battlefield::place(int player, int klass, int slot, int side) {
  add(player, slot, side, class_type(klass), class_strength(klass), 1);
}

void Battlefield::add(int player, int slot, int side, int unit_type, double s, int counters) {
  int i = (slot * 2 + side) * 2 + unit_type;
  strength[i] += s;
  count[i] += counters;
  if (main[slot * 2 + side] < 0) main[slot * 2 + side] = player;
}

double Battlefield::attack_probability(int slot, const Reinforcement* r) const {
  int tile = view->location(slot), i = slot * 4;
  int present[4];
  double s[4];
  for (int j = 0; j < 4; ++j) {
    present[j] = count[i + j] > 0;
    s[j] = strength[i + j];
  }
  if (r) {
    const double extra[4] = {r->attack[0], r->attack[1], r->defence[0], r->defence[1]};
    for (int j = 0; j < 4; ++j) {
      present[j] = present[j] || extra[j] > 0;
      s[j] += extra[j];
    }
  }
  bool defended = main[slot * 2 + DEF] >= 0 || present[2] || present[3];
  if (!Game::fights_rounds(tile, true, defended))  // uncontested attack (E27)
    return present[T.loc_round[tile][T.loc_nrounds[tile] - 1]] ? 1.0 : 0.0;
  RoundX rounds[2];
  int c = location_rounds(tile, present, s, 0, rounds);
  return battle_win_probability(odds_inputs(rounds, c), 0, 0);
}

void Battlefield::values(int slot, const Reinforcement* r, double p_attack, double* out) const {
  const Game& g = view->g;
  std::fill(out, out + n, 0.0);
  int tile = view->location(slot), who[MAXP];
  int ma = main[slot * 2], md = main[slot * 2 + 1];
  if (r) {
    ma = ma >= 0 ? ma : r->attacker;
    md = md >= 0 ? md : r->defender;
  }
  if (ma < 0) {
    int c = side_claimants(g.persian, md, n, who);
    for (int i = 0; i < c; ++i) out[who[i]] += 2.0;  // unattacked defence bonus (C.2, E29)
    return;
  }
  if (p_attack < 0) p_attack = attack_probability(slot, r);
  int vp = T.loc_vp[tile];
  int c = side_claimants(g.persian, ma, n, who);
  for (int i = 0; i < c; ++i) out[who[i]] += p_attack * vp;
  c = side_claimants(g.persian, md, n, who);
  for (int i = 0; i < c; ++i) out[who[i]] += (1.0 - p_attack) * vp;
  int owner = T.loc_city[tile];
  double drop = statue_drop[owner] * p_attack;
  if (drop != 0.0)
    for (int q = 0; q < n; ++q) {
      int held = g.statues[owner * MAXP + q] + (g.leader[owner] == q);
      out[q] -= held * drop;
    }
}

double Battlefield::relative(const double* values) const {
  double others = 0.0;
  for (int q = 0; q < n; ++q)
    if (q != me) others += values[q];
  return values[me] - params->spite * others / (n - 1);
}

Reinforcement Battlefield::reinforcement(int slot, int my_side) const {
  const Game& g = view->g;
  int tile = view->location(slot);
  double caution = params->caution, pot[2];
  Reinforcement out;
  if (my_side == ATT) {
    int q = g.leader[T.loc_city[tile]];
    if (q < 0 || q == me) return out;
    potential(q, 1 << T.loc_city[tile], tile, pot);
    if (pot[0] == 0.0 && pot[1] == 0.0) return out;
    out.defence[0] = caution * pot[0];
    out.defence[1] = caution * pot[1];
    out.defender = q;
    return out;
  }
  int q = main[slot * 2 + ATT];
  if (q < 0 || q == me) return out;
  potential(q, controlled_cities(g, q), tile, pot);
  out.attack[0] = caution * pot[0];
  out.attack[1] = caution * pot[1];
  out.attacker = q;
  return out;
}

void Battlefield::potential(int player, int cities, int tile, double* out) const {
  out[0] = out[1] = 0.0;
  int steps = view->steps_left(player);
  if (!steps) return;
  for (int x = 0; x < NMC; ++x) {
    if (!(cities >> x & 1)) continue;
    for (int t = 0; t < 2; ++t) {
      int count_xt = view->k().pool_count[x * 2 + t];
      if (!count_xt) continue;
      int usable = std::min(count_xt, 2 * std::min(steps, 2));
      out[t] += usable * view->pool_strength(x, t) / count_xt;
    }
  }
  if (T.loc_hoplite_only[tile]) out[TRIREME] = 0.0;
}

}  // namespace pk::ai
