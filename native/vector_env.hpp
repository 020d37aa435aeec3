// A batched vector environment over the C++ engine: N games stepped in one call, writing the
// acting seat, its observation and legal mask, rewards and terminations into caller-owned
// arrays (no allocation per step). Games reset themselves when they end (auto-reset); each
// game has its own seed stream, so a batch is reproducible whatever the thread count.
// Optionally the seats other than `learner` are played by uniform random opponents, natively.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "encoder.hpp"

namespace pk {

struct VecBuffers {  // row-major [num_envs][...] views of the caller's arrays
  int32_t* current;  // acting seat of each game's next decision
  float* obs;        // observation of that seat
  int8_t* mask;      // its legal actions
  float* rewards;    // [num_envs][MAXP]: win rewards on the step a game ended, else 0
  bool* terminated;  // the step ended a game (the row already shows the next game)
};

class VectorEnv {
 public:
  VectorEnv(int num_envs, int num_players, bool oracle, int learner, int threads)
      : n_players_(num_players), oracle_(oracle), learner_(learner), threads_(threads) {
    if (num_envs < 1) throw std::invalid_argument("num_envs must be at least 1");
    if (num_players < 3 || num_players > MAXP)
      throw std::invalid_argument("num_players must be 3, 4 or 5");
    if (learner < -1 || learner >= num_players)
      throw std::invalid_argument("learner must be -1 (every seat decides) or a seat");
    if (threads < 1) throw std::invalid_argument("threads must be at least 1");
    games_.resize(num_envs);
    seeds_.resize(num_envs);
    policies_.resize(num_envs);
    scratch_.resize(num_envs);
    legal_bits_.resize(num_envs);
    episodes_.assign(num_envs, 0);
    game_seeds_.assign(num_envs, 0);
  }

  int num_envs() const { return static_cast<int>(games_.size()); }
  int obs_size() const { return oracle_ ? enc::ORACLE_SIZE : enc::OBS_SIZE; }
  const Game& game(int i) const { return games_.at(i); }
  int64_t episodes(int i) const { return episodes_.at(i); }
  uint64_t game_seed(int i) const { return game_seeds_.at(i); }
  static constexpr uint64_t POLICY_SALT = 0x5DEECE66DULL;

  // Starts game i with seed seeds[i] (the game Game.new(seed=seeds[i]) starts); the seeds of
  // its later games are SplitMix64(seeds[i]) draws, and the random opponents pick
  // legal[randrange(len)] from SplitMix64(seeds[i] ^ POLICY_SALT).
  void reset(const uint64_t* seeds, VecBuffers out) {
    parallel([&](int i) {
      seeds_[i].state = seeds[i];
      policies_[i].state = seeds[i] ^ POLICY_SALT;
      episodes_[i] = 0;
      start_game(i, seeds[i]);
      out.terminated[i] = false;
      std::fill(out.rewards + i * MAXP, out.rewards + (i + 1) * MAXP, 0.0f);
      write(i, out);
    });
  }

  // Index of the first game whose action is not legal now, or -1 (then nothing changed).
  int first_illegal(const int32_t* actions) const {
    for (int i = 0; i < num_envs(); ++i) {
      int a = actions[i];
      if (a < 0 || a >= NUM_ACTIONS || !(legal_bits_[i][a >> 6] >> (a & 63) & 1)) return i;
    }
    return -1;
  }

  // A uniformly random legal action of every game (legal[randrange(len)] from the game's
  // opponent stream): a native random policy for benchmarks and baselines.
  void random_actions(int32_t* out) {
    for (int i = 0; i < num_envs(); ++i) {
      const Actions& legal = scratch_[i];
      out[i] = legal[policies_[i].randrange(static_cast<int>(legal.size()))];
    }
  }

  // Applies actions[i] to game i (all checked legal by the caller via first_illegal).
  void step(const int32_t* actions, VecBuffers out) {
    parallel([&](int i) {
      Game& g = games_[i];
      float* rewards = out.rewards + i * MAXP;
      std::fill(rewards, rewards + MAXP, 0.0f);
      g.apply_action(actions[i]);
      play_opponents(i);
      out.terminated[i] = g.phase == GAME_OVER;
      if (out.terminated[i]) {
        win_rewards(g, rewards);
        ++episodes_[i];
        start_game(i, seeds_[i].next64());
      }
      write(i, out);
    });
  }

 private:
  int n_players_;
  bool oracle_;
  int learner_;
  int threads_;
  std::vector<Game> games_;
  std::vector<Rng> seeds_, policies_;
  std::vector<Actions> scratch_;  // legal actions of each game's current decision
  std::vector<std::array<uint64_t, (NUM_ACTIONS + 63) / 64>> legal_bits_;  // the same, as bits
  std::vector<int64_t> episodes_;
  std::vector<uint64_t> game_seeds_;

  void start_game(int i, uint64_t seed) {
    game_seeds_[i] = seed;
    games_[i].init_new(n_players_, false, seed);
    play_opponents(i);
  }

  // Random opponents move until the learner decides (or the game ends, which the caller
  // handles; a new game cannot end before its first decision).
  void play_opponents(int i) {
    if (learner_ < 0) return;
    Game& g = games_[i];
    Actions& legal = scratch_[i];
    while (g.phase != GAME_OVER && g.current != learner_) {
      g.legal_actions(legal);
      g.apply_action(legal[policies_[i].randrange(static_cast<int>(legal.size()))]);
    }
  }

  // queries.win_rewards: the k winners share +1, the others -1; an all-way tie is 0.
  static void win_rewards(const Game& g, float* out) {
    int w[MAXP];
    int k = g.winners(w);
    if (k == g.n) return;
    for (int p = 0; p < g.n; ++p) out[p] = static_cast<float>(-1.0 / (g.n - k));
    for (int j = 0; j < k; ++j) out[w[j]] = static_cast<float>(1.0 / k);
  }

  void write(int i, VecBuffers out) {
    Game& g = games_[i];
    out.current[i] = g.current;
    enc::encode(g, g.current, oracle_, out.obs + static_cast<int64_t>(i) * obs_size());
    enc::legal_mask(g, scratch_[i], out.mask + static_cast<int64_t>(i) * NUM_ACTIONS);
    legal_bits_[i].fill(0);
    for (int a : scratch_[i]) legal_bits_[i][a >> 6] |= 1ULL << (a & 63);
  }

  // Runs fn(i) for every game, split into `threads_` contiguous chunks. Games never share
  // state, so the result does not depend on the thread count.
  template <class Fn>
  void parallel(Fn fn) {
    int count = num_envs(), workers = std::min(threads_, count);
    if (workers <= 1) {
      for (int i = 0; i < count; ++i) fn(i);
      return;
    }
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(workers);
    for (int w = 0; w < workers; ++w)
      pool.emplace_back([&, w] {
        try {
          for (int i = count * w / workers; i < count * (w + 1) / workers; ++i) fn(i);
        } catch (...) {
          errors[w] = std::current_exception();
        }
      });
    for (auto& t : pool) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
};

}  // namespace pk
