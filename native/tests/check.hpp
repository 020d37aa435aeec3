// What every part of perikles_selftest shares: failures, the per-folder tally, field-wise
// equality and the schema ranges of a state, the invariants of one state and of a finished
// game. Each folder's checks are in native/tests/<folder>_test.cpp; main.cpp runs them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "engine/game.hpp"

namespace pk::selftest {

using pk::Actions;
using pk::Game;
using pk::Phase;

constexpr int MAX_DECISIONS = 1000;  // every game ends well before this

struct Failure {
  std::string what;
};

[[noreturn]] inline void fail(const std::string& what) { throw Failure{what}; }

inline void require(bool ok, const char* what) {  // no string built unless it fails
  if (!ok) fail(what);
}

// Passed and failed cases of one folder's checks.
struct Tally {
  const char* folder;
  int passed = 0, failed = 0;
  int64_t decisions = 0;  // decisions played by the folder's checks (reported)

  // Runs one case: counts it passed, or prints "FAIL <folder> <name>: why" and counts it failed.
  template <class Fn>
  void run(const std::string& name, Fn fn) {
    try {
      fn();
      ++passed;
    } catch (const Failure& f) {
      std::printf("FAIL %s %s: %s\n", folder, name.c_str(), f.what.c_str());
      ++failed;
    } catch (const std::exception& e) {
      std::printf("FAIL %s %s: exception: %s\n", folder, name.c_str(), e.what());
      ++failed;
    }
  }
};

// ---- field-wise equality and ranges, over the generated field list ----
inline bool same(int a, int b) { return a == b; }
inline bool same(bool a, bool b) { return a == b; }
inline bool same(Phase a, Phase b) { return a == b; }
inline bool same(uint64_t a, uint64_t b) { return a == b; }
inline bool same(const std::vector<int>& a, const std::vector<int>& b) { return a == b; }
template <size_t N>
bool same(const int (&a)[N], const int (&b)[N]) {
  return std::equal(a, a + N, b);
}
template <int N>
bool same(const pk::SVec<N>& a, const pk::SVec<N>& b) {
  return a.n == b.n && std::equal(a.v, a.v + a.n, b.v);
}

// The first field in which two states differ (events included), or "" when equal.
inline std::string difference(const Game& a, const Game& b) {
#define PK_SAME(name, member, kind, size, lo, hi) \
  if (!same(a.member, b.member)) return #name;
  PK_STATE_FIELDS(PK_SAME)
#undef PK_SAME
  if (a.ev_count != b.ev_count || a.ev != b.ev) return "events";
  return "";
}

inline bool in(long long v, long long lo, long long hi) { return v >= lo && v <= hi; }
inline bool in_range(int v, long long lo, long long hi) { return in(v, lo, hi); }
inline bool in_range(bool v, long long lo, long long hi) { return in(v, lo, hi); }
inline bool in_range(Phase v, long long lo, long long hi) { return in(static_cast<int>(v), lo, hi); }
inline bool in_range(uint64_t, long long, long long) { return true; }  // any 64-bit value
inline bool in_range(const std::vector<int>& v, long long lo, long long hi) {
  return std::all_of(v.begin(), v.end(), [&](int x) { return in(x, lo, hi); });
}
template <size_t N>
bool in_range(const int (&v)[N], long long lo, long long hi) {
  return std::all_of(v, v + N, [&](int x) { return in(x, lo, hi); });
}
template <int N>
bool in_range(const pk::SVec<N>& v, long long lo, long long hi) {
  return v.n >= 0 && v.n <= N && std::all_of(v.v, v.v + v.n, [&](int x) { return in(x, lo, hi); });
}

// ---- the invariants of one state ----
inline void check_state(const Game& g, const Actions& legal) {
#define PK_RANGE(name, member, kind, size, lo, hi) \
  require(in_range(g.member, (long long)(lo), (long long)(hi)), #name ": value out of its schema range");
  PK_STATE_FIELDS(PK_RANGE)
#undef PK_RANGE
  if (const char* error = g.load_error()) fail(std::string("load_error: ") + error);
  // B.12: main-area cubes + candidate cubes + supply = 30 per player; no cubes past n.
  for (int p = 0; p < pk::MAXP; ++p) {
    int total = g.supply[p];
    for (int c = 0; c < pk::NUM_CITIES; ++c) total += g.cubes[c * 5 + p];
    for (int s : g.cand) total += s == p;
    require(total == (p < g.n ? pk::CUBES_PER_PLAYER : 0), "cubes + candidates + supply != 30");
  }
  // Counters: stack + pool + dead + on the map = the initial count of every class.
  for (int k = 0; k < pk::NC; ++k) {
    int total = g.stack[k] + g.pool[k] + g.dead[k];
    for (int box = 0; box < pk::NBOX; ++box) total += g.at[box * pk::NC + k];
    if (total != pk::T.initial[k]) fail("counters of class " + std::to_string(k) + " not conserved");
  }
  if (g.phase == Phase::GAME_OVER) {
    require(g.current == -1, "current seat after the game ended");
    require(legal.empty(), "legal actions after the game ended");
    return;
  }
  require(g.current >= 0 && g.current < g.n, "current seat out of range");
  require(!legal.empty(), "no legal action before the game ended");
  for (size_t i = 0; i < legal.size(); ++i) {
    require(legal[i] >= 0 && legal[i] < pk::NUM_ACTIONS, "legal action id out of range");
    require(i == 0 || legal[i - 1] < legal[i], "legal actions not sorted and unique");
  }
}

inline void check_final(const Game& g) {
  require(g.phase == Phase::GAME_OVER, "the game did not end");
  require(g.turn >= 1 && g.turn <= pk::NUM_TURNS, "final turn out of range");
  int scores[pk::MAXP], winners[pk::MAXP];
  g.scores(scores);
  int k = g.winners(winners);
  require(k >= 1 && k <= g.n, "winner count out of range");
  int best = *std::max_element(scores, scores + g.n);
  for (int i = 0; i < k; ++i) require(scores[winners[i]] == best, "a winner without the best score");
}

// Plays `g` to the end with policy legal[policy.randrange(len)], checking every state.
// `on_state(g, legal)` runs after each state's check (the final state's included),
// `on_decision(g, decision)` before each decision (numbered from 1).
template <class OnState, class OnDecision>
int64_t play_checked(Game& g, pk::Rng& policy, OnState on_state, OnDecision on_decision) {
  Actions legal;
  int64_t decisions = 0;
  for (;;) {
    g.legal_actions(legal);
    check_state(g, legal);
    on_state(g, legal);
    if (g.phase == Phase::GAME_OVER) break;
    require(++decisions <= MAX_DECISIONS, "more than 1000 decisions");
    on_decision(g, decisions);
    uint64_t before = g.decisions;
    g.apply_action(legal[policy.randrange(static_cast<int>(legal.size()))]);
    require(g.decisions == before + 1, "decision counter did not advance by one");
  }
  check_final(g);
  return decisions;
}

// Plays `g` uniformly at random (legal[policy.randrange(len)]) for `decisions` decisions or
// to the end, unchecked: a mid-game position for a folder's checks.
inline void advance_random(Game& g, pk::Rng& policy, int decisions) {
  Actions legal;
  for (int i = 0; i < decisions && g.phase != Phase::GAME_OVER; ++i) {
    g.legal_actions(legal);
    g.apply_action(legal[policy.randrange(static_cast<int>(legal.size()))]);
  }
}

// The checks of each folder (native/tests/<folder>_test.cpp).
void engine_tests(int games, uint64_t seed0, Tally& tally);
void analysis_tests(Tally& tally);
void env_tests(int games, uint64_t seed0, Tally& tally);
void players_tests(Tally& tally);

}  // namespace pk::selftest
