// perikles_selftest: the C++ core checked without Python. Plays seeded uniform random games
// (3, 4 and 5 players) and checks invariants after every decision; replays each game to
// check determinism, clones and determinizes mid-game, and steps a vector env with 1 and 2
// threads. Built by CMake with -DPERIKLES_SELFTEST=ON; tests/native/test_cpp_selftest.py
// builds and runs it.
//
//   perikles_selftest [games per player count = 300] [first seed = 1]
//
// Prints one line per failure and a summary "N passed, M failed"; exits 1 on any failure.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "env/encoder.hpp"
#include "engine/game.hpp"
#include "env/vector_env.hpp"

namespace {

using pk::Actions;
using pk::Game;
using pk::Phase;

constexpr int MAX_DECISIONS = 1000;  // every game ends well before this

struct Failure {
  std::string what;
};

[[noreturn]] void fail(const std::string& what) { throw Failure{what}; }

void require(bool ok, const char* what) {  // no string built unless it fails
  if (!ok) fail(what);
}

// ---- field-wise equality and ranges, over the generated field list ----
bool same(int a, int b) { return a == b; }
bool same(bool a, bool b) { return a == b; }
bool same(Phase a, Phase b) { return a == b; }
bool same(uint64_t a, uint64_t b) { return a == b; }
bool same(const std::vector<int>& a, const std::vector<int>& b) { return a == b; }
template <size_t N>
bool same(const int (&a)[N], const int (&b)[N]) {
  return std::equal(a, a + N, b);
}
template <int N>
bool same(const pk::SVec<N>& a, const pk::SVec<N>& b) {
  return a.n == b.n && std::equal(a.v, a.v + a.n, b.v);
}

// The first field in which two states differ (events included), or "" when equal.
std::string difference(const Game& a, const Game& b) {
#define PK_SAME(name, member, kind, size, lo, hi) \
  if (!same(a.member, b.member)) return #name;
  PK_STATE_FIELDS(PK_SAME)
#undef PK_SAME
  if (a.ev_count != b.ev_count || a.ev != b.ev) return "events";
  return "";
}

bool in(long long v, long long lo, long long hi) { return v >= lo && v <= hi; }
bool in_range(int v, long long lo, long long hi) { return in(v, lo, hi); }
bool in_range(bool v, long long lo, long long hi) { return in(v, lo, hi); }
bool in_range(Phase v, long long lo, long long hi) { return in(static_cast<int>(v), lo, hi); }
bool in_range(uint64_t, long long, long long) { return true; }  // any 64-bit value
bool in_range(const std::vector<int>& v, long long lo, long long hi) {
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
void check_state(const Game& g, const Actions& legal) {
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

// The observation and mask of the acting seat: finite, non-negative, mask == legal list.
void check_encoding(const Game& g, const Actions& legal, std::vector<float>& obs,
                    std::vector<int8_t>& mask, Actions& scratch) {
  if (g.phase == Phase::GAME_OVER) return;
  pk::enc::encode(g, g.current, true, obs.data());
  for (float v : obs) require(std::isfinite(v) && v >= 0.0f, "observation value not finite or negative");
  pk::enc::legal_mask(g, scratch, mask.data());
  int count = 0;
  for (int a = 0; a < pk::NUM_ACTIONS; ++a) count += mask[a];
  require(count == static_cast<int>(legal.size()), "legal mask differs from the legal actions");
  for (int a : legal) require(mask[a] == 1, "legal mask differs from the legal actions");
}

void check_final(const Game& g) {
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
// `on_decision(g, decision)` runs before each decision.
template <class OnDecision>
int64_t play_checked(Game& g, pk::Rng& policy, OnDecision on_decision) {
  Actions legal, scratch;
  std::vector<float> obs(pk::enc::ORACLE_SIZE);
  std::vector<int8_t> mask(pk::NUM_ACTIONS);
  int64_t decisions = 0;
  for (;;) {
    g.legal_actions(legal);
    check_state(g, legal);
    check_encoding(g, legal, obs, mask, scratch);
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

// Determinize a copy for the acting seat: still a valid state, the same legal actions for
// that seat (it sees the same), the same public fields; `play`: also play it to the end.
void check_determinize(const Game& g, uint64_t seed, bool play) {
  Game d = g;
  d.determinize(g.current, seed);
  Actions a, b;
  g.legal_actions(a);
  d.legal_actions(b);
  check_state(d, b);
  require(a == b, "determinize changed the acting seat's legal actions");
  require(d.phase == g.phase && d.current == g.current && d.decisions == g.decisions,
          "determinize changed the phase, seat or decision count");
  require(same(d.cubes, g.cubes) && same(d.cand, g.cand) && same(d.display, g.display) &&
              same(d.loc_display, g.loc_display) && same(d.stack, g.stack) && same(d.dead, g.dead) &&
              d.special[g.current] == g.special[g.current],
          "determinize changed a public field or the seat's own special");
  if (play) {
    pk::Rng policy{seed ^ 0xD1CEULL};
    play_checked(d, policy, [](const Game&, int64_t) {});
  }
}

struct Totals {
  int passed = 0, failed = 0;
  int64_t decisions = 0;
};

// One seeded game with every check; throws Failure.
int64_t run_game(int n, uint64_t seed) {
  // 1. the game, recorded, checked after every decision; a clone and a determinization
  //    mid-game.
  Game g;
  g.init_new(n, true, seed);
  pk::Rng policy{seed};
  int64_t clone_at = 20 + static_cast<int64_t>(seed % 150);
  Game clone, clone_before;
  pk::Rng clone_policy;
  bool cloned = false, played_determinized = false;
  int64_t decisions = play_checked(g, policy, [&](const Game& now, int64_t decision) {
    if (decision == clone_at) {
      clone = now;
      clone_before = now;
      clone_policy = policy;
      cloned = true;
    }
    if (decision % 25 == 0) {
      check_determinize(now, seed * 1000 + static_cast<uint64_t>(decision), !played_determinized);
      played_determinized = true;
    }
  });

  // 2. determinism: the same seed and policy give the same final state and events.
  Game replay;
  replay.init_new(n, true, seed);
  pk::Rng replay_policy{seed};
  Actions legal;
  while (replay.phase != Phase::GAME_OVER) {
    replay.legal_actions(legal);
    replay.apply_action(legal[replay_policy.randrange(static_cast<int>(legal.size()))]);
  }
  std::string diff = difference(g, replay);
  if (!diff.empty()) fail("replaying the seed differs in " + diff);

  // 3. Game::random_playout (unrecorded) plays the same game.
  Game quiet;
  quiet.init_new(n, false, seed);
  Actions scratch;
  int64_t count = quiet.random_playout(seed, INT64_MAX, scratch);
  require(count == decisions, "random_playout made a different number of decisions");
  Game g_quiet = g;
  g_quiet.record = false;
  g_quiet.ev.clear();
  g_quiet.ev_count = 0;
  diff = difference(quiet, g_quiet);
  if (!diff.empty()) fail("random_playout differs in " + diff);
  Game capped;
  capped.init_new(n, false, seed);
  require(capped.random_playout(seed, 7, scratch) == 7 && capped.decisions == 7,
          "random_playout ignored max_decisions");

  // 4. clone independence: the original playing on left the clone untouched, and the clone
  //    played on with the same policy ends exactly as the original did.
  if (cloned) {
    diff = difference(clone, clone_before);
    if (!diff.empty()) fail("a clone changed when the original played on: " + diff);
    while (clone.phase != Phase::GAME_OVER) {
      clone.legal_actions(legal);
      clone.apply_action(legal[clone_policy.randrange(static_cast<int>(legal.size()))]);
    }
    diff = difference(clone, g);
    if (!diff.empty()) fail("a clone played on differs from the original in " + diff);
  }
  return decisions;
}

// The vector env's league with 1 and 2 threads: the same rows (feature blocks included), and
// every game a valid state after the native players' moves.
void run_vector_env(Totals& totals) {
  constexpr int N = 6, STEPS = 400;
  struct Rows {
    std::vector<int32_t> current, scores, final_scores, players, decisions, controller;
    std::vector<float> obs, rewards;
    std::vector<int8_t> mask;
    std::unique_ptr<bool[]> terminated, truncated;
    pk::VecBuffers buffers(int obs_size) {
      current.assign(N, 0);
      scores.assign(N * pk::MAXP, 0);
      final_scores.assign(N * pk::MAXP, 0);
      players.assign(N, 0);
      decisions.assign(N, 0);
      controller.assign(N, 0);
      obs.assign(static_cast<size_t>(N) * obs_size, 0.0f);
      rewards.assign(N * pk::MAXP, 0.0f);
      mask.assign(static_cast<size_t>(N) * pk::NUM_ACTIONS, 0);
      terminated.reset(new bool[N]());
      truncated.reset(new bool[N]());
      return {current.data(), obs.data(), mask.data(), rewards.data(), terminated.get(),
              truncated.get(), scores.data(), final_scores.data(), players.data(), decisions.data(),
              controller.data()};
    }
  };
  try {
    uint64_t seeds[N];
    for (int i = 0; i < N; ++i) seeds[i] = 1000 + i;
    // The league: random, the default heuristic and a noisy warlike one, the feature blocks.
    std::vector<pk::Opponent> league = {{pk::Opponent::RANDOM, {}},
                                        {pk::Opponent::HEURISTIC, {}},
                                        {pk::Opponent::HEURISTIC, {1.5, 1.0, 0.6, 0.2, 0.3}}};
    std::vector<int> features = {pk::FEATURE_BATTLE, pk::FEATURE_ACTIONS};
    pk::VectorEnv one(N, {3, 4, 5}, false, features, league, {1.0, 2.0, 1.0}, 0.2, -1, 1, 400);
    pk::VectorEnv two(N, {3, 4, 5}, false, features, league, {1.0, 2.0, 1.0}, 0.2, -1, 2, 400);
    Rows a, b;
    pk::VecBuffers ba = a.buffers(one.obs_size()), bb = b.buffers(two.obs_size());
    one.reset(seeds, ba);
    two.reset(seeds, bb);
    std::vector<int32_t> actions(N), same_actions(N);
    int64_t episodes = 0;
    for (int step = 0; step < STEPS; ++step) {
      one.random_actions(actions.data());
      two.random_actions(same_actions.data());
      require(actions == same_actions, "vector env: 1 and 2 threads draw different actions");
      require(one.first_illegal(actions.data()) < 0, "vector env: a random action is illegal");
      one.step(actions.data(), ba);
      two.step(actions.data(), bb);
      require(a.current == b.current && a.obs == b.obs && a.mask == b.mask && a.rewards == b.rewards &&
                  a.scores == b.scores && a.final_scores == b.final_scores && a.decisions == b.decisions &&
                  std::equal(a.terminated.get(), a.terminated.get() + N, b.terminated.get()),
              "vector env: 1 and 2 threads give different rows");
      for (int i = 0; i < N; ++i) {
        Actions legal;
        one.game(i).legal_actions(legal);
        check_state(one.game(i), legal);
        episodes += a.terminated[i] || a.truncated[i];
      }
    }
    require(episodes > 0, "vector env: no game ended");
    ++totals.passed;
  } catch (const Failure& f) {
    std::printf("FAIL vector env: %s\n", f.what.c_str());
    ++totals.failed;
  } catch (const std::exception& e) {
    std::printf("FAIL vector env: exception: %s\n", e.what());
    ++totals.failed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int games = argc > 1 ? std::atoi(argv[1]) : 300;
  uint64_t seed0 = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  if (games < 1) {
    std::fprintf(stderr, "usage: perikles_selftest [games per player count] [first seed]\n");
    return 2;
  }
  Totals totals;
  for (int n = pk::MINP; n <= pk::MAXP; ++n)
    for (int i = 0; i < games; ++i) {
      uint64_t seed = seed0 + static_cast<uint64_t>(i);
      try {
        totals.decisions += run_game(n, seed);
        ++totals.passed;
      } catch (const Failure& f) {
        std::printf("FAIL %d players, seed %llu: %s\n", n, static_cast<unsigned long long>(seed),
                    f.what.c_str());
        ++totals.failed;
      } catch (const std::exception& e) {
        std::printf("FAIL %d players, seed %llu: exception: %s\n", n,
                    static_cast<unsigned long long>(seed), e.what());
        ++totals.failed;
      }
    }
  run_vector_env(totals);
  std::printf("perikles_selftest: %d games x 3 player counts (%lld decisions) + vector env: "
              "%d passed, %d failed\n",
              games, static_cast<long long>(totals.decisions), totals.passed, totals.failed);
  return totals.failed ? 1 : 0;
}
