// Batched policy/value-guided IS-MCTS (search.hpp): the tree walk, the root's Gumbel
// sampling with sequential halving (Danihelka et al. 2022, as in DeepMind's mctx), PUCT
// below the root, expansion and backup.
#include "players/search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "env/encoder.hpp"
#include "env/features.hpp"
#include "players/heuristic.hpp"

namespace pk::search {

namespace {
constexpr double NEG_INF = -std::numeric_limits<double>::infinity();

// Game.win_shares of a finished game, per absolute seat.
void win_shares(const Game& g, double* v) {
  std::fill(v, v + MAXP, 0.0);
  int winners[MAXP];
  int k = g.winners(winners);
  for (int j = 0; j < k; ++j) v[winners[j]] = 1.0 / k;
}

// A standard Gumbel draw from the stream (u in (0, 1), never 0).
double gumbel(Rng& r) {
  double u = (static_cast<double>(r.next64() >> 11) + 0.5) * 0x1.0p-53;
  return -std::log(-std::log(u));
}

int find_edge(const std::vector<Edge>& edges, int action) {
  auto it = std::lower_bound(edges.begin(), edges.end(), action,
                             [](const Edge& e, int a) { return e.action < a; });
  return it != edges.end() && it->action == action ? static_cast<int>(it - edges.begin()) : -1;
}
}  // namespace

void check(const Params& p) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
  };
  if (const char* why = invalid(p)) throw std::invalid_argument(why);  // the declared ranges
  for (size_t i = 0; i < p.features.size(); ++i) {
    need(p.features[i] == FEATURE_BATTLE || p.features[i] == FEATURE_ACTIONS, "unknown feature block");
    for (size_t j = 0; j < i; ++j) need(p.features[i] != p.features[j], "a feature block twice");
  }
}

int puct_pick(int k, const double* prior, const int* visits, const double* value_sum,
              double parent_q, double c_puct, double fpu) {
  double total_prior = 0.0;
  int64_t total_visits = 0;
  for (int i = 0; i < k; ++i) {
    total_prior += prior[i];
    total_visits += visits[i];
  }
  double root = std::sqrt(static_cast<double>(std::max<int64_t>(1, total_visits)));
  int best = -1;
  double best_score = NEG_INF;
  for (int i = 0; i < k; ++i) {
    double p = total_prior > 0.0 ? prior[i] / total_prior : 1.0 / k;
    double q = visits[i] > 0 ? value_sum[i] / visits[i] : parent_q - fpu;
    double score = q + c_puct * p * root / (1.0 + visits[i]);
    if (score > best_score) best = i, best_score = score;
  }
  return best;
}

std::vector<int> considered_visits(int considered, int sims) {
  std::vector<int> out;
  if (considered <= 1) {
    for (int j = 0; j < sims; ++j) out.push_back(j);
    return out;
  }
  int log2max = static_cast<int>(std::ceil(std::log2(considered)));
  std::vector<int> visits(considered, 0);
  for (int num = considered; static_cast<int>(out.size()) < sims; num = std::max(2, num / 2)) {
    int extra = std::max(1, static_cast<int>(sims / (static_cast<double>(log2max) * num)));
    for (int e = 0; e < extra; ++e) {
      out.insert(out.end(), visits.begin(), visits.begin() + num);
      for (int i = 0; i < num; ++i) ++visits[i];
    }
  }
  out.resize(sims);
  return out;
}

void completed_q(int k, const double* prior, const int* visits, const double* q, double raw_value,
                 double c_visit, double c_scale, bool rescale, double* out) {
  int64_t total = 0;
  int max_visits = 0;
  double sum_p = 0.0, weighted = 0.0;
  for (int i = 0; i < k; ++i) {
    total += visits[i];
    max_visits = std::max(max_visits, visits[i]);
    if (visits[i] > 0) {
      double p = std::max(prior[i], std::numeric_limits<double>::min());
      sum_p += p;
      weighted += p * q[i];
    }
  }
  double mixed = raw_value;
  if (total > 0) mixed = (raw_value + static_cast<double>(total) * (weighted / sum_p)) / (total + 1.0);
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (int i = 0; i < k; ++i) {
    out[i] = visits[i] > 0 ? q[i] : mixed;
    low = std::min(low, out[i]);
    high = std::max(high, out[i]);
  }
  double span = std::max(high - low, 1e-8);
  double scale = (c_visit + max_visits) * c_scale;
  for (int i = 0; i < k; ++i) out[i] = scale * (rescale ? (out[i] - low) / span : out[i]);
}

