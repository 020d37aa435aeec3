// The batched vector environment (vector_env.hpp).
#include "env/vector_env.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

#include "env/features.hpp"

namespace pk {

VectorEnv::VectorEnv(int num_envs, std::vector<int> counts, bool oracle, std::vector<int> features,
                     std::vector<Opponent> opponents, std::vector<double> weights,
                     double same_table, int seat, int threads, int64_t max_decisions,
                     ScoreActions heuristic)
    : counts_(std::move(counts)),
      oracle_(oracle),
      features_(std::move(features)),
      opponents_(std::move(opponents)),
      heuristic_(heuristic),
      same_table_(same_table),
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
  obs_size_ = base_size();
  for (int f : features_) {
    if (f != FEATURE_BATTLE && f != FEATURE_ACTIONS) throw std::invalid_argument("unknown feature block");
    obs_size_ += f == FEATURE_BATTLE ? feat::BATTLE_SIZE : feat::ACTIONS_SIZE;
  }
  if (opponents_.size() > 64) throw std::invalid_argument("at most 64 opponents");
  set_weights(weights, same_table);
  for (const Opponent& o : opponents_)
    if (o.controller == 0 || o.controller < Opponent::HEURISTIC)
      throw std::invalid_argument("an opponent is RANDOM, HEURISTIC or a controller >= 1");
    else if (o.controller == Opponent::HEURISTIC && heuristic_ == nullptr)
      throw std::invalid_argument("a HEURISTIC opponent needs the heuristic's scorer");
#define PK_CHECK_RANGE(m) || !(o.high.m >= o.params.m)
    else if (o.controller == Opponent::HEURISTIC && (false PK_AI_PARAM_FIELDS(PK_CHECK_RANGE)))
      throw std::invalid_argument("a heuristic knob's high end is below its low end");
#undef PK_CHECK_RANGE
  games_.resize(num_envs);
  finished_.resize(num_envs);
  seeds_.resize(num_envs);
  policies_.resize(num_envs);
  learners_.assign(num_envs, 0);
  seats_.resize(num_envs);
  finished_seats_.resize(num_envs);
  personalities_.resize(num_envs);
  scores_.resize(num_envs);
  scratch_.resize(num_envs);
  legal_bits_.resize(num_envs);
  episodes_.assign(num_envs, 0);
  game_seeds_.assign(num_envs, 0);
}

void VectorEnv::set_weights(const std::vector<double>& weights, double same_table) {
  if (weights.size() != opponents_.size()) throw std::invalid_argument("one weight per opponent expected");
  if (!(same_table >= 0.0 && same_table <= 1.0)) throw std::invalid_argument("same_table must be in [0, 1]");
  double total = 0.0;
  for (double w : weights) {
    if (!(w >= 0.0 && w <= MAX_OPPONENT_WEIGHT))  // engine/generated/params.hpp
      throw std::invalid_argument("opponent weights must be finite and >= 0");
    total += w;
  }
  if (!opponents_.empty() && !(total > 0.0)) throw std::invalid_argument("opponent weights must have a positive sum");
  std::vector<double> cumulative;
  for (double w : weights) cumulative.push_back((cumulative.empty() ? 0.0 : cumulative.back()) + w / total);
  cumulative_ = std::move(cumulative);
  same_table_ = same_table;
}

// The league's seat draw as perikles_env/vector/seat_draw.py declares it (the running sums
// here are sequential, numpy's pairwise: they may differ in a cumulative weight's last bit).
int VectorEnv::draw_opponent(Rng& policy) const {
  double u = static_cast<double>(policy.next64() >> 11) * 0x1.0p-53;
  int k = 0;
  int last = static_cast<int>(cumulative_.size()) - 1;
  while (k < last && u >= cumulative_[k]) ++k;
  while (k > 0 && cumulative_[k] == cumulative_[k - 1]) --k;  // rounding: never a zero weight
  return k;
}

template <class Fn>
void VectorEnv::parallel(Fn fn) {
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

void VectorEnv::reset(const uint64_t* seeds, VecBuffers out) {
  parallel([&](int i) {
    seeds_[i].state = seeds[i];
    policies_[i].state = seeds[i] ^ POLICY_SALT;
    episodes_[i] = 0;
    start_game(i, seeds[i]);
    clear_step(i, out);
    write(i, out);
  });
}

int VectorEnv::first_illegal(const int32_t* actions) const {
  for (int i = 0; i < num_envs(); ++i) {
    int a = actions[i];
    if (a == -1) continue;
    if (a < 0 || a >= NUM_ACTIONS || !(legal_bits_[i][a >> 6] >> (a & 63) & 1)) return i;
  }
  return -1;
}

void VectorEnv::random_actions(int32_t* out) {
  for (int i = 0; i < num_envs(); ++i) {
    const Actions& legal = scratch_[i];
    out[i] = legal[policies_[i].randrange(static_cast<int>(legal.size()))];
  }
}

void VectorEnv::step(const int32_t* actions, VecBuffers out) {
  parallel([&](int i) {
    if (actions[i] == -1) {  // not this controller's row: unchanged, nothing to report
      clear_step(i, out);
      return;
    }
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
      finished_seats_[i] = seats_[i];
      ++episodes_[i];
      start_game(i, seeds_[i].next64());
    }
    write(i, out);
  });
}

bool VectorEnv::truncated(const Game& g) const {
  return g.phase != Phase::GAME_OVER && g.decisions >= static_cast<uint64_t>(max_decisions_);
}

