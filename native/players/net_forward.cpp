// The search network's forward pass (net_forward.hpp).
#include "players/net_forward.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "env/features.hpp"

namespace pk::search {

Dense::Dense(int in_, int out_, const float* w, const float* bias) : in(in_), out(out_) {
  if (in < 1 || out < 1) throw std::invalid_argument("a layer needs at least one input and one output");
  wt.resize(static_cast<size_t>(in) * out);
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; ++i) wt[static_cast<size_t>(i) * out + o] = w[static_cast<size_t>(o) * in + i];
  if (bias) b.assign(bias, bias + out);
}

void Dense::apply(const float* x, int x_stride, float* y, int y_stride, int rows) const {
  for (int r = 0; r < rows; ++r) {
    float* yr = y + static_cast<size_t>(r) * y_stride;
    if (b.empty()) std::fill(yr, yr + out, 0.0f);
    else std::copy(b.begin(), b.end(), yr);
  }
  for (int i = 0; i < in; ++i) {
    const float* __restrict row = wt.data() + static_cast<size_t>(i) * out;
    for (int r = 0; r < rows; ++r) {
      const float xi = x[static_cast<size_t>(r) * x_stride + i];
      if (xi == 0.0f) continue;
      float* __restrict yr = y + static_cast<size_t>(r) * y_stride;  // (the weights are the layer's own)
      for (int o = 0; o < out; ++o) yr[o] += xi * row[o];
    }
  }
}

