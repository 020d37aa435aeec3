// The batched vector environment (vector_env.hpp).
#include "vector_env.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

namespace pk {

VectorEnv::VectorEnv(int num_envs, std::vector<int> counts, bool oracle, bool opponents, int seat,
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

bool VectorEnv::truncated(const Game& g) const {
  return g.phase != Phase::GAME_OVER && g.decisions >= static_cast<uint64_t>(max_decisions_);
}

void VectorEnv::start_game(int i, uint64_t seed) {
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

void VectorEnv::play_opponents(int i) {
  if (!opponents_) return;
  Game& g = games_[i];
  Actions& legal = scratch_[i];
  while (g.phase != Phase::GAME_OVER && g.current != learners_[i] && !truncated(g)) {
    g.legal_actions(legal);
    g.apply_action(legal[policies_[i].randrange(static_cast<int>(legal.size()))]);
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
  enc::encode(g, g.current, oracle_, out.obs + static_cast<int64_t>(i) * obs_size());
  enc::legal_mask(g, scratch_[i], out.mask + static_cast<int64_t>(i) * NUM_ACTIONS);
  legal_bits_[i].fill(0);
  for (int a : scratch_[i]) legal_bits_[i][a >> 6] |= 1ULL << (a & 63);
}

}  // namespace pk
