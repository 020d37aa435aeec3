// The environment side's self-test (native/env/): the encoder's block layout; the
// observation and mask of the acting seat at every decision of the engine test's seeded
// games (and of a determinization played to the end); the feature blocks on seeded games;
// the vector env's league with 1 and 2 threads, and its refusal of a heuristic opponent
// without the heuristic's scorer.
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "env/env.hpp"
#include "players/heuristic.hpp"  // the scorer the vector env's heuristic opponents are handed
#include "tests/check.hpp"

namespace pk::selftest {
namespace {

// The blocks add up to the documented sizes; the plain observation is the oracle one
// without its oracle blocks.
void check_layout() {
  int total = 0;
  for (int b = 0; b < enc::NUM_BLOCKS; ++b) {
    require(enc::LAYOUT[b].size > 0, "encoder: an empty block");
    require(enc::OFFSET[b] == total, "encoder: a block's offset is not the sum of the sizes before it");
    total += enc::LAYOUT[b].size;
  }
  require(total == enc::ORACLE_SIZE, "encoder: the blocks do not add up to ORACLE_SIZE");
  require(std::strcmp(enc::LAYOUT[enc::NUM_BLOCKS - enc::NUM_ORACLE_BLOCKS].name, "oracle_specials") == 0 &&
              enc::OFFSET[enc::NUM_BLOCKS - enc::NUM_ORACLE_BLOCKS] == enc::OBS_SIZE,
          "encoder: the oracle blocks are not last");
  require(feat::BATTLE_SIZE == SLOTS * feat::BATTLE_PER_SLOT &&
              feat::ACTIONS_SIZE == NUM_ACTIONS * feat::ACTION_PER,
          "feature blocks: sizes");
}

// The observation and mask of the acting seat: finite, non-negative, mask == legal list;
// the plain observation is the oracle one's first OBS_SIZE floats; the `phase` block is
// one-hot.
struct EncodingCheck {
  std::vector<float> obs = std::vector<float>(enc::ORACLE_SIZE), plain = std::vector<float>(enc::OBS_SIZE);
  std::vector<int8_t> mask = std::vector<int8_t>(NUM_ACTIONS);
  Actions scratch;

