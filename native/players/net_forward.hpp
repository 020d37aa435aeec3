// The search network's forward pass in C++ (agents/search/network.py SearchNet, the
// readable reference, trained in torch): policy logits and per-seat win shares of one leaf,
// so that a search with a network needs no call back into Python per leaf. A frozen copy of
// the weights; the arithmetic is float32 as in torch, in another order of summation, so the
// outputs agree with torch's to rounding (tests/agents/test_search_native_net.py), not bit for bit.
//
// Each layer keeps its weights transposed ([in][out]) and adds one input's row at a time,
// skipping zero inputs: an observation is mostly zeros (one-hot blocks, empty per-action rows),
// and the rows vectorise without reordering any output's sum. A batch goes through each layer
// together, every weight row used for all its rows while it is in cache; each output is
// still summed in input order, so a row's answer does not depend on the rows beside it.
#pragma once

#include <vector>

#include "engine/game.hpp"

namespace pk::search {

// y = W x + b of torch.nn.Linear, W given as torch stores it ([out][in], row-major).
struct Dense {
  int in = 0, out = 0;
  std::vector<float> wt;  // [in][out]
  std::vector<float> b;   // [out], empty: no bias
  Dense() = default;
  Dense(int in_, int out_, const float* w, const float* bias);
  void apply(const float* x, float* y) const { apply(x, 0, y, 0, 1); }
  // `rows` inputs x[r * x_stride ...] -> outputs y[r * y_stride ...].
  void apply(const float* x, int x_stride, float* y, int y_stride, int rows) const;
};

// The layers of a SearchNet (NetSettings: policy_arch, value_arch, activation, players).
struct NetWeights {
  std::vector<Dense> policy_trunk, value_trunk;  // each followed by the activation
  Dense action_net;                              // the flat head: latent -> NUM_ACTIONS
  Dense action_context, action_embed;            // the scorer (action_scoring.py)
  Dense score_hidden, score_out;                 // action_score: act, Linear, act, Linear(., 1)
  std::vector<float> action_linear;              // [ACTION_PER]
  Dense value_head;                              // -> num_players
  bool tanh = false;                             // else relu
  std::vector<int> players;                      // the counts it plays, increasing
};

class NetForward {
 public:
  // Throws std::invalid_argument when the layers do not chain (sizes) or do not fit
  // `obs_size` (the state part plus the per-action block last).
  NetForward(NetWeights w, int obs_size);
  int num_players() const { return w_.value_head.out; }
  bool plays(int n) const;
  // `rows` rows: obs [rows][obs_size], row r of a game of players[r] players -> logits
  // [rows][NUM_ACTIONS] (every id, as the heads give them, each divided by `prior_temp`) and
  // values [rows][num_players] (softmax over the row's first players[r], 0 after). Throws
  // std::invalid_argument, before writing anything, unless it plays every row's count.
  void evaluate(int rows, const float* obs, const int* players, float prior_temp, float* logits,
                float* values);

 private:
  NetWeights w_;
  int obs_size_, state_size_, widest_;
  std::vector<float> a_, b_, latent_, ctx_, blank_in_, h_, embed_;

  // The trunk on `rows` rows of x (stride x_stride): a pointer to its output rows (stride widest_).
  const float* trunk(const std::vector<Dense>& layers, const float* x, int x_stride, int rows);
  float score(const float* x);  // action_score(x): act, Linear, act, Linear
  void activate(float* x, int k) const;
};

}  // namespace pk::search
