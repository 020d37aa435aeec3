// The heuristic's election arithmetic in C++ (perikles_env/analysis/politics.py, the readable
// reference): project who leads each city and what it costs (B.5, B.6), value a cube layout
// for one player, and try an influence action on a copy of the layout. Float for float as
// the Python (analysis.hpp); tests/native/test_league_politics.py proves the scores equal.
//
// The rule effects a Layout tries (seat or unseat a candidate, Plague, Assassin targets,
// proposals, the election) are small pure functions over (cubes, cand, supply) arrays, the
// twins of engine/queries.py: the Game's own queries read the game's arrays, a trial needs
// them on a copy.
#pragma once

#include "analysis/analysis.hpp"

namespace pk::ai {

constexpr int NCAND = NUM_CITIES * 2;  // candidate slots: city * 2 + (alpha 0, beta 1)
constexpr int NCUBES = NUM_CITIES * MAXP;  // main-area cubes: city * MAXP + player
constexpr int ASSASSIN_ALPHA = MAXP, ASSASSIN_BETA = MAXP + 1, ASSASSIN_TARGETS = MAXP + 2;
constexpr double FORCE_WEIGHT = 0.06;  // VP of leadership per point of military strength

// ---- rule queries on plain arrays (engine/queries.py) ----
// queries.plague_losses: cubes each of the n players loses in `city` (D.2, E19).
void plague_losses(const int* cubes, const int* cand, int city, int n, int* out);
// queries.election_outcome: the leader (-1: none), *loss the cubes he returns (B.6, E36).
int election_outcome(const int* cubes, const int* cand, int city, int* loss);
// queries.seat_candidate / unseat_candidate (B.5, E16): the slot / the victim.
int seat_candidate(int* cubes, int* cand, int city, int nominee);
int unseat_candidate(int* cand, int* supply, int slot);

struct Proposal { int city, nominee; };
struct Removal { int city, target, victim; };  // target: a seat, ASSASSIN_ALPHA or _BETA

// ---- the statue outlook and the election model ----
// politics.expected_statue_value: `further` is expected_further_defeats (computed if null);
// `defeats` < 0 means the city's current count.
double expected_statue_value(const View& v, int city, int defeats = -1,
                             const double* further = nullptr);
// politics.leadership_values: VP of leading each city this turn (statue + military use).
void leadership_values(const View& v, const Params& p, double* out);  // NUM_CITIES

struct Outcome { int leader; double probability; int loss; };

// politics.PoliticalModel: scores cube layouts for one player.
struct PoliticalModel {
  int n, me;
  double lead[NUM_CITIES];
  double spite;

  PoliticalModel(const View& v, const Params& p);
  // The (leader, probability, cubes he loses) outcomes of city c's election; their count.
  int project(const int* cubes, const int* cand, int c, Outcome* out) const;  // <= MAXP
  void gains(const int* cubes, const int* cand, double* out) const;  // n entries
  // gain[me] - spite * mean(gain[others]); `extra` (n entries) is added to the gains first.
  double score(const int* cubes, const int* cand, const double* extra = nullptr) const;
};

// politics.Layout: a copy of the cube layout to try an option on (plain data, no heap).
struct Layout {
  int cubes[NCUBES], cand[NCAND], supply[MAXP];

  static Layout of(const View& v);
  void add(int player, int city, int count);  // from the supply, as many as left (B.12)
  void remove(int player, int city, int count = 1);
  void propose(int city, int nominee) { seat_candidate(cubes, cand, city, nominee); }
  void assassinate(int city, int target, int victim);
  void plague(int city, int n);
  // Legal (city, nominee) proposals of p, sorted (B.5, E12); their count (<= NUM_CITIES * n).
  int proposals(int p, int n, Proposal* out) const;
  // Legal Assassin targets with their victims (B.4, E16); their count (<= NUM_CITIES * 7).
  int removals(int n, Removal* out) const;
  double score(const PoliticalModel& m) const { return m.score(cubes, cand); }
};

// politics.best_follow_up: the best score after the action a just-taken tile of `kind`
// grants (A.5), or the plain score.
double best_follow_up(const PoliticalModel& m, const Layout& layout, int kind, int me);
// politics.tile_value: the score after taking the display tile in `slot` and using it well.
double tile_value(const PoliticalModel& m, const View& v, int slot);

inline int offset_of(const View& v, int player) { return ((player - v.me) % v.n + v.n) % v.n; }
inline int seat_of(const View& v, int offset) { return (v.me + offset) % v.n; }

}  // namespace pk::ai
