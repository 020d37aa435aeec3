// A batched vector environment over the C++ engine: N games stepped in one call, writing the
// acting seat, its observation and legal mask, rewards, terminations, truncations and the
// VP standing into caller-owned arrays (no allocation per step). Games reset themselves when
// they end (auto-reset); each game has its own seed stream, so a batch is reproducible
// whatever the thread count. Optionally the seats other than the learner's are played by
// uniform random opponents, natively (the single-agent setting of single_agent/env.py).
// Definitions in src/vector_env.cpp.
#pragma once

#include <array>
#include <cstdint>
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
  // Throws std::invalid_argument on a bad argument.
  VectorEnv(int num_envs, std::vector<int> counts, bool oracle, bool opponents, int seat,
            int threads, int64_t max_decisions);

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
  void reset(const uint64_t* seeds, VecBuffers out);

  // Index of the first game whose action is not legal now, or -1 (then nothing changed).
  int first_illegal(const int32_t* actions) const;

  // A uniformly random legal action of every game (legal[randrange(len)] from the game's
  // opponent stream): a native random policy for benchmarks and baselines.
  void random_actions(int32_t* out);

  // Applies actions[i] to game i (all checked legal by the caller via first_illegal).
  void step(const int32_t* actions, VecBuffers out);

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

  bool truncated(const Game& g) const;
  void start_game(int i, uint64_t seed);
  // Random opponents move until the learner decides, the game ends or reaches the decision
  // limit (the caller handles the last two).
  void play_opponents(int i);
  // queries.win_rewards: the k winners share +1, the others -1; an all-way tie is 0.
  static void win_rewards(const Game& g, float* out);
  static void clear_step(int i, VecBuffers out);
  void write(int i, VecBuffers out);  // the row of game i: seat, observation, mask, scores
  // Runs fn(i) for every game, split into `threads_` contiguous chunks. Games never share
  // state, so the result does not depend on the thread count.
  template <class Fn>
  void parallel(Fn fn);
};

}  // namespace pk
