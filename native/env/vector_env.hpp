// A batched vector environment over the C++ engine: N games stepped in one call, writing the
// acting seat, its controller, observation (plus feature blocks) and legal mask, rewards,
// terminations, truncations and the VP standing into caller-owned arrays (no allocation per
// step). Games reset themselves when they end (auto-reset); each game has its own seed
// stream, so a batch is reproducible whatever the thread count.
//
// The league: with opponents, the learner's seat is Python controller 0 and every other seat
// of a game draws, when the game is dealt, one opponent by weight: a native player (uniform
// random, or the heuristic with its Params, fixed or drawn per seat and game from ranges) that
// moves inside step(), or another Python
// controller (k >= 1: a frozen network, say). Every row returned shows a decision of a
// Python controller. The heuristic's scoring rules are players/ (a floor above): the caller
// hands them in (`ScoreActions`, ai::score_actions), so env/ needs no player. Definitions in
// vector_env.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/analysis.hpp"
#include "env/encoder.hpp"

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
  int32_t* controller;    // the Python controller of the acting seat (0: the learner)
};

// Who plays a seat that is not the learner's.
struct Opponent {
  static constexpr int RANDOM = -1, HEURISTIC = -2;
  int controller;  // RANDOM, HEURISTIC, or a Python controller id >= 1
  ai::Params params;  // HEURISTIC's personality: each knob's value, or the low end of its range
  ai::Params high;    // each knob's high end: a knob with high > params is drawn per seat
};

// The heuristic's scores of the legal actions (players/heuristic.hpp ai::score_actions); the
// env takes the best with pick_best and the opponent stream's seed.
using ScoreActions = void (*)(const ai::View& v, const ai::Params& p, const Actions& legal,
                              ai::Scores& out);

class VectorEnv {
 public:
  // counts: the player counts to draw from per game (one: always that count); features:
  // blocks after the observation; opponents (empty: every seat is controller 0's) with
  // weights (> 0 in all) and same_table (the share of games with one opponent drawn for
  // every other seat, as single_agent/opponents.py); seat: the learner's seat, -1 = drawn
  // per game; max_decisions: a game still running after that many decisions is truncated;
  // heuristic: the scorer of HEURISTIC opponents (may be null without one).
  // Throws std::invalid_argument on a bad argument.
  VectorEnv(int num_envs, std::vector<int> counts, bool oracle, std::vector<int> features,
            std::vector<Opponent> opponents, std::vector<double> weights, double same_table,
            int seat, int threads, int64_t max_decisions, ScoreActions heuristic);

  int num_envs() const { return static_cast<int>(games_.size()); }
  int base_size() const { return oracle_ ? enc::ORACLE_SIZE : enc::OBS_SIZE; }
  int obs_size() const { return obs_size_; }
  const Game& game(int i) const { return games_.at(i); }
  // The last game env i ended or cut (what its row showed before the auto-reset).
  const Game& finished(int i) const { return finished_.at(i); }
  int64_t episodes(int i) const { return episodes_.at(i); }
  uint64_t game_seed(int i) const { return game_seeds_.at(i); }
  // The opponent index (into `opponents`) of each seat of game i (-1: the learner's or, without
  // opponents, controller 0's), or of the game it last finished.
  const int8_t* seat_opponents(int i, bool finished) const {
    return (finished ? finished_seats_ : seats_).at(i).data();
  }
  static constexpr uint64_t POLICY_SALT = 0x5DEECE66DULL;
  static constexpr int MAX_DEALS = 1000;  // games dealt in a row without a learner decision

  // Starts game i with seed seeds[i] (the game Game.new(seed=seeds[i]) starts); the seeds of
  // its later games are SplitMix64(seeds[i]) draws. The opponent stream SplitMix64(seeds[i] ^
  // POLICY_SALT) gives, per game in this order: the player count's index (randrange(len)
  // when there are several counts), the learner's seat (randrange(n) when drawn; only with
  // opponents), the seats' opponents (with several of positive weight: a uniform u < same_table for one
  // opponent at the whole table, then one weighted draw per seat or one for all), the drawn
  // personalities (seat by seat, each ranged knob in member order: low + (high - low) * u), then the
  // native players' moves: a random player's legal[randrange(len)], a heuristic's seed
  // (next64, when it has more than one legal action; analysis.hpp pick_best). With
  // opponents, a game that ends or reaches the decision limit before a Python controller's
  // first decision is dealt again from the next seed (as single_agent/env.py does).
  void reset(const uint64_t* seeds, VecBuffers out);

  // New weights (>= 0, a positive sum; one per opponent) and same_table share: games dealt
  // from now on draw with them, games in progress keep their players.
  void set_weights(const std::vector<double>& weights, double same_table);

  // Index of the first game whose action is neither -1 nor legal now, or -1.
  int first_illegal(const int32_t* actions) const;

  // A uniformly random legal action of every game (legal[randrange(len)] from the game's
  // opponent stream): a native random policy for benchmarks and baselines.
  void random_actions(int32_t* out);

  // Applies actions[i] to game i (all checked legal by the caller via first_illegal); a
  // game whose action is -1 is left as it is (its row unchanged, nothing to report), so
  // each Python controller can move its own rows.
  void step(const int32_t* actions, VecBuffers out);

 private:
  std::vector<int> counts_;
  bool oracle_;
  std::vector<int> features_;
  int obs_size_;
  std::vector<Opponent> opponents_;
  ScoreActions heuristic_;
  std::vector<double> cumulative_;  // the weights' running sums, normalised to end at 1
  double same_table_;
  int seat_;
  int threads_;
  int64_t max_decisions_;
  std::vector<Game> games_, finished_;
  std::vector<Rng> seeds_, policies_;
  std::vector<int> learners_;
  std::vector<std::array<int8_t, MAXP>> seats_, finished_seats_;  // see seat_opponents
  std::vector<std::array<ai::Params, MAXP>> personalities_;  // each heuristic seat's knobs
  std::vector<ai::Scores> scores_;  // each game's heuristic scratch
  std::vector<Actions> scratch_;  // legal actions of each game's current decision
  std::vector<std::array<uint64_t, (NUM_ACTIONS + 63) / 64>> legal_bits_;  // the same, as bits
  std::vector<int64_t> episodes_;
  std::vector<uint64_t> game_seeds_;

  bool truncated(const Game& g) const;
  void start_game(int i, uint64_t seed);
  int draw_opponent(Rng& policy) const;  // a weighted draw of an opponent index
  void seat_opponents(int i, int n);       // the opponents of a new game's seats
  void draw_personalities(int i, int n);   // the heuristic seats' knobs, drawn where ranged
  // Native players move until a Python controller decides, the game ends or reaches the
  // decision limit (the caller handles the last two).
  void play_opponents(int i);
  int controller(int i) const;  // the Python controller of game i's acting seat
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
