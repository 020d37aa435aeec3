// Policy/value-guided IS-MCTS on the C++ core, batched: many searches at once (one per
// decision, each with its own tree), whose leaves are handed to the caller for a network
// evaluation in one batch and fed back (docs/agents.md "Search with a network").
//
//   Search s(params);  s.start(roots, players, seeds);
//   while ((n = s.collect(out))) s.feed(n, logits, values);   // the caller's network
//   s.result(i, ...);
//
// or, with the network's weights attached (net_forward.hpp), the whole loop in C++:
//
//   s.set_net(weights);  s.start(...);  s.run(rows, seconds, prior_temp);  s.result(i, ...);
//
// A simulation of search i determinizes a copy of its root game for the searching player
// (Game::determinize with the next seed of the search's SplitMix64 stream), walks the tree
// on that sample (only the actions legal in the sample compete; decisions with one legal
// action are applied without a node) until an unexpanded node (written out for evaluation)
// or the end of the game (exact win shares, backed up at once). Every node stores the sum of
// each seat's value, so the seat acting at a node (which may differ between samples) maximises
// its own component. The search reads its root game only through determinize and the
// searching player's legal actions. Definitions in search.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/game.hpp"
#include "engine/generated/params.hpp"  // Params: agents/search/params.py SearchParams, generated
#include "players/net_forward.hpp"

namespace pk::search {

// Throws std::invalid_argument naming the bad parameter.
void check(const Params& p);

// The PUCT choice among k children: argmax of Q + c_puct * prior * sqrt(max(1, sum visits))
// / (1 + visits), Q = value_sum / visits, or parent_q - fpu while unvisited; priors are
// renormalised over the k; ties go to the lowest index.
int puct_pick(int k, const double* prior, const int* visits, const double* value_sum,
              double parent_q, double c_puct, double fpu);
// Sequential halving's schedule (Danihelka et al. 2022; mctx get_sequence_of_considered_visits):
// the visit count the root action of simulation j must have, for `considered` actions.
std::vector<int> considered_visits(int considered, int sims);
// Completed Q of k root actions (the mixed value for unvisited ones), min-max rescaled to
// [0, 1] when `rescale` (else the win shares as they are) and scaled by sigma:
// (c_visit + max visits) * c_scale * q. prior: softmax of the logits.
void completed_q(int k, const double* prior, const int* visits, const double* q, double raw_value,
                 double c_visit, double c_scale, bool rescale, double* out);

struct Edge {
  int action;
  float logit;    // the evaluator's logit (0 for an action first seen in a later sample)
  float prior;    // softmax over the legal logits at expansion; 1/|legal| if seen later
  int32_t child;  // node index, -1 before the first visit
};

struct Node {
  std::vector<Edge> edges;  // increasing action ids
  double w[MAXP] = {};      // sum of backed-up values per seat
  double raw[MAXP] = {};    // the evaluator's values at expansion, per seat
  int32_t visits = 0, inflight = 0;
  bool expanded = false, pending = false;
};

// One leaf handed out for evaluation.
struct Leaf {
  int search;
  int actor;  // the seat whose observation the row holds
  int n;      // players
  double rollout[MAXP];  // the playout's win shares per absolute seat (rollout_mix > 0)
  std::vector<int32_t> path;
  Actions legal;
};

struct Tree {
  Game root;
  int player = 0;
  Rng rng;
  Actions root_legal;
  std::vector<Node> nodes;
  std::vector<double> gumbel;  // per root edge (empty before the root's expansion)
  std::vector<char> considered;  // per root edge: among the m sampled
  std::vector<int> schedule;   // considered_visits(...)
  int started = 0, done = 0, inflight = 0;
  bool blocked = false;        // a collision ended this search's share of the current batch
};

struct Buffers {  // row-major views of the caller's arrays, `rows` rows
  float* obs;
  bool* mask;
  int rows;
};

// What a finished search reports (NUM_ACTIONS-long arrays, MAXP-long values).
struct Result {
  int action;
  int sims;          // simulations completed after the root's evaluation
  float* policy;     // the improved policy target over the root's legal actions
  int32_t* visits;   // root visits per action
  float* prior;      // softmax of the root logits over the legal actions
  float* values;     // the root's mean value per absolute seat (0 past n, and with no evaluation)
};

class Search {
 public:
  explicit Search(Params p);
  int obs_size() const { return obs_size_; }
  int num_searches() const { return static_cast<int>(trees_.size()); }
  int pending() const { return static_cast<int>(leaves_.size()); }
  // New searches (the old ones are dropped): root i is roots[i] (copied; a live decision of
  // players[i]), its stream SplitMix64(seeds[i]). Throws std::invalid_argument.
  void start(const std::vector<const Game*>& roots, const std::vector<int>& players,
             const std::vector<uint64_t>& seeds);
  // Runs simulations, round-robin over the searches, until `out.rows` leaves await
  // evaluation or no search can go on; writes each leaf's observation and legal mask to
  // its row and returns the count (0: every search is finished). Feed them before the next call.
  int collect(Buffers out);
  // The evaluation of the last collect's rows: logits [n][NUM_ACTIONS], values [n][width]
  // (values[r][k]: seat (actor + k) % n, width >= every row's n). Checks everything before
  // changing anything (std::invalid_argument).
  void feed(int n, const float* logits, const float* values, int width);
  // No new simulation starts in a search that has completed or started one (a time budget).
  void stop() { stopped_ = true; }
  // Attaches a copy of a network (std::invalid_argument unless its layers fit this search's
  // observations, the per-action block last); `run` then evaluates the leaves with it.
  void set_net(NetWeights weights);
  bool has_net() const { return net_ != nullptr; }
  struct RunCounts {
    int64_t evaluations = 0, calls = 0;
  };
  // collect and feed with the attached network until every search is finished, `rows` leaves
  // a batch, each logit divided by `prior_temp`; once `seconds` (> 0) of wall clock have
  // passed after a batch, stop(). The loop of agents/search/puct.py, without a Python call
  // per batch. Throws std::invalid_argument without a network.
  RunCounts run(int rows, double seconds, float prior_temp);
  // The attached network on n observation rows (players[r]: row r's player count): logits
  // [n][NUM_ACTIONS], values [n][width], width its num_players. Checks everything first.
  void net_evaluate(int n, const float* obs, const int* players, float prior_temp, float* logits,
                    float* values, int width);
  bool finished(int i) const;
  void result(int i, Result& out) const;

