// native/analysis/: what one player may know and the models over it, in C++
// (perikles_env/analysis), shared by the feature blocks (env/) and the heuristic (players/);
// it includes only engine/. This header is the table of contents and holds the common part:
// what one player may know (`View`, view.cpp), the personality (`Params`), the statue-track
// outlook shared by both models, and the tie-breaking contract.
//
//   politics.hpp, politics.cpp        the election model (analysis/politics.py)
//   battlefield.hpp, battlefield.cpp  the battle model with the exact odds
//                                     (analysis/battlefield.py, engine/combat.py)
//
// Every function is a port of the Python reference, float for float: the same double
// operations in the same order (the build uses neither fast-math nor FMA contraction), Python's
// round-half-even as std::nearbyint, ties in max() resolved as Python's (the first maximum).
// tests/native/test_league_politics.py, test_league_war.py and test_heuristic_identity.py
// prove the scores identical.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/game.hpp"
#include "engine/generated/params.hpp"  // Params: analysis/params.py HeuristicParams, generated

namespace pk::ai {

using Scores = std::vector<double>;

// analysis/view.py PlayerView: the public state is read from `g` directly (the fields that
// schema.py declares public); of the secrets only `me`'s own special tile (`g.special[me]`)
// and what `military_knowledge` gives him. Code on a View must not read other players'
// specials, pools or face-down strengths (`g.pool`, `g.at`), the decks' order or the RNG.
struct View {
  const Game& g;
  int me, n;
  int controlled;       // information.controlled_cities(g, me)
  bool has_pending;     // a permission request is open; then:
  int pending[4];       // its (city, type, slot, side): the counter's strength stays hidden
  View(const Game& game, int player);

  // my_pool, pool_count, box_count, box_known, unknown_mean: built on the first call (most
  // influence decisions never read it), so that a View costs nothing it does not use.
  const MilitaryKnowledge& k() const {
    if (!k_ready_) {
      g.military_knowledge(me, k_);
      k_ready_ = true;
    }
    return k_;
  }

  int steps_left(int p) const { return g.held2[p] + g.held1[p]; }
  int location(int slot) const { return g.loc_display[slot]; }  // a location tile id (T.loc_*)
  int deck_left() const { return g.influence_deck.n; }
  int loc_deck_left() const { return g.loc_deck.n; }
  int seat_of(int offset) const { return (me + offset) % n; }  // politics.seat_of
  // Strengths, exact where known, else expected (view.py, same additions in the same order).
  double box_strength(int slot, int side, int box, int unit_type) const;
  double side_strength(int slot, int side, int unit_type) const;
  int side_count(int slot, int side, int unit_type) const;
  // side_strength / side_count of every (slot, side, type) at (slot * 2 + side) * 2 + type.
  void side_totals(double* strength, int* count) const;  // SLOTS * 4 each
  int city_count(int slot, int side, int city, int unit_type) const;
  double known_city_strength(int slot, int side, int city, int unit_type) const;
  double pool_strength(int city, int unit_type) const;

 private:
  mutable MilitaryKnowledge k_;
  mutable bool k_ready_ = false;
};

// politics.track_value: statue value after a (possibly fractional) number of defeats.
double track_value(int city, double defeats);
// politics.expected_further_defeats: per city, the defeats still expected this game.
void expected_further_defeats(const View& v, double* out);  // NUM_CITIES
// information.controlled_cities for any player (public: leaders and Persian leaders).
int controlled_cities(const Game& g, int player);

// The tie-breaking contract (agents/tiebreak.py): the caller draws one 64-bit seed per
// decision with more than one legal action; with noise > 0 every score (in order) gets
// noise * a Box-Muller normal from two SplitMix64(seed) draws; the best score's index wins,
// ties (within 1e-9) broken by randrange of the same stream. Changes `scores` (the noise).
int pick_best(Scores& scores, uint64_t seed, double noise);

}  // namespace pk::ai
