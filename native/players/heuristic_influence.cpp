// The heuristic's influence-phase scorers (agents/heuristic/agent.py): setup and Any City
// cubes, tile picks, the influence specials (Perikles, Plague, Alkibiades), proposals and
// Assassin targets, all valued with the election model (politics.hpp).
#include <algorithm>
#include <stdexcept>

#include "players/heuristic.hpp"
#include "analysis/politics.hpp"

namespace pk::ai {
namespace {

// agent.SPECIAL_HOLD: the minimum gain before an influence special is spent, by turn.
double special_hold(int turn) {
  switch (turn) {
    case 1: return 3.0;
    case 2: return 2.0;
    case 3: return 0.3;
    default: throw std::logic_error("special_hold: no such turn");
  }
}

// The gain of each influence-special action (agent._special_gains), a dict in Python:
// `has[i]` says whether legal[i] is a key.
struct Gains {
  double value[NUM_ACTIONS];
  bool has[NUM_ACTIONS];
  bool any = false;
  double best = -1.0;  // max(gains.values(), default=-1.0)

  void set(int i, double g) {
    value[i] = g;
    has[i] = true;
    best = any ? std::max(best, g) : g;
    any = true;
  }
};

struct Cube { int city, seat; };

Cube cube_of(const View& v, int action) {  // agent._cube_of
  int i = action - ALKIBIADES_CUBE;
  return {i / MAXP, v.seat_of(i % MAXP)};
}

// agent._alkibiades_score: both cubes to `dest`; false where the move is impossible.
bool alkibiades_score(const View& v, const PoliticalModel& m, Cube first, Cube second, int dest,
                      double* out) {
  if (dest == first.city || dest == second.city) return false;
  int cubes[NCUBES];
  std::copy(v.g.cubes, v.g.cubes + NCUBES, cubes);
  for (Cube c : {first, second}) {
    if (cubes[c.city * MAXP + c.seat] <= 0) return false;
    cubes[c.city * MAXP + c.seat] -= 1;
    cubes[dest * MAXP + c.seat] += 1;
  }
  *out = m.score(cubes, v.g.cand);
  return true;
}

// agent._alkibiades_first over the legal first cubes legal[idx[0..count)]: the best score
// reachable with each, over a pruned search; sets gains (value - now - hold) on legal indices.
void alkibiades_first(const View& v, const PoliticalModel& m, const Actions& legal,
                      const int* idx, int count, double now, double hold, Gains& gains) {
  Cube cubes[NUM_CITIES * MAXP];
  double single[NUM_CITIES * MAXP];
  Layout base = Layout::of(v);
  for (int i = 0; i < count; ++i) {
    cubes[i] = cube_of(v, legal[idx[i]]);
    Layout trial = base;
    trial.remove(cubes[i].seat, cubes[i].city);
    single[i] = trial.score(m);
  }
  // sorted(..., key=lambda i: -single[i]): stable, best single score first.
  auto better = [&](int a, int b) { return single[a] > single[b]; };
  int mine[NUM_CITIES * MAXP], n_mine = 0, theirs[NUM_CITIES * MAXP];
  for (int i = 0; i < count; ++i) {
    if (cubes[i].seat == v.me) mine[n_mine++] = i;
    theirs[i] = i;
  }
  std::stable_sort(mine, mine + n_mine, better);
  std::stable_sort(theirs, theirs + count, better);
  bool kept[NUM_CITIES * MAXP] = {};
  for (int i = 0; i < std::min(n_mine, 3); ++i) kept[mine[i]] = true;
  for (int i = 0; i < std::min(count, 5); ++i) kept[theirs[i]] = true;
  int keep[8], n_keep = 0;  // sorted(set(mine) | set(theirs))
  for (int i = 0; i < count; ++i)
    if (kept[i]) keep[n_keep++] = i;
  for (int a = 0; a < n_keep; ++a) {
    bool found = false;
    double best = 0.0;
    for (int b = 0; b < n_keep; ++b)
      for (int dest = 0; dest < NUM_CITIES; ++dest) {
        double s;
        if (alkibiades_score(v, m, cubes[keep[a]], cubes[keep[b]], dest, &s) &&
            (!found || s > best)) {
          best = s;
          found = true;
        }
      }
    if (found) gains.set(idx[keep[a]], best - now - hold);
  }
}

// agent._special_gains: the gain of each influence-special action, net of holding it.
void special_gains(const View& v, const PoliticalModel& m, const Actions& legal, Gains& gains) {
  double now = m.score(v.g.cubes, v.g.cand);
  double hold = special_hold(v.g.turn);
  int n_legal = static_cast<int>(legal.size());
  int alki[NUM_CITIES * MAXP], n_alki = 0;
  for (int i = 0; i < n_legal; ++i) {
    int a = legal[i];
    gains.has[i] = false;
    if (a == PLAY_PERIKLES) {
      Layout layout = Layout::of(v);
      layout.add(v.me, ATHENS, 2);
      gains.set(i, layout.score(m) - now);  // always worth it (D.1)
    } else if (a >= PLAY_PLAGUE && a < PLAY_PLAGUE + NUM_CITIES) {
      Layout layout = Layout::of(v);
      layout.plague(a - PLAY_PLAGUE, v.n);
      gains.set(i, layout.score(m) - now - hold);
    } else if (a >= ALKIBIADES_CUBE && a < ALKIBIADES_DEST) {
      alki[n_alki++] = i;
    }
  }
  if (n_alki) alkibiades_first(v, m, legal, alki, n_alki, now, hold, gains);
}

// agent._cube_scorer: one own cube in city `a - first` (setup, Any City tile).
void score_cube(const View& v, const PoliticalModel& m, const Actions& legal, int first,
                Scores& out) {
  for (size_t i = 0; i < legal.size(); ++i) {
    Layout layout = Layout::of(v);
    layout.add(v.me, legal[i] - first, 1);
    out[i] = layout.score(m);
  }
}

void score_pick(const View& v, const PoliticalModel& m, const Actions& legal, Scores& out) {
  Gains gains;
  special_gains(v, m, legal, gains);
  double play = gains.best;
  for (size_t i = 0; i < legal.size(); ++i) {
    int a = legal[i];
    if (a >= TAKE_TILE && a < TAKE_TILE + DISPLAY) out[i] = tile_value(m, v, a - TAKE_TILE);
    else if (gains.has[i] && play > 0) out[i] = 1e6 + gains.value[i];
    else out[i] = -1e6;
  }
}

void score_post_pick(const View& v, const PoliticalModel& m, const Actions& legal,
                     Scores& out) {
  Gains gains;
  special_gains(v, m, legal, gains);
  for (size_t i = 0; i < legal.size(); ++i)
    out[i] = legal[i] == END_PICK ? 0.0 : gains.has[i] ? gains.value[i] : -1e6;
}

void score_alki_cube(const View& v, const PoliticalModel& m, const Actions& legal,
                     Scores& out) {
  Cube first{v.g.alki[0], v.g.alki[1]};
  for (size_t i = 0; i < legal.size(); ++i) {
    Cube second = cube_of(v, legal[i]);
    bool found = false;
    double best = -1e9;
    for (int dest = 0; dest < NUM_CITIES; ++dest) {
      double s;
      if (alkibiades_score(v, m, first, second, dest, &s) && (!found || s > best)) {
        best = s;
        found = true;
      }
    }
    out[i] = best;
  }
}

void score_alki_dest(const View& v, const PoliticalModel& m, const Actions& legal,
                     Scores& out) {
  Cube first{v.g.alki[0], v.g.alki[1]}, second{v.g.alki[3], v.g.alki[4]};
  for (size_t i = 0; i < legal.size(); ++i) {
    double s;
    out[i] = alkibiades_score(v, m, first, second, legal[i] - ALKIBIADES_DEST, &s) ? s : -1e9;
  }
}

void score_propose(const View& v, const PoliticalModel& m, const Actions& legal, Scores& out) {
  for (size_t i = 0; i < legal.size(); ++i) {
    int k = legal[i] - PROPOSE;
    Layout layout = Layout::of(v);
    layout.propose(k / MAXP, v.seat_of(k % MAXP));
    out[i] = layout.score(m);
  }
}

void score_assassin(const View& v, const PoliticalModel& m, const Actions& legal, Scores& out) {
  for (size_t i = 0; i < legal.size(); ++i) {
    int k = legal[i] - ASSASSINATE;
    int city = k / ASSASSIN_TARGETS, target = k % ASSASSIN_TARGETS;
    int victim = target < MAXP ? v.seat_of(target)
                               : v.g.cand[city * 2 + target - ASSASSIN_ALPHA];
    Layout layout = Layout::of(v);
    layout.assassinate(city, target, victim);
    out[i] = layout.score(m);
  }
}

}  // namespace

void score_influence(const View& v, const Params& p, const Actions& legal, Scores& out) {
  PoliticalModel m(v, p);
  switch (v.g.phase) {
    case Phase::SETUP_PLACE: return score_cube(v, m, legal, SETUP_CUBE, out);
    case Phase::ANY_CITY: return score_cube(v, m, legal, ANY_CITY, out);
    case Phase::INFLUENCE_PICK: return score_pick(v, m, legal, out);
    case Phase::POST_PICK_SPECIAL: return score_post_pick(v, m, legal, out);
    case Phase::ALKIBIADES_CUBE: return score_alki_cube(v, m, legal, out);
    case Phase::ALKIBIADES_DEST: return score_alki_dest(v, m, legal, out);
    case Phase::CANDIDATE_TILE:
    case Phase::PROPOSE: return score_propose(v, m, legal, out);
    case Phase::ASSASSIN_TILE: return score_assassin(v, m, legal, out);
    default: throw std::logic_error("score_influence: not an influence phase");
  }
}

}  // namespace pk::ai