Search::Search(Params p) : p_(std::move(p)) {
  check(p_);
  obs_size_ = enc::OBS_SIZE;
  for (int f : p_.features) obs_size_ += f == FEATURE_BATTLE ? feat::BATTLE_SIZE : feat::ACTIONS_SIZE;
}

void Search::start(const std::vector<const Game*>& roots, const std::vector<int>& players,
                   const std::vector<uint64_t>& seeds) {
  if (roots.size() != players.size() || roots.size() != seeds.size())
    throw std::invalid_argument("one player and one seed per root game expected");
  for (size_t i = 0; i < roots.size(); ++i) {
    const Game& g = *roots[i];
    if (g.phase == Phase::GAME_OVER) throw std::invalid_argument("a root game is over");
    if (players[i] != g.current) throw std::invalid_argument("a search's player must be the seat to act");
  }
  trees_.clear();
  leaves_.clear();
  stopped_ = false;
  trees_.resize(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    Tree& t = trees_[i];
    t.root = *roots[i];
    t.root.record = false;
    t.root.ev.clear();
    t.player = players[i];
    t.rng.state = seeds[i];
    t.root.legal_actions(t.root_legal);  // the searching player's own options
    t.nodes.assign(1, Node{});
  }
}

bool Search::can_start(const Tree& t) const {
  if (t.blocked || t.inflight >= p_.leaves_per_search || t.root_legal.size() <= 1) return false;
  const Node& root = t.nodes[0];
  if (!root.expanded) return !root.pending;
  return t.started < p_.sims && !(stopped_ && t.started >= 1);
}

bool Search::finished(int i) const {
  const Tree& t = trees_.at(i);
  if (t.root_legal.size() <= 1) return true;
  return t.inflight == 0 && t.nodes[0].expanded && (t.started >= p_.sims || (stopped_ && t.started >= 1));
}

int Search::collect(Buffers out) {
  if (!leaves_.empty()) throw std::invalid_argument("feed the evaluations of the last batch first");
  if (out.rows < 1) throw std::invalid_argument("the buffers need at least one row");
  for (Tree& t : trees_) t.blocked = false;
  int rows = 0;
  for (bool progress = true; progress && rows < out.rows;) {
    progress = false;
    for (int i = 0; i < num_searches() && rows < out.rows; ++i) {
      if (!can_start(trees_[i])) continue;
      Outcome o = simulate(i, out, rows);
      if (o == LEAF) ++rows;
      if (o == COLLISION) trees_[i].blocked = true;
      else progress = true;
    }
  }
  return rows;
}

Search::Outcome Search::simulate(int i, Buffers out, int row) {
  Tree& t = trees_[i];
  Game& g = sample_;
  g = t.root;
  g.determinize(t.player, t.rng.next64());
  std::vector<int32_t> path{0};
  if (!t.nodes[0].expanded) {  // the root's own evaluation, on the player's own options
    t.nodes[0].pending = true;
    legal_ = t.root_legal;
    write_leaf(i, g, path, out, row);
    return LEAF;
  }
  int node = 0;
  g.legal_actions(legal_);
  for (;;) {
    int a = node == 0 ? select_root(t, legal_) : select(t, node, legal_, g.current);
    if (a < 0) return COLLISION;  // no root action legal in this sample (never expected)
    int child = child_of(t, node, a);
    path.push_back(child);
    g.apply_action(a);
    advance(t, g);
    if (g.phase == Phase::GAME_OVER) {  // exact win shares
      double v[MAXP];
      win_shares(g, v);
      ++t.started;
      ++t.done;
      backup(t, path, v, false);
      return BACKED_UP;
    }
    Node& c = t.nodes[child];
    if (!c.expanded) {
      if (c.pending) return COLLISION;  // awaiting its evaluation in this batch
      c.pending = true;
      ++t.started;
      write_leaf(i, g, path, out, row);
      return LEAF;
    }
    node = child;
  }
}

void Search::advance(Tree& t, Game& g) {
  while (g.phase != Phase::GAME_OVER) {
    g.legal_actions(legal_);
    if (legal_.size() == 1) {
      g.apply_action(legal_[0]);
    } else if (p_.heuristic_opponents && g.current != t.player) {
      g.apply_action(ai::decide(g, g.current, ai::Params{}, t.rng.next64(), ai_legal_, ai_scores_));
    } else {
      return;
    }
  }
}

