// perikles_env._native.Search: the batched network-guided IS-MCTS (search.hpp) over
// caller-owned arrays, one thread at a time (a second gets RuntimeError, never waits), and
// its selection rules as pure functions for tests. agents/search/puct.py drives it.
#include "bind/common.hpp"

namespace pk::bind {
namespace {

struct PySearch {
  pk::search::Search search;
  std::mutex busy;

  static pk::search::Search make(pk::search::Params p) {
    try {
      return pk::search::Search(std::move(p));
    } catch (const std::invalid_argument& e) {
      throw nb::value_error(e.what());
    }
  }
  explicit PySearch(pk::search::Params p) : search(make(std::move(p))) {}

  std::unique_lock<std::mutex> exclusive() {
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) throw std::runtime_error("Search in use by another thread");
    return lock;
  }
  template <class Fn>
  static auto checked(Fn fn) {  // the core's refusals as ValueError
    try {
      return fn();
    } catch (const std::invalid_argument& e) {
      throw nb::value_error(e.what());
    }
  }
};

using Weight = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Bias = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A torch.nn.Linear as (weight [out, in], bias [out] or None), float32.
pk::search::Dense dense(nb::handle layer) {
  nb::tuple pair = nb::cast<nb::tuple>(layer);
  need(pair.size() == 2, "a layer is a (weight, bias) pair");
  Weight w = nb::cast<Weight>(pair[0]);
  const float* bias = nullptr;
  if (!pair[1].is_none()) {
    Bias b = nb::cast<Bias>(pair[1]);
    need(b.shape(0) == w.shape(0), "a layer's bias needs one entry per output");
    bias = b.data();
  }
  need(w.shape(0) >= 1 && w.shape(1) >= 1 && w.shape(0) <= 4096 && w.shape(1) <= 1 << 16,
       "a layer's weight must be [out, in] with 1..4096 outputs");
  return pk::search::Dense(static_cast<int>(w.shape(1)), static_cast<int>(w.shape(0)), w.data(), bias);
}

std::vector<pk::search::Dense> layers(nb::list list) {
  std::vector<pk::search::Dense> out;
  for (nb::handle h : list) out.push_back(dense(h));
  return out;
}

std::vector<double> completed(const std::vector<double>& prior, const std::vector<int>& visits,
                              const std::vector<double>& q, double raw, double c_visit, double c_scale,
                              bool rescale) {
  need(prior.size() == visits.size() && q.size() == visits.size(), "one prior, visit count and q per action");
  std::vector<double> out(prior.size());
  pk::search::completed_q(static_cast<int>(prior.size()), prior.data(), visits.data(), q.data(), raw,
                          c_visit, c_scale, rescale, out.data());
  return out;
}

}  // namespace

