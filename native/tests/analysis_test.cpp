// The analysis floor's self-test (native/analysis/): the tie-breaking contract, the statue
// track, the exact dice odds, and a player's View on seeded games: well formed, and the same
// on every determinization of what that player cannot see (a View reads no secret).
#include <cmath>

#include "analysis/analysis.hpp"
#include "analysis/battlefield.hpp"
#include "tests/check.hpp"

namespace pk::selftest {
namespace {

void check_pick_best() {
  ai::Scores unique = {0.5, 2.0, -1.0, 1.999};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    ai::Scores s = unique;
    require(ai::pick_best(s, seed, 0.0) == 1, "pick_best: the unique best score lost");
    require(s == unique, "pick_best: scores changed without noise");
  }
  // Ties within 1e-9 are broken by the seed's stream: deterministic, and each tied index wins
  // for some seed; an index outside the tie never does.
  ai::Scores tied = {1.0, 0.0, 1.0 - 1e-10, 1.0};
  bool won[4] = {};
  for (uint64_t seed = 0; seed < 200; ++seed) {
    ai::Scores a = tied, b = tied;
    int pick = ai::pick_best(a, seed, 0.0);
    require(pick == ai::pick_best(b, seed, 0.0), "pick_best: the same seed picked differently");
    require(pick != 1, "pick_best: picked a score outside the tie");
    won[pick] = true;
  }
  require(won[0] && won[2] && won[3], "pick_best: a tied index never won");
  // Noise: the same seed adds the same noise; the scores carry it.
  ai::Scores a = unique, b = unique;
  int pa = ai::pick_best(a, 7, 1.0), pb = ai::pick_best(b, 7, 1.0);
  require(pa == pb && a == b, "pick_best: noise differs for the same seed");
  require(a != unique, "pick_best: noise > 0 left the scores unchanged");
}

void check_track_and_odds() {
  for (int c = 0; c < NUM_CITIES; ++c)
    for (int d = 0; d < 4; ++d) {
      double low = ai::track_value(c, d), high = ai::track_value(c, d + 1);
      require(low == statue_value(c, d), "track_value at a whole number of defeats");
      double mid = ai::track_value(c, d + 0.5);
      require(mid == low + (high - low) * 0.5, "track_value between two defeats is not linear");
    }
  for (int tokens = 0; tokens <= 2; ++tokens)
    for (int defence = 1; defence <= 10; ++defence) {
      double last = -1.0;
      for (int attack = 1; attack <= 10; ++attack) {
        double p = ai::round_win_probability(attack, defence, tokens, 0);
        require(std::isfinite(p) && p >= 0.0 && p <= 1.0, "round_win_probability outside [0, 1]");
        require(p >= last, "round_win_probability falls as the attack grows");
        last = p;
      }
    }
}

// Every seat's View at every 10th decision of a seeded game: its totals are finite and
// non-negative, and equal on a determinization of the game for that seat.
int64_t check_views(int n, uint64_t seed) {
  Game g;
  g.init_new(n, false, seed);
  Rng policy{seed};
  Actions legal;
  int64_t decisions = 0;
  while (g.phase != Phase::GAME_OVER) {
    if (decisions % 10 == 0)
      for (int p = 0; p < n; ++p) {
        ai::View v(g, p);
        require(v.controlled == ai::controlled_cities(g, p), "View.controlled differs");
        double strength[SLOTS * 4], further[NUM_CITIES];
        int count[SLOTS * 4];
        v.side_totals(strength, count);
        ai::expected_further_defeats(v, further);
        for (int i = 0; i < SLOTS * 4; ++i)
          require(std::isfinite(strength[i]) && strength[i] >= 0.0 && count[i] >= 0,
                  "View.side_totals not finite and non-negative");
        for (double f : further) require(std::isfinite(f) && f >= 0.0, "expected_further_defeats < 0");
        Game sample = g;
        sample.determinize(p, seed * 7919 + static_cast<uint64_t>(decisions));
        ai::View w(sample, p);
        double strength2[SLOTS * 4], further2[NUM_CITIES];
        int count2[SLOTS * 4];
        w.side_totals(strength2, count2);
        ai::expected_further_defeats(w, further2);
        require(std::equal(strength, strength + SLOTS * 4, strength2) &&
                    std::equal(count, count + SLOTS * 4, count2) &&
                    std::equal(further, further + NUM_CITIES, further2),
                "a View changed with what its player cannot see");
      }
    g.legal_actions(legal);
    g.apply_action(legal[policy.randrange(static_cast<int>(legal.size()))]);
    ++decisions;
  }
  return decisions;
}

}  // namespace

void analysis_tests(Tally& tally) {
  tally.run("pick_best", check_pick_best);
  tally.run("track_value and odds", check_track_and_odds);
  for (int n = MINP; n <= MAXP; ++n)
    for (uint64_t seed = 1; seed <= 10; ++seed)
      tally.run("views, " + std::to_string(n) + " players, seed " + std::to_string(seed),
                [&] { tally.decisions += check_views(n, seed); });
}

}  // namespace pk::selftest
