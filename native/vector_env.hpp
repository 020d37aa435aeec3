// A batched vector environment over the C++ engine: N games stepped in one call, writing the
// acting seat, its observation and legal mask, rewards, terminations, truncations and the
// VP standing into caller-owned arrays (no allocation per step). Games reset themselves when
// they end (auto-reset); each game has its own seed stream, so a batch is reproducible
// whatever the thread count. Optionally the seats other than the learner's are played by
// uniform random opponents, natively (the single-agent setting of single_agent/env.py).
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
  int32_t* current;       // acting seat of each game's next decision
  float* obs;             // observation of that seat
  int8_t* mask;           // its legal actions
  float* rewards;         // [num_envs][MAXP]: win rewards on the step a game ended, else 0
  bool* terminated;       // the step ended a game (the row already shows the next game)
  bool* truncated;        // the step reached the decision limit unfinished (ditto)
  int32_t* scores;        // [num_envs][MAXP]: VP now of the game in the row (0 past n)
  int32_t* final_scores;  // [num_envs][MAXP]: VP of the game that ended or was cut, else 0
  int32_t* players;       // player count of the game in the row
  int32_t* decisions;     // engine decisions this step made in the stepped game
};

class VectorEnv {
 public:
  // counts: the player counts to draw from per game (one: always that count); opponents:
  // seats other than the learner's play natively; seat: the learner's seat, -1 = drawn per
  // game; max_decisions: a game still running after that many decisions is truncated.
  VectorEnv(int num_envs, std::vector<int> counts, bool oracle, bool opponents, int seat,
            int threads, int64_t max_decisions)
      : counts_(std::move(counts)),
        oracle_(oracle),
        opponents_(opponents),
        seat_(seat),
        threads_(threads),
        max_decisions_(max_decisions) {
    if (num_envs < 1) throw std::invalid_argument("num_envs must be at least 1");
    if (counts_.empty()) throw std::invalid_argument("num_players: no player count");
    for (int n : counts_)
      if (n < 3 || n > MAXP) throw std::invalid_argument("num_players must be 3, 4 or 5");
    if (seat < -1 || seat >= *std::min_element(counts_.begin(), counts_.end()))
      throw std::invalid_argument("learner seat must be -1 (drawn per game) or a seat of every game");
    if (threads < 1) throw std::invalid_argument("threads must be at least 1");
    if (max_decisions < 1) throw std::invalid_argument("max_decisions must be at least 1");
    games_.resize(num_envs);
    finished_.resize(num_envs);
    seeds_.resize(num_envs);
    policies_.resize(num_envs);
    learners_.assign(num_envs, 0);
    scratch_.resize(num_envs);
    legal_bits_.resize(num_envs);
    episodes_.assign(num_envs, 0);
    game_seeds_.assign(num_envs, 0);
  }

  int num_envs() const { return static_cast<int>(games_.size()); }
  int obs_size() const { return oracle_ ? enc::ORACLE_SIZE : enc::OBS_SIZE; }
  const Game& game(int i) const { return games_.at(i); }
  // The last game env i ended or cut (what its row showed before the auto-reset).
  const Game& finished(int i) const { return finished_.at(i); }
  int64_t episodes(int i) const { return episodes_.at(i); }
  uint64_t game_seed(int i) const { return game_seeds_.at(i); }
  static constexpr uint64_t POLICY_SALT = 0x5DEECE66DULL;
  static constexpr int MAX_DEALS = 1000;  // games dealt in a row without a learner decision

  // Starts game i with seed seeds[i] (the game Game.new(seed=seeds[i]) starts); the seeds of
  // its later games are SplitMix64(seeds[i]) draws. The opponent stream SplitMix64(seeds[i] ^
  // POLICY_SALT) gives, per game in this order: the player count's index (randrange(len)
  // when there are several counts), the learner's seat (randrange(n) when drawn; only with
  // opponents), then the random opponents' picks legal[randrange(len)]. With opponents, a
  // game that ends or reaches the decision limit before the learner's first decision is
  // dealt again from the next seed (as single_agent/env.py does).
  void reset(const uint64_t* seeds, VecBuffers out) {
    parallel([&](int i) {
      seeds_[i].state = seeds[i];
      policies_[i].state = seeds[i] ^ POLICY_SALT;
      episodes_[i] = 0;
      start_game(i, seeds[i]);
      clear_step(i, out);
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
      clear_step(i, out);
      uint64_t before = g.decisions;
      g.apply_action(actions[i]);
      play_opponents(i);
      out.decisions[i] = static_cast<int32_t>(g.decisions - before);
      out.terminated[i] = g.phase == Phase::GAME_OVER;
      out.truncated[i] = !out.terminated[i] && truncated(g);
      if (out.terminated[i] || out.truncated[i]) {
        if (out.terminated[i]) win_rewards(g, out.rewards + i * MAXP);
        g.scores(out.final_scores + i * MAXP);
        std::swap(finished_[i], g);  // kept for its final observation; g is dealt anew
        ++episodes_[i];
        start_game(i, seeds_[i].next64());
      }
      write(i, out);
    });
  }

 private:
  std::vector<int> counts_;
  bool oracle_;
  bool opponents_;
  int seat_;
  int threads_;
  int64_t max_decisions_;
  std::vector<Game> games_, finished_;
  std::vector<Rng> seeds_, policies_;
  std::vector<int> learners_;
  std::vector<Actions> scratch_;  // legal actions of each game's current decision
  std::vector<std::array<uint64_t, (NUM_ACTIONS + 63) / 64>> legal_bits_;  // the same, as bits
  std::vector<int64_t> episodes_;
  std::vector<uint64_t> game_seeds_;

  bool truncated(const Game& g) const {
    return g.phase != Phase::GAME_OVER && g.decisions >= static_cast<uint64_t>(max_decisions_);
  }

  void start_game(int i, uint64_t seed) {
    for (int deals = 1;; ++deals) {
      Rng& policy = policies_[i];
      int n = counts_.size() > 1 ? counts_[policy.randrange(static_cast<int>(counts_.size()))]
                                 : counts_[0];
      learners_[i] = opponents_ && seat_ < 0 ? policy.randrange(n) : seat_;
      game_seeds_[i] = seed;
      games_[i].init_new(n, false, seed);
      play_opponents(i);
      if (!opponents_ || (games_[i].phase != Phase::GAME_OVER && !truncated(games_[i]))) return;
      if (deals == MAX_DEALS)  // never loop for ever (the GIL is released here)
        throw std::invalid_argument("max_decisions is too small: the learner never decides");
      seed = seeds_[i].next64();  // ended before the learner decided: deal again
    }
  }

  // Random opponents move until the learner decides, the game ends or reaches the decision
  // limit (the caller handles the last two).
  void play_opponents(int i) {
    if (!opponents_) return;
    Game& g = games_[i];
    Actions& legal = scratch_[i];
    while (g.phase != Phase::GAME_OVER && g.current != learners_[i] && !truncated(g)) {
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

  static void clear_step(int i, VecBuffers out) {
    std::fill(out.rewards + i * MAXP, out.rewards + (i + 1) * MAXP, 0.0f);
    std::fill(out.final_scores + i * MAXP, out.final_scores + (i + 1) * MAXP, 0);
    out.terminated[i] = out.truncated[i] = false;
    out.decisions[i] = 0;
  }

  void write(int i, VecBuffers out) {
    Game& g = games_[i];
    out.current[i] = g.current;
    out.players[i] = g.n;
    int32_t* scores = out.scores + i * MAXP;
    std::fill(scores, scores + MAXP, 0);
    g.scores(scores);
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