namespace {
void need(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

int chain(const std::vector<Dense>& layers, int in, const char* what) {
  need(!layers.empty(), what);
  for (const Dense& d : layers) {
    need(d.in == in, what);
    in = d.out;
  }
  return in;
}
}  // namespace

NetForward::NetForward(NetWeights w, int obs_size) : w_(std::move(w)), obs_size_(obs_size) {
  state_size_ = obs_size - feat::ACTIONS_SIZE;
  need(state_size_ >= 1, "the observation has no state part before the per-action block");
  int latent = chain(w_.policy_trunk, state_size_, "policy trunk: the layers do not chain from the state part");
  int value = chain(w_.value_trunk, state_size_, "value trunk: the layers do not chain from the state part");
  need(w_.action_net.in == latent && w_.action_net.out == NUM_ACTIONS, "action_net: latent -> 957 expected");
  int hidden = w_.action_context.out;
  need(w_.action_context.in == latent, "action_context: latent inputs expected");
  need(w_.action_embed.in == feat::ACTION_PER && w_.action_embed.out == hidden && w_.action_embed.b.empty(),
       "action_embed: 9 -> the context's width, no bias expected");
  need(w_.score_hidden.in == hidden && w_.score_hidden.out == hidden, "action_score hidden layer: width mismatch");
  need(w_.score_out.in == hidden && w_.score_out.out == 1, "action_score output layer: one output expected");
  need(static_cast<int>(w_.action_linear.size()) == feat::ACTION_PER, "action_linear: 9 weights expected");
  need(w_.value_head.in == value && w_.value_head.out >= MINP && w_.value_head.out <= MAXP,
       "value_head: one output per seat (3 to 5) expected");
  need(!w_.players.empty() && std::is_sorted(w_.players.begin(), w_.players.end()) &&
           w_.players.front() >= MINP && w_.players.back() == w_.value_head.out,
       "players: increasing counts up to the value head's outputs expected");
  widest_ = 1;
  for (const auto* layers : {&w_.policy_trunk, &w_.value_trunk})
    for (const Dense& d : *layers) widest_ = std::max(widest_, d.out);
  blank_in_.resize(hidden);
  h_.resize(hidden);
  embed_.resize(hidden);
}

bool NetForward::plays(int n) const {
  return std::find(w_.players.begin(), w_.players.end(), n) != w_.players.end();
}

void NetForward::activate(float* x, int k) const {
  if (w_.tanh)
    for (int i = 0; i < k; ++i) x[i] = std::tanh(x[i]);
  else
    for (int i = 0; i < k; ++i) x[i] = std::max(x[i], 0.0f);
}

const float* NetForward::trunk(const std::vector<Dense>& layers, const float* x, int x_stride, int rows) {
  float* out = a_.data();
  for (const Dense& d : layers) {
    d.apply(x, x_stride, out, widest_, rows);
    for (int r = 0; r < rows; ++r) activate(out + static_cast<size_t>(r) * widest_, d.out);
    x = out;
    x_stride = widest_;
    out = out == a_.data() ? b_.data() : a_.data();
  }
  return x;
}

float NetForward::score(const float* x) {
  int k = w_.score_hidden.in;
  std::copy(x, x + k, blank_in_.begin());
  activate(blank_in_.data(), k);
  w_.score_hidden.apply(blank_in_.data(), h_.data());
  activate(h_.data(), k);
  float s;
  w_.score_out.apply(h_.data(), &s);
  return s;
}

void NetForward::evaluate(int rows, const float* obs, const int* players, float prior_temp, float* logits,
                          float* values) {
  for (int r = 0; r < rows; ++r) need(plays(players[r]), "a row of a player count this network does not play");
  const size_t need_rows = static_cast<size_t>(std::max(rows, 1));
  if (a_.size() < need_rows * widest_) a_.resize(need_rows * widest_), b_.resize(need_rows * widest_);
  const int latent_size = w_.action_net.in, hidden = w_.action_context.out, seats = w_.value_head.out;
  latent_.resize(need_rows * latent_size);
  ctx_.resize(need_rows * hidden);
  const float* latent = trunk(w_.policy_trunk, obs, obs_size_, rows);
  for (int r = 0; r < rows; ++r)
    std::copy(latent + static_cast<size_t>(r) * widest_, latent + static_cast<size_t>(r) * widest_ + latent_size,
              latent_.begin() + static_cast<size_t>(r) * latent_size);
  w_.action_net.apply(latent_.data(), latent_size, logits, NUM_ACTIONS, rows);
  w_.action_context.apply(latent_.data(), latent_size, ctx_.data(), hidden, rows);
  for (int r = 0; r < rows; ++r) {
    float* row_logits = logits + static_cast<size_t>(r) * NUM_ACTIONS;
    const float* ctx = ctx_.data() + static_cast<size_t>(r) * hidden;
    const float blank = score(ctx);
    for (int a = 0; a < NUM_ACTIONS; ++a) row_logits[a] += blank;
    // scored ids: own = score(ctx + embed(f)) - blank + action_linear . f (action_scoring.scored_parts)
    const float* per_action = obs + static_cast<size_t>(r) * obs_size_ + state_size_;
    std::vector<float>& x = embed_;
    for (int a = 0; a < NUM_ACTIONS; ++a) {
      const float* f = per_action + static_cast<size_t>(a) * feat::ACTION_PER;
      if (!(f[feat::SCORED] > 0.0f)) continue;
      w_.action_embed.apply(f, x.data());
      for (int j = 0; j < hidden; ++j) x[j] += ctx[j];
      float linear = 0.0f;
      for (int c = 0; c < feat::ACTION_PER; ++c) linear += w_.action_linear[c] * f[c];
      row_logits[a] += (score(x.data()) - blank) + linear;
    }
    if (prior_temp != 1.0f)
      for (int a = 0; a < NUM_ACTIONS; ++a) row_logits[a] /= prior_temp;
  }
  const float* v = trunk(w_.value_trunk, obs, obs_size_, rows);
  for (int r = 0; r < rows; ++r) {
    const int n = players[r];
    float raw[MAXP];
    float* out = values + static_cast<size_t>(r) * seats;
    w_.value_head.apply(v + static_cast<size_t>(r) * widest_, raw);
    float top = raw[0], total = 0.0f;
    for (int k = 1; k < n; ++k) top = std::max(top, raw[k]);
    for (int k = 0; k < seats; ++k) total += out[k] = k < n ? std::exp(raw[k] - top) : 0.0f;
    for (int k = 0; k < n; ++k) out[k] /= total;
  }
}

}  // namespace pk::search