void VectorEnv::start_game(int i, uint64_t seed) {
  for (int deals = 1;; ++deals) {
    Rng& policy = policies_[i];
    int n = counts_.size() > 1 ? counts_[policy.randrange(static_cast<int>(counts_.size()))]
                               : counts_[0];
    bool league = !opponents_.empty();
    learners_[i] = league && seat_ < 0 ? policy.randrange(n) : seat_;
    seat_opponents(i, n);
    draw_personalities(i, n);
    game_seeds_[i] = seed;
    games_[i].init_new(n, false, seed);
    play_opponents(i);
    if (!league || (games_[i].phase != Phase::GAME_OVER && !truncated(games_[i]))) return;
    if (deals == MAX_DEALS)  // never loop for ever (the GIL is released here)
      throw std::invalid_argument("max_decisions is too small: the learner never decides");
    seed = seeds_[i].next64();  // ended before the learner decided: deal again
  }
}

void VectorEnv::seat_opponents(int i, int n) {
  auto& seats = seats_[i];
  seats.fill(-1);
  if (opponents_.empty()) return;
  Rng& policy = policies_[i];
  int only = -1, positive = 0;  // one opponent with weight: no draw
  for (int k = 0; k < static_cast<int>(cumulative_.size()); ++k)
    if (cumulative_[k] > (k ? cumulative_[k - 1] : 0.0)) only = k, ++positive;
  if (positive == 1) {
    for (int p = 0; p < n; ++p) seats[p] = static_cast<int8_t>(p == learners_[i] ? -1 : only);
    return;
  }
  bool whole = same_table_ > 0.0 &&
               static_cast<double>(policy.next64() >> 11) * 0x1.0p-53 < same_table_;
  int one = whole ? draw_opponent(policy) : 0;
  for (int p = 0; p < n; ++p)
    if (p != learners_[i]) seats[p] = static_cast<int8_t>(whole ? one : draw_opponent(policy));
}

void VectorEnv::draw_personalities(int i, int n) {
  Rng& policy = policies_[i];
  for (int p = 0; p < n; ++p) {
    int k = seats_[i][p];
    if (k < 0 || opponents_[k].controller != Opponent::HEURISTIC) continue;
    const Opponent& o = opponents_[k];
    ai::Params& drawn = personalities_[i][p] = o.params;
#define PK_DRAW_KNOB(m)                                                       \
    if (o.high.m > o.params.m)                                                \
      drawn.m = o.params.m + (o.high.m - o.params.m) *                        \
                                 (static_cast<double>(policy.next64() >> 11) * 0x1.0p-53);
    PK_AI_PARAM_FIELDS(PK_DRAW_KNOB)
#undef PK_DRAW_KNOB
  }
}

int VectorEnv::controller(int i) const {
  int k = seats_[i][games_[i].current];
  return k < 0 ? 0 : opponents_[k].controller;
}

void VectorEnv::play_opponents(int i) {
  if (opponents_.empty()) return;
  Game& g = games_[i];
  Actions& legal = scratch_[i];
  Rng& policy = policies_[i];
  for (int who; g.phase != Phase::GAME_OVER && !truncated(g) && (who = controller(i)) < 0;) {
    g.legal_actions(legal);
    int a = legal[0];
    if (who == Opponent::RANDOM) {  // a draw even for one legal action (vector_env.hpp)
      a = legal[policy.randrange(static_cast<int>(legal.size()))];
    } else if (legal.size() > 1) {
      const ai::Params& params = personalities_[i][g.current];
      ai::View view(g, g.current);
      heuristic_(view, params, legal, scores_[i]);
      a = legal[ai::pick_best(scores_[i], policy.next64(), params.noise)];
    }
    g.apply_action(a);
  }
}

void VectorEnv::win_rewards(const Game& g, float* out) {
  int w[MAXP];
  int k = g.winners(w);
  if (k == g.n) return;
  for (int p = 0; p < g.n; ++p) out[p] = static_cast<float>(-1.0 / (g.n - k));
  for (int j = 0; j < k; ++j) out[w[j]] = static_cast<float>(1.0 / k);
}

void VectorEnv::clear_step(int i, VecBuffers out) {
  std::fill(out.rewards + i * MAXP, out.rewards + (i + 1) * MAXP, 0.0f);
  std::fill(out.final_scores + i * MAXP, out.final_scores + (i + 1) * MAXP, 0);
  out.terminated[i] = out.truncated[i] = false;
  out.decisions[i] = 0;
}

void VectorEnv::write(int i, VecBuffers out) {
  Game& g = games_[i];
  out.current[i] = g.current;
  out.players[i] = g.n;
  int32_t* scores = out.scores + i * MAXP;
  std::fill(scores, scores + MAXP, 0);
  g.scores(scores);
  out.controller[i] = controller(i);
  float* row = out.obs + static_cast<int64_t>(i) * obs_size();
  enc::encode(g, g.current, oracle_, row);
  row += base_size();
  for (int f : features_) {
    if (f == FEATURE_BATTLE) feat::battle(g, g.current, row);
    else feat::actions(g, g.current, row);
    row += f == FEATURE_BATTLE ? feat::BATTLE_SIZE : feat::ACTIONS_SIZE;
  }
  enc::legal_mask(g, scratch_[i], out.mask + static_cast<int64_t>(i) * NUM_ACTIONS);
  legal_bits_[i].fill(0);
  for (int a : scratch_[i]) legal_bits_[i][a >> 6] |= 1ULL << (a & 63);
}

}  // namespace pk