  void operator()(const Game& g, const Actions& legal) {
    if (g.phase == Phase::GAME_OVER) return;
    enc::encode(g, g.current, true, obs.data());
    for (float v : obs) require(std::isfinite(v) && v >= 0.0f, "observation value not finite or negative");
    enc::encode(g, g.current, false, plain.data());
    require(std::equal(plain.begin(), plain.end(), obs.begin()),
            "the plain observation differs from the oracle one's first OBS_SIZE floats");
    float phase_sum = 0.0f;
    for (int i = 0; i < enc::LAYOUT[enc::PHASE].size; ++i) phase_sum += obs[enc::OFFSET[enc::PHASE] + i];
    require(phase_sum == 1.0f && obs[enc::OFFSET[enc::PHASE] + static_cast<int>(g.phase)] == 1.0f,
            "the phase block is not one-hot at the phase");
    enc::legal_mask(g, scratch, mask.data());
    int count = 0;
    for (int a = 0; a < NUM_ACTIONS; ++a) count += mask[a];
    require(count == static_cast<int>(legal.size()), "legal mask differs from the legal actions");
    for (int a : legal) require(mask[a] == 1, "legal mask differs from the legal actions");
  }
};

// The engine test's game of this seed again, with the encoding checked at every decision,
// and the first determinization (every 25th decision) played to the end with the same check.
int64_t encode_game(int n, uint64_t seed, EncodingCheck& check) {
  Game g;
  g.init_new(n, true, seed);
  Rng policy{seed};
  bool played_determinized = false;
  return play_checked(g, policy, check, [&](const Game& now, int64_t decision) {
    if (decision % 25 != 0 || played_determinized) return;
    played_determinized = true;
    uint64_t sample_seed = seed * 1000 + static_cast<uint64_t>(decision);
    Game d = now;
    d.determinize(now.current, sample_seed);
    Rng sample_policy{sample_seed ^ 0xD1CEULL};
    play_checked(d, sample_policy, check, [](const Game&, int64_t) {});
  });
}

// Both feature blocks of every seat at every 5th decision: finite, in [-1, 1]; the actions
// block is zero outside the legal actions' rows (for the acting seat).
int64_t check_features(int n, uint64_t seed) {
  Game g;
  g.init_new(n, false, seed);
  Rng policy{seed};
  std::vector<float> battle(feat::BATTLE_SIZE), actions(feat::ACTIONS_SIZE);
  Actions legal;
  int64_t decisions = 0;
  while (g.phase != Phase::GAME_OVER) {
    g.legal_actions(legal);
    if (decisions % 5 == 0) {
      feat::battle(g, g.current, battle.data());
      feat::actions(g, g.current, actions.data());
      for (float v : battle) require(std::isfinite(v) && v >= -1.0f && v <= 1.0f, "battle block outside [-1, 1]");
      for (float v : actions) require(std::isfinite(v) && v >= -1.0f && v <= 1.0f, "actions block outside [-1, 1]");
      std::vector<char> is_legal(NUM_ACTIONS, 0);
      for (int a : legal) is_legal[a] = 1;
      for (int a = 0; a < NUM_ACTIONS; ++a)
        if (!is_legal[a])
          for (int c = 0; c < feat::ACTION_PER; ++c)
            require(actions[a * feat::ACTION_PER + c] == 0.0f, "actions block: a row for an illegal action");
    }
    g.apply_action(legal[policy.randrange(static_cast<int>(legal.size()))]);
    ++decisions;
  }
  return decisions;
}

// The vector env's league with 1 and 2 threads: the same rows (feature blocks included), and
// every game a valid state after the native players' moves.
void check_vector_env() {
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
  {
    uint64_t seeds[N];
    for (int i = 0; i < N; ++i) seeds[i] = 1000 + i;
    // The league: random, the default heuristic, a noisy warlike one and personalities drawn
    // per seat (aggression and spite over their ranges), the feature blocks.
    std::vector<pk::Opponent> league = {
        {pk::Opponent::RANDOM, {}, {}},
        {pk::Opponent::HEURISTIC, {}, {}},
        {pk::Opponent::HEURISTIC, {1.5, 1.0, 0.6, 0.2, 0.3}, {1.5, 1.0, 0.6, 0.2, 0.3}},
        {pk::Opponent::HEURISTIC, {0.0, 1.0, 0.0, 0.5, 0.0}, {2.0, 1.0, 2.0, 0.5, 0.0}}};
    std::vector<int> features = {pk::FEATURE_BATTLE, pk::FEATURE_ACTIONS};
    pk::VectorEnv one(N, {3, 4, 5}, false, features, league, {1.0, 2.0, 1.0, 1.0}, 0.2, -1, 1, 400,
                        &pk::ai::score_actions);
    pk::VectorEnv two(N, {3, 4, 5}, false, features, league, {1.0, 2.0, 1.0, 1.0}, 0.2, -1, 2, 400,
                        &pk::ai::score_actions);
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
  }
}


// A heuristic opponent needs the heuristic's scorer (env/ does not include players/).
void check_vector_env_refusals() {
  std::vector<Opponent> league = {{Opponent::HEURISTIC, {}, {}}};
  bool refused = false;
  try {
    VectorEnv env(2, {4}, false, {}, league, {1.0}, 0.0, -1, 1, 400, nullptr);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  require(refused, "vector env: a HEURISTIC opponent without a scorer was accepted");
  std::vector<Opponent> reversed = {{Opponent::HEURISTIC, {1.5, 1.0, 0.6, 0.5, 0.0}, {}}};
  refused = false;
  try {
    VectorEnv env(2, {4}, false, {}, reversed, {1.0}, 0.0, -1, 1, 400, &pk::ai::score_actions);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  require(refused, "vector env: a knob whose high end is below its low end was accepted");
  std::vector<Opponent> random = {{Opponent::RANDOM, {}, {}}};
  VectorEnv env(2, {4}, false, {}, random, {1.0}, 0.0, -1, 1, 400, nullptr);  // no heuristic needed
  require(env.num_envs() == 2, "vector env: random opponents without a scorer");
}

}  // namespace

void env_tests(int games, uint64_t seed0, Tally& tally) {
  tally.run("encoder layout", check_layout);
  EncodingCheck check;
  for (int n = MINP; n <= MAXP; ++n)
    for (int i = 0; i < games; ++i) {
      uint64_t seed = seed0 + static_cast<uint64_t>(i);
      tally.run("encoding, " + std::to_string(n) + " players, seed " + std::to_string(seed),
                [&] { tally.decisions += encode_game(n, seed, check); });
    }
  for (int n = MINP; n <= MAXP; ++n)
    for (uint64_t seed = 1; seed <= 10; ++seed)
      tally.run("features, " + std::to_string(n) + " players, seed " + std::to_string(seed),
                [&] { tally.decisions += check_features(n, seed); });
  tally.run("vector env", check_vector_env);
  tally.run("vector env refusals", check_vector_env_refusals);
}

}  // namespace pk::selftest