void bind_search(nb::module_& m) {
  nb::class_<PySearch>(m, "Search")
      // the arguments of generated/params.hpp's Params, by name, then the feature blocks
      .def("__init__", [](PySearch* self, PK_SEARCH_PARAM_DECL, std::vector<int> features) {
        new (self) PySearch(pk::search::Params{PK_SEARCH_PARAM_LIST, std::move(features)});
      }, PK_SEARCH_PARAM_NAMES, nb::arg("features"))
      .def("start", [](PySearch& s, nb::list engines, std::vector<int> players, std::vector<uint64_t> seeds) {
        std::vector<const Game*> roots;
        for (nb::handle h : engines) roots.push_back(&nb::cast<Engine&>(h).game());
        auto lock = s.exclusive();
        PySearch::checked([&] { s.search.start(roots, players, seeds); return 0; });
      }, nb::arg("engines"), nb::arg("players"), nb::arg("seeds"))
      // noconvert: a converted temporary copy would silently swallow what C++ writes
      .def("collect", [](PySearch& s, Array<float, 2> obs, Array<bool, 2> mask) {
        need(obs.shape(1) == static_cast<size_t>(s.search.obs_size()), "obs: wrong width for these features");
        need(mask.shape(1) == static_cast<size_t>(pk::NUM_ACTIONS), "mask: wrong width (957 expected)");
        need(obs.shape(0) == mask.shape(0) && obs.shape(0) >= 1 && obs.shape(0) <= (1 << 20),
             "obs and mask need the same number of rows (at least one)");
        auto lock = s.exclusive();
        nb::gil_scoped_release release;
        return PySearch::checked([&] {
          return s.search.collect({obs.data(), mask.data(), static_cast<int>(obs.shape(0))});
        });
      }, nb::arg("obs").noconvert(), nb::arg("mask").noconvert())
      .def("feed", [](PySearch& s, Array<float, 2> logits, Array<float, 2> values) {
        need(logits.shape(1) == static_cast<size_t>(pk::NUM_ACTIONS), "logits: wrong width (957 expected)");
        need(values.shape(0) == logits.shape(0), "logits and values need the same number of rows");
        need(values.shape(1) >= 1 && values.shape(1) <= 64, "values: 1 to 64 columns expected");
        auto lock = s.exclusive();
        nb::gil_scoped_release release;
        PySearch::checked([&] {
          s.search.feed(static_cast<int>(logits.shape(0)), logits.data(), values.data(),
                        static_cast<int>(values.shape(1)));
          return 0;
        });
      }, nb::arg("logits").noconvert(), nb::arg("values").noconvert())
      .def("stop", [](PySearch& s) { auto lock = s.exclusive(); s.search.stop(); })
      // a SearchNet's layers (agents/search/native_net.py), copied: later changes to the
      // arrays do not reach the search until set_net is called again
      .def("set_net", [](PySearch& s, nb::list policy_trunk, nb::list value_trunk, nb::handle action_net,
                         nb::handle action_context, nb::handle action_embed, nb::handle score_hidden,
                         nb::handle score_out, Bias action_linear, nb::handle value_head, bool tanh,
                         std::vector<int> players) {
        pk::search::NetWeights w;
        PySearch::checked([&] {
          w.policy_trunk = layers(policy_trunk);
          w.value_trunk = layers(value_trunk);
          w.action_net = dense(action_net);
          w.action_context = dense(action_context);
          w.action_embed = dense(action_embed);
          w.score_hidden = dense(score_hidden);
          w.score_out = dense(score_out);
          w.action_linear.assign(action_linear.data(), action_linear.data() + action_linear.shape(0));
          w.value_head = dense(value_head);
          return 0;
        });
        w.tanh = tanh;
        w.players = std::move(players);
        auto lock = s.exclusive();
        PySearch::checked([&] { s.search.set_net(std::move(w)); return 0; });
      }, nb::arg("policy_trunk"), nb::arg("value_trunk"), nb::arg("action_net"), nb::arg("action_context"),
         nb::arg("action_embed"), nb::arg("score_hidden"), nb::arg("score_out"), nb::arg("action_linear"),
         nb::arg("value_head"), nb::arg("tanh"), nb::arg("players"))
      .def_prop_ro("has_net", [](PySearch& s) { return s.search.has_net(); })
      .def("run", [](PySearch& s, int rows, double seconds, float prior_temp) {
        need(rows >= 1 && rows <= (1 << 16), "rows must be 1 to 65536");
        auto lock = s.exclusive();
        nb::gil_scoped_release release;
        auto counts = PySearch::checked([&] { return s.search.run(rows, seconds, prior_temp); });
        return std::make_pair(counts.evaluations, counts.calls);
      }, nb::arg("rows"), nb::arg("seconds"), nb::arg("prior_temp"))
      // the attached network on rows of observations of n-player games (tests, benchmarks)
      .def("net_evaluate", [](PySearch& s, Array<float, 2> obs, std::vector<int> players, float prior_temp,
                              Array<float, 2> logits, Array<float, 2> values) {
        need(obs.shape(1) == static_cast<size_t>(s.search.obs_size()), "obs: wrong width for these features");
        need(players.size() == obs.shape(0) && logits.shape(0) == obs.shape(0) && values.shape(0) == obs.shape(0),
             "one player count, logits row and values row per observation");
        need(logits.shape(1) == static_cast<size_t>(pk::NUM_ACTIONS), "logits: wrong width (957 expected)");
        auto lock = s.exclusive();
        PySearch::checked([&] {
          s.search.net_evaluate(static_cast<int>(obs.shape(0)), obs.data(), players.data(), prior_temp,
                                logits.data(), values.data(), static_cast<int>(values.shape(1)));
          return 0;
        });
      }, nb::arg("obs").noconvert(), nb::arg("players"), nb::arg("prior_temp"), nb::arg("logits").noconvert(),
         nb::arg("values").noconvert())
      .def("results", [](PySearch& s, Array<int32_t> actions, Array<int32_t> sims, Array<float, 2> policy,
                         Array<int32_t, 2> visits, Array<float, 2> prior, Array<float, 2> values) {
        auto lock = s.exclusive();
        size_t n = static_cast<size_t>(s.search.num_searches()), a = pk::NUM_ACTIONS;
        need(actions.shape(0) == n && sims.shape(0) == n, "actions, sims: one entry per search expected");
        need(policy.shape(0) == n && policy.shape(1) == a && visits.shape(0) == n && visits.shape(1) == a &&
                 prior.shape(0) == n && prior.shape(1) == a, "policy, visits, prior: [searches, 957] expected");
        need(values.shape(0) == n && values.shape(1) == static_cast<size_t>(pk::MAXP), "values: [searches, 5] expected");
        for (size_t i = 0; i < n; ++i)
          need(s.search.finished(static_cast<int>(i)), "a search is not finished: collect and feed until collect returns 0");
        for (size_t i = 0; i < n; ++i) {
          pk::search::Result r{0, 0, policy.data() + i * a, visits.data() + i * a, prior.data() + i * a,
                               values.data() + i * pk::MAXP};
          s.search.result(static_cast<int>(i), r);
          actions.data()[i] = r.action;
          sims.data()[i] = r.sims;
        }
      }, nb::arg("actions").noconvert(), nb::arg("sims").noconvert(), nb::arg("policy").noconvert(),
         nb::arg("visits").noconvert(), nb::arg("prior").noconvert(), nb::arg("values").noconvert())
      .def_prop_ro("obs_size", [](PySearch& s) { return s.search.obs_size(); })
      .def_prop_ro("num_searches", [](PySearch& s) { return s.search.num_searches(); })
      .def_prop_ro("pending", [](PySearch& s) { return s.search.pending(); });

  m.def("puct_pick", [](const std::vector<double>& prior, const std::vector<int>& visits,
                        const std::vector<double>& value_sum, double parent_q, double c_puct, double fpu) {
    need(!prior.empty() && prior.size() == visits.size() && prior.size() == value_sum.size(),
         "one prior, visit count and value sum per child (at least one)");
    return pk::search::puct_pick(static_cast<int>(prior.size()), prior.data(), visits.data(),
                                 value_sum.data(), parent_q, c_puct, fpu);
  }, nb::arg("prior"), nb::arg("visits"), nb::arg("value_sum"), nb::arg("parent_q"),
     nb::arg("c_puct"), nb::arg("fpu"));
  m.def("considered_visits", [](int considered, int sims) {
    need(considered >= 0 && sims >= 0 && sims <= (1 << 20), "considered and sims must be >= 0");
    return pk::search::considered_visits(considered, sims);
  }, nb::arg("considered"), nb::arg("sims"));
  m.def("completed_q", &completed, nb::arg("prior"), nb::arg("visits"), nb::arg("q"), nb::arg("raw_value"),
        nb::arg("c_visit"), nb::arg("c_scale"), nb::arg("rescale") = true);
}

}  // namespace pk::bind
