// The players' self-test (native/players/): the heuristic (every personality kind) plays
// seeded games to the end with legal, seed-determined decisions, and its playout is the same
// game as deciding seat by seat; the network-guided search, fed a fixed evaluator, returns a
// legal action with consistent visit counts, the same for the same seeds.
#include <cmath>
#include <memory>
#include <numeric>

#include "env/features.hpp"
#include "players/players.hpp"
#include "tests/check.hpp"

namespace pk::selftest {
namespace {

const ai::Params PERSONALITIES[] = {{}, {1.5, 1.0, 0.6, 0.2, 0.3}, {0.2, 2.0, 1.5, 1.0, 0.0}};

// Every seat decides with ai::decide, its seed the next draw of SplitMix64(seed) when more than
// one action is legal; returns the final game (checked after every decision).
Game heuristic_game(int n, uint64_t seed, const ai::Params& p, int64_t& decisions) {
  Game g;
  g.init_new(n, true, seed);
  Rng stream{seed};
  Actions legal, scratch;
  ai::Scores scores;
  for (;;) {
    g.legal_actions(legal);
    check_state(g, legal);
    if (g.phase == Phase::GAME_OVER) break;
    require(++decisions <= 10 * MAX_DECISIONS, "a heuristic game without an end");
    uint64_t draw = legal.size() > 1 ? stream.next64() : 0;
    int a = ai::decide(g, g.current, p, draw, scratch, scores);
    require(std::find(legal.begin(), legal.end(), a) != legal.end(), "the heuristic chose an illegal action");
    g.apply_action(a);
  }
  check_final(g);
  return g;
}

int64_t check_heuristic(int n, uint64_t seed, const ai::Params& p) {
  int64_t decisions = 0;
  Game first = heuristic_game(n, seed, p, decisions);
  int64_t again = 0;
  std::string diff = difference(first, heuristic_game(n, seed, p, again));
  if (!diff.empty()) fail("the heuristic's game differs for the same seed in " + diff);
  Game played;
  played.init_new(n, true, seed);
  Actions legal;
  ai::Scores scores;
  ai::playout(played, p, seed, -1, legal, scores);
  diff = difference(first, played);
  if (!diff.empty()) fail("ai::playout differs from deciding seat by seat in " + diff);
  return decisions;
}

struct SearchRun {
  std::vector<int> actions, sims;
  std::vector<std::vector<int32_t>> visits;
};

// A fixed evaluator: logits favour low action ids a little, values favour the acting seat.
SearchRun run_search(const std::vector<Game>& roots, const search::Params& params, uint64_t seed0) {
  search::Search s(params);
  std::vector<const Game*> pointers;
  std::vector<int> players;
  std::vector<uint64_t> seeds;
  for (size_t i = 0; i < roots.size(); ++i) {
    pointers.push_back(&roots[i]);
    players.push_back(roots[i].current);
    seeds.push_back(seed0 + i);
  }
  s.start(pointers, players, seeds);
  constexpr int ROWS = 8;
  std::vector<float> obs(static_cast<size_t>(ROWS) * s.obs_size());
  std::unique_ptr<bool[]> mask(new bool[static_cast<size_t>(ROWS) * NUM_ACTIONS]);
  std::vector<float> logits(static_cast<size_t>(ROWS) * NUM_ACTIONS), values(static_cast<size_t>(ROWS) * MAXP);
  for (int a = 0; a < NUM_ACTIONS; ++a)
    for (int r = 0; r < ROWS; ++r) logits[r * NUM_ACTIONS + a] = -0.001f * a;
  for (int r = 0; r < ROWS; ++r)
    for (int k = 0; k < MAXP; ++k) values[r * MAXP + k] = k == 0 ? 0.5f : -0.1f;
  int rounds = 0;
  for (int n; (n = s.collect({obs.data(), mask.get(), ROWS}));) {
    require(++rounds <= 100000, "the search does not finish");
    for (int r = 0; r < n; ++r) {
      int legal = 0;
      for (int a = 0; a < NUM_ACTIONS; ++a) legal += mask[r * NUM_ACTIONS + a];
      require(legal >= 1, "a leaf without a legal action");
      for (int j = 0; j < s.obs_size(); ++j)
        require(std::isfinite(obs[static_cast<size_t>(r) * s.obs_size() + j]), "a leaf's observation not finite");
    }
    s.feed(n, logits.data(), values.data(), MAXP);
  }
  SearchRun run;
  std::vector<float> policy(NUM_ACTIONS), prior(NUM_ACTIONS), vals(MAXP);
  std::vector<int32_t> visits(NUM_ACTIONS);
  for (size_t i = 0; i < roots.size(); ++i) {
    require(s.finished(static_cast<int>(i)), "a search did not finish");
    search::Result r{0, 0, policy.data(), visits.data(), prior.data(), vals.data()};
    s.result(static_cast<int>(i), r);
    Actions legal;
    roots[i].legal_actions(legal);
    require(std::find(legal.begin(), legal.end(), r.action) != legal.end(), "the search chose an illegal action");
    require(r.sims == params.sims, "the search completed a different number of simulations");
    int64_t total = std::accumulate(visits.begin(), visits.end(), int64_t{0});
    require(total == r.sims, "the root's visits do not add up to the simulations");
    double mass = 0.0;
    for (int a = 0; a < NUM_ACTIONS; ++a) {
      bool is_legal = std::find(legal.begin(), legal.end(), a) != legal.end();
      require(is_legal || (policy[a] == 0.0f && visits[a] == 0), "policy or visits on an illegal action");
      mass += policy[a];
    }
    require(std::abs(mass - 1.0) < 1e-4, "the improved policy does not sum to 1");
    run.actions.push_back(r.action);
    run.sims.push_back(r.sims);
    run.visits.push_back(visits);
  }
  return run;
}

// Roots with more than one legal action, from seeded random games of 3, 4 and 5 players.
std::vector<Game> search_roots() {
  std::vector<Game> roots;
  for (int n = MINP; n <= MAXP; ++n)
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      Game g;
      g.init_new(n, false, seed);
      Rng policy{seed};
      advance_random(g, policy, static_cast<int>(seed * 37 % 200));
      Actions legal;
      for (g.legal_actions(legal); g.phase != Phase::GAME_OVER && legal.size() < 2; g.legal_actions(legal))
        g.apply_action(legal[0]);
      if (g.phase != Phase::GAME_OVER) roots.push_back(g);
    }
  return roots;
}

void check_search(bool heuristic_opponents, double rollout_mix, int gumbel_m) {
  search::Params p;
  p.sims = 24;
  p.gumbel_m = gumbel_m;
  p.heuristic_opponents = heuristic_opponents;
  p.rollout_mix = rollout_mix;
  p.features = {FEATURE_BATTLE};
  search::check(p);
  std::vector<Game> roots = search_roots();
  require(roots.size() >= 10, "too few search roots");
  SearchRun a = run_search(roots, p, 100), b = run_search(roots, p, 100);
  require(a.actions == b.actions && a.visits == b.visits, "the search differs for the same seeds");
}

}  // namespace

void players_tests(Tally& tally) {
  for (int k = 0; k < 3; ++k)
    for (int n = MINP; n <= MAXP; ++n)
      for (uint64_t seed = 1; seed <= 4; ++seed)
        tally.run("heuristic " + std::to_string(k) + ", " + std::to_string(n) + " players, seed " +
                      std::to_string(seed),
                  [&] { tally.decisions += check_heuristic(n, seed, PERSONALITIES[k]); });
  tally.run("search, Gumbel root", [] { check_search(false, 0.0, 16); });
  tally.run("search, PUCT root, heuristic opponents and rollouts", [] { check_search(true, 0.5, 0); });
}

}  // namespace pk::selftest