int Search::child_of(Tree& t, int node, int action) {
  int e = find_edge(t.nodes[node].edges, action);
  int32_t child = t.nodes[node].edges[e].child;
  if (child < 0) {
    child = static_cast<int32_t>(t.nodes.size());
    t.nodes.emplace_back();  // (invalidates references into t.nodes)
    t.nodes[node].edges[e].child = child;
  }
  return child;
}

int Search::select(Tree& t, int node, const Actions& legal, int actor) {
  std::vector<Edge>& edges = t.nodes[node].edges;
  for (int a : legal)  // legal in this sample, unseen at expansion: the uniform share
    if (find_edge(edges, a) < 0) {
      auto at = std::lower_bound(edges.begin(), edges.end(), a,
                                 [](const Edge& e, int x) { return e.action < x; });
      edges.insert(at, Edge{a, 0.0f, 1.0f / static_cast<float>(legal.size()), -1});
    }
  int k = static_cast<int>(legal.size());
  scratch_prior_.resize(k);
  scratch_w_.resize(k);
  scratch_n_.resize(k);
  for (int j = 0; j < k; ++j) {
    const Edge& e = edges[find_edge(edges, legal[j])];
    scratch_prior_[j] = e.prior;
    scratch_n_[j] = 0;
    scratch_w_[j] = 0.0;
    if (e.child >= 0) {
      const Node& c = t.nodes[e.child];
      scratch_n_[j] = c.visits + c.inflight;  // virtual loss: in-flight visits count as 0
      scratch_w_[j] = c.w[actor];
    }
  }
  const Node& nd = t.nodes[node];
  double parent_q = nd.w[actor] / std::max(1, nd.visits);
  int j = puct_pick(k, scratch_prior_.data(), scratch_n_.data(), scratch_w_.data(), parent_q,
                    p_.c_puct, p_.fpu);
  return legal[j];
}

void Search::root_scores(const Tree& t, std::vector<double>& sigma) const {
  const Node& r = t.nodes[0];
  int k = static_cast<int>(r.edges.size());
  std::vector<double> prior(k), q(k);
  std::vector<int> visits(k);
  for (int j = 0; j < k; ++j) {
    const Edge& e = r.edges[j];
    prior[j] = e.prior;
    visits[j] = e.child >= 0 ? t.nodes[e.child].visits : 0;
    q[j] = visits[j] > 0 ? t.nodes[e.child].w[t.player] / visits[j] : 0.0;
  }
  sigma.resize(k);
  completed_q(k, prior.data(), visits.data(), q.data(), r.raw[t.player], p_.c_visit, p_.c_scale,
              p_.q_rescale, sigma.data());
}

int Search::select_root(Tree& t, const Actions& legal) {
  if (p_.gumbel_m == 0) return select(t, 0, legal, t.player);
  const std::vector<Edge>& edges = t.nodes[0].edges;
  std::vector<double>& sigma = scratch_q_;
  root_scores(t, sigma);
  int k = static_cast<int>(edges.size()), index = 0;
  std::vector<int>& counts = scratch_n_;
  counts.assign(k, 0);
  for (int j = 0; j < k; ++j)
    if (edges[j].child >= 0) {
      const Node& c = t.nodes[edges[j].child];
      index += counts[j] = c.visits + c.inflight;
    }
  int want = t.schedule[std::min<size_t>(index, t.schedule.size() - 1)];
  int best = -1, fallback = -1;
  double best_score = NEG_INF, fallback_score = NEG_INF;
  for (int j = 0; j < k; ++j) {
    if (!t.considered[j] || !std::ranges::binary_search(legal, edges[j].action)) continue;
    double score = t.gumbel[j] + edges[j].logit + sigma[j];
    if (counts[j] == want && score > best_score) best = j, best_score = score;
    // (not on the schedule: the least visited, then the best score)
    if (fallback < 0 || counts[j] < counts[fallback] ||
        (counts[j] == counts[fallback] && score > fallback_score))
      fallback = j, fallback_score = score;
  }
  if (best < 0) best = fallback;
  return best < 0 ? -1 : edges[best].action;
}

