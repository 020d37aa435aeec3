// The heuristic's battle model in C++ (perikles_env/analysis/battlefield.py, the readable
// reference) with the exact combat odds it rests on (engine/combat.py, C.5-C.6) and the
// battle-round queries it uses (engine/queries.py). Float for float as analysis.hpp says.
//
// A dice round's odds depend only on its CRT column and starting tokens: they are computed
// once when the library loads (read-only afterwards, so safe on any thread); a location's
// odds chain at most two rounds.
#pragma once

#include "analysis/analysis.hpp"

namespace pk::ai {

// ---- exact odds (combat.py) ----
// round_win_probability: P(the attacker wins a dice round) with strengths >= 1 and
// starting tokens (head start and token tiles included), roll-offs included.
double round_win_probability(int attack, int defence, int att_tokens, int def_tokens);
// An odds input: (attack, defence) per round as odds_inputs gives them (0: side absent).
struct OddsRounds {
  int count = 0;
  int attack[2] = {0, 0}, defence[2] = {0, 0};
};
// battle_win_probability: P(the attacking side wins the final round).
double battle_win_probability(const OddsRounds& rounds, int att_tokens, int def_tokens);

// ---- battle-round queries (queries.py) ----
inline int doubled_city(int unit_type) { return unit_type == HOPLITE ? SPARTA : ATHENS; }
// side_claimants(persian, main, n): the players who score a side; returns their count.
int side_claimants(int persian, int main, int n, int* out);
// A round of location_rounds with expected (double) strengths.
struct RoundX {
  int unit_type, kind;
  double attack, defence;
};
// location_rounds(tile, counts, strengths, first): counts and strengths per side * 2 + type;
// returns the number of rounds written (<= 2).
int location_rounds(int tile, const int* counts, const double* strengths, int first,
                    RoundX* out);
// odds_inputs: expected strengths rounded half-even, a present side at least 1.
OddsRounds odds_inputs(const RoundX* rounds, int count);

// ---- battlefield.py ----
// Reinforcement: expected extra strength by type on each side, and who would be main.
struct Reinforcement {
  double attack[2] = {0.0, 0.0}, defence[2] = {0.0, 0.0};
  int attacker = -1, defender = -1;
};

// Battlefield: expected strengths and counts per (slot, side, type) at
// (slot * 2 + side) * 2 + type, mutable for trial placements; copies are plain copies.
struct Battlefield {
  const View* view;
  const Params* params;
  int n, me;
  double strength[SLOTS * 4];
  int count[SLOTS * 4];
  int main[SLOTS * 2];
  double statue_drop[NUM_CITIES];  // statue VP each player loses per extra defeat (A.2)

  Battlefield(const View& v, const Params& p);
  void place(int player, int klass, int slot, int side);
  void add(int player, int slot, int side, int unit_type, double s, int counters);
  // P(the attack wins), with the expected reinforcement `r` when given.
  double attack_probability(int slot, const Reinforcement* r = nullptr) const;
  // values(slot, reinforce, p_attack) into out[n]; p_attack < 0 means "compute it".
  void values(int slot, const Reinforcement* r, double p_attack, double* out) const;
  double relative(const double* values) const;
  Reinforcement reinforcement(int slot, int my_side) const;
  // _potential: strength by type a player could still send from `cities` to `tile`.
  void potential(int player, int cities, int tile, double* out) const;
};

}  // namespace pk::ai