 private:
  enum Outcome { LEAF, BACKED_UP, COLLISION };
  Params p_;
  int obs_size_;
  bool stopped_ = false;
  std::vector<Tree> trees_;
  std::vector<Leaf> leaves_;
  Game sample_;
  Actions legal_;
  std::vector<double> scratch_prior_, scratch_w_, scratch_q_;
  std::vector<int> scratch_n_, scratch_idx_;
  Game playout_;
  std::unique_ptr<NetForward> net_;
  std::vector<float> net_obs_, net_logits_, net_values_;
  std::unique_ptr<bool[]> net_mask_;
  int net_rows_ = 0;
  Actions ai_legal_;
  std::vector<double> ai_scores_;

  bool can_start(const Tree& t) const;
  void advance(Tree& t, Game& g);  // past forced (and modelled opponents') decisions
  Outcome simulate(int i, Buffers out, int row);
  int select(Tree& t, int node, const Actions& legal, int actor);
  int select_root(Tree& t, const Actions& legal);
  int child_of(Tree& t, int node, int action);
  void write_leaf(int i, const Game& g, std::vector<int32_t>& path, Buffers out, int row);
  void backup(Tree& t, const std::vector<int32_t>& path, const double* v, bool from_leaf);
  void expand(Tree& t, int node, const Actions& legal, const float* logits, const double* v);
  void root_scores(const Tree& t, std::vector<double>& sigma) const;  // completed Q per root edge
};

}  // namespace pk::search