void Search::write_leaf(int i, const Game& g, std::vector<int32_t>& path, Buffers out, int row) {
  Tree& t = trees_[i];
  float* obs = out.obs + static_cast<int64_t>(row) * obs_size_;
  enc::encode(g, g.current, false, obs);
  obs += enc::OBS_SIZE;
  for (int f : p_.features) {
    if (f == FEATURE_BATTLE) feat::battle(g, g.current, obs);
    else feat::actions(g, g.current, obs);
    obs += f == FEATURE_BATTLE ? feat::BATTLE_SIZE : feat::ACTIONS_SIZE;
  }
  bool* mask = out.mask + static_cast<int64_t>(row) * NUM_ACTIONS;
  std::fill(mask, mask + NUM_ACTIONS, false);
  for (int a : legal_) mask[a] = true;
  for (int32_t node : path) ++t.nodes[node].inflight;
  ++t.inflight;
  Leaf leaf{i, g.current, g.n, {}, std::move(path), legal_};
  if (p_.rollout_mix > 0.0) {
    playout_ = g;
    ai::playout(playout_, ai::Params{}, t.rng.next64(), -1, ai_legal_, ai_scores_);
    win_shares(playout_, leaf.rollout);
  }
  leaves_.push_back(std::move(leaf));
}

void Search::backup(Tree& t, const std::vector<int32_t>& path, const double* v, bool from_leaf) {
  for (int32_t node : path) {
    Node& nd = t.nodes[node];
    nd.visits += 1;
    if (from_leaf) nd.inflight -= 1;
    for (int s = 0; s < MAXP; ++s) nd.w[s] += v[s];
  }
}

void Search::expand(Tree& t, int node, const Actions& legal, const float* logits, const double* v) {
  Node& nd = t.nodes[node];
  float top = -std::numeric_limits<float>::infinity();
  for (int a : legal) top = std::max(top, logits[a]);
  double total = 0.0;
  for (int a : legal) total += std::exp(static_cast<double>(logits[a]) - top);
  nd.edges.clear();
  for (int a : legal)
    nd.edges.push_back(Edge{a, logits[a], static_cast<float>(std::exp(static_cast<double>(logits[a]) - top) / total), -1});
  std::copy(v, v + MAXP, nd.raw);
  nd.expanded = true;
  nd.pending = false;
  if (node != 0 || p_.gumbel_m == 0) return;
  int k = static_cast<int>(nd.edges.size());  // the root: Gumbel-top-m of the logits
  t.gumbel.resize(k);
  for (int j = 0; j < k; ++j) t.gumbel[j] = p_.gumbel_scale * gumbel(t.rng);
  std::vector<int>& order = scratch_idx_;
  order.resize(k);
  for (int j = 0; j < k; ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return t.gumbel[a] + nd.edges[a].logit > t.gumbel[b] + nd.edges[b].logit;
  });
  int m = std::min(p_.gumbel_m, k);
  t.considered.assign(k, 0);
  for (int j = 0; j < m; ++j) t.considered[order[j]] = 1;
  t.schedule = considered_visits(m, std::max(1, p_.sims));
}

void Search::feed(int n, const float* logits, const float* values, int width) {
  if (n != static_cast<int>(leaves_.size()))
    throw std::invalid_argument("feed expects one row per leaf of the last collect (" +
                                std::to_string(leaves_.size()) + "), got " + std::to_string(n));
  for (int r = 0; r < n; ++r) {  // check everything first: bad input changes nothing
    const Leaf& leaf = leaves_[r];
    if (width < leaf.n) throw std::invalid_argument("values need one column per player of the game");
    for (int k = 0; k < leaf.n; ++k)
      if (!std::isfinite(values[static_cast<int64_t>(r) * width + k]))
        throw std::invalid_argument("values of row " + std::to_string(r) + " are not finite");
    for (int a : leaf.legal)
      if (!std::isfinite(logits[static_cast<int64_t>(r) * NUM_ACTIONS + a]))
        throw std::invalid_argument("a legal action's logit in row " + std::to_string(r) + " is not finite");
  }
  for (int r = 0; r < n; ++r) {
    const Leaf& leaf = leaves_[r];
    Tree& t = trees_[leaf.search];
    double v[MAXP] = {};
    for (int k = 0; k < leaf.n; ++k) v[(leaf.actor + k) % leaf.n] = values[static_cast<int64_t>(r) * width + k];
    if (p_.rollout_mix > 0.0)
      for (int s = 0; s < leaf.n; ++s) v[s] = (1.0 - p_.rollout_mix) * v[s] + p_.rollout_mix * leaf.rollout[s];
    expand(t, leaf.path.back(), leaf.legal, logits + static_cast<int64_t>(r) * NUM_ACTIONS, v);
    backup(t, leaf.path, v, true);
    --t.inflight;
    if (leaf.path.size() > 1) ++t.done;
  }
  leaves_.clear();
}

void Search::set_net(NetWeights weights) {
  if (p_.features.empty() || p_.features.back() != FEATURE_ACTIONS)
    throw std::invalid_argument("a network needs the actions feature block last");
  net_ = std::make_unique<NetForward>(std::move(weights), obs_size_);
}

