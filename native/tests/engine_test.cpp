// The engine's self-test (native/engine/): seeded uniform random games (3, 4 and 5 players)
// with the invariants of tests/check.hpp after every decision; each game replayed to check
// determinism, its unrecorded random_playout, a clone taken mid-game and determinizations of
// the acting seat (one played to the end).
#include "tests/check.hpp"

namespace pk::selftest {
namespace {

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
    play_checked(d, policy, [](const Game&, const Actions&) {}, [](const Game&, int64_t) {});
  }
}

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
  int64_t decisions = play_checked(
      g, policy, [](const Game&, const Actions&) {},
      [&](const Game& now, int64_t decision) {
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

}  // namespace

void engine_tests(int games, uint64_t seed0, Tally& tally) {
  for (int n = pk::MINP; n <= pk::MAXP; ++n)
    for (int i = 0; i < games; ++i) {
      uint64_t seed = seed0 + static_cast<uint64_t>(i);
      tally.run(std::to_string(n) + " players, seed " + std::to_string(seed),
                [&] { tally.decisions += run_game(n, seed); });
    }
}

}  // namespace pk::selftest