Search::RunCounts Search::run(int rows, double seconds, float prior_temp) {
  if (!net_) throw std::invalid_argument("run needs a network: set_net first");
  if (rows < 1) throw std::invalid_argument("rows must be at least 1");
  if (!(prior_temp > 0.0f) || !std::isfinite(prior_temp)) throw std::invalid_argument("prior_temp must be > 0");
  if (rows != net_rows_) {
    net_rows_ = rows;
    net_obs_.assign(static_cast<size_t>(rows) * obs_size_, 0.0f);
    net_mask_ = std::make_unique<bool[]>(static_cast<size_t>(rows) * NUM_ACTIONS);
    net_logits_.assign(static_cast<size_t>(rows) * NUM_ACTIONS, 0.0f);
  }
  const int width = net_->num_players();
  net_values_.assign(static_cast<size_t>(rows) * width, 0.0f);
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(seconds);
  RunCounts counts;
  std::vector<int> counts_of(rows);
  while (int n = collect({net_obs_.data(), net_mask_.get(), rows})) {
    for (int r = 0; r < n; ++r) counts_of[r] = leaves_[r].n;
    net_->evaluate(n, net_obs_.data(), counts_of.data(), prior_temp, net_logits_.data(), net_values_.data());
    feed(n, net_logits_.data(), net_values_.data(), width);
    counts.evaluations += n;
    ++counts.calls;
    if (seconds > 0.0 && clock::now() >= deadline) stop();
  }
  return counts;
}

void Search::net_evaluate(int n, const float* obs, const int* players, float prior_temp, float* logits,
                          float* values, int width) {
  if (!net_) throw std::invalid_argument("net_evaluate needs a network: set_net first");
  if (width != net_->num_players()) throw std::invalid_argument("values need one column per seat of the network");
  net_->evaluate(n, obs, players, prior_temp, logits, values);
}

void Search::result(int i, Result& out) const {
  if (!finished(i)) throw std::invalid_argument("the search is not finished");
  const Tree& t = trees_[i];
  std::fill(out.policy, out.policy + NUM_ACTIONS, 0.0f);
  std::fill(out.prior, out.prior + NUM_ACTIONS, 0.0f);
  std::fill(out.visits, out.visits + NUM_ACTIONS, 0);
  std::fill(out.values, out.values + MAXP, 0.0f);
  out.sims = t.done;
  if (t.root_legal.size() == 1) {  // nothing to search
    out.action = t.root_legal[0];
    out.policy[out.action] = out.prior[out.action] = 1.0f;
    return;
  }
  const Node& r = t.nodes[0];
  const std::vector<Edge>& edges = r.edges;
  int k = static_cast<int>(edges.size());
  std::vector<int> visits(k);
  for (int j = 0; j < k; ++j) {
    visits[j] = edges[j].child >= 0 ? t.nodes[edges[j].child].visits : 0;
    out.visits[edges[j].action] = visits[j];
    out.prior[edges[j].action] = edges[j].prior;
  }
  for (int s = 0; s < t.root.n; ++s) out.values[s] = static_cast<float>(r.w[s] / r.visits);
  int best = 0;
  if (p_.gumbel_m > 0) {
    std::vector<double> sigma;
    root_scores(t, sigma);
    double top = NEG_INF, total = 0.0;
    for (int j = 0; j < k; ++j) top = std::max(top, edges[j].logit + sigma[j]);
    for (int j = 0; j < k; ++j) total += std::exp(edges[j].logit + sigma[j] - top);
    for (int j = 0; j < k; ++j)
      out.policy[edges[j].action] = static_cast<float>(std::exp(edges[j].logit + sigma[j] - top) / total);
    int most = 0;  // the most visited of the sampled actions, then the best score
    for (int j = 0; j < k; ++j)
      if (t.considered[j]) most = std::max(most, visits[j]);
    double best_score = NEG_INF;
    for (int j = 0; j < k; ++j) {
      double score = t.gumbel[j] + edges[j].logit + sigma[j];
      if (t.considered[j] && visits[j] == most && score > best_score) best = j, best_score = score;
    }
  } else {
    int64_t total = 0;
    for (int v : visits) total += v;
    for (int j = 0; j < k; ++j) {
      out.policy[edges[j].action] = total > 0 ? static_cast<float>(visits[j]) / total : edges[j].prior;
      if (visits[j] > visits[best] || (visits[j] == visits[best] && edges[j].prior > edges[best].prior))
        best = j;
    }
  }
  out.action = edges[best].action;
}

}  // namespace pk::search
