// perikles_env._native.VectorEnv: the batched env (vector_env.hpp) over caller-owned arrays,
// one thread at a time (a second gets RuntimeError, never waits).
#include "bind/common.hpp"
#include <nanobind/stl/tuple.h>

#include <utility>

namespace pk::bind {
namespace {
// (controller, then ai::Params' members in order twice: each knob's low end, then its high
// end; equal for a fixed personality): one opponent (vector_env.hpp).
using OpponentTuple = std::tuple<int, PK_AI_PARAM_TYPES, PK_AI_PARAM_TYPES>;
constexpr size_t KNOBS = std::tuple_size_v<std::tuple<PK_AI_PARAM_TYPES>>;

template <size_t... I>
pk::Opponent opponent_of(const OpponentTuple& t, std::index_sequence<I...>) {
  return pk::Opponent{std::get<0>(t), pk::ai::Params{std::get<1 + I>(t)...},
                      pk::ai::Params{std::get<1 + KNOBS + I>(t)...}};
}

struct PyVectorEnv {
  pk::VectorEnv env;
  std::mutex busy;
  bool started = false;
  pk::VecBuffers out{};
  std::vector<int32_t> actions;  // step's own copy of the caller's actions, taken under `busy`
  std::tuple<Array<int32_t>, Array<float, 2>, Array<int8_t, 2>, Array<float, 2>, Array<bool>,
             Array<bool>, Array<int32_t, 2>, Array<int32_t, 2>, Array<int32_t>, Array<int32_t>, Array<int32_t>>
      held;  // the arrays behind `out`, kept alive

  PyVectorEnv(int num_envs, std::vector<int> counts, bool oracle, std::vector<int> features,
              std::vector<OpponentTuple> opponents, std::vector<double> weights,
              double same_table, int seat, int threads, int64_t max_decisions)
      : env(make(num_envs, std::move(counts), oracle, std::move(features), opponents,
                 std::move(weights), same_table, seat, threads, max_decisions)) {}
  static pk::VectorEnv make(int num_envs, std::vector<int> counts, bool oracle,
                            std::vector<int> features, const std::vector<OpponentTuple>& opponents,
                            std::vector<double> weights, double same_table, int seat, int threads,
                            int64_t max_decisions) {
    need(num_envs >= 1 && num_envs <= (1 << 14) && threads >= 1 && threads <= 64, "num_envs or threads");
    std::vector<pk::Opponent> league;
    for (const auto& opponent : opponents) {
      pk::Opponent o = opponent_of(opponent, std::make_index_sequence<KNOBS>{});
      if (const char* why = pk::ai::invalid(o.params)) throw nb::value_error(why);
      if (const char* why = pk::ai::invalid(o.high)) throw nb::value_error(why);
      league.push_back(o);
    }
    try {
      return pk::VectorEnv(num_envs, std::move(counts), oracle, std::move(features), std::move(league),
                           std::move(weights), same_table, seat, threads, max_decisions,
                           &pk::ai::score_actions);
    } catch (const std::invalid_argument& e) {
      throw nb::value_error(e.what());
    }
  }
  // The env, locked for this call; `rows`: the length of the call's per-game array.
  std::unique_lock<std::mutex> exclusive(bool needs_reset = true, size_t rows = 0) {
    need(rows == 0 || rows == static_cast<size_t>(env.num_envs()), "one entry per game expected");
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) throw std::runtime_error("VectorEnv in use by another thread");
    need(out.current != nullptr, "attach the buffers first");
    need(started || !needs_reset, "call reset() first");
    return lock;
  }
  int index(int i) { return need(i >= 0 && i < env.num_envs(), "no such game"), i; }
  // The caller's output arrays, handed over once (checked here, written by every call).
  void attach(Array<int32_t> cur, Array<float, 2> obs, Array<int8_t, 2> mask, Array<float, 2> rew,
              Array<bool> term, Array<bool> trunc, Array<int32_t, 2> sc, Array<int32_t, 2> fin,
              Array<int32_t> pl, Array<int32_t> dec, Array<int32_t> ctl) {
    size_t n = static_cast<size_t>(env.num_envs()), seats = pk::MAXP;
    need(cur.shape(0) == n && term.shape(0) == n && trunc.shape(0) == n && pl.shape(0) == n &&
             dec.shape(0) == n && ctl.shape(0) == n, "a per-game buffer has the wrong shape");
    need(obs.shape(0) == n && obs.shape(1) == static_cast<size_t>(env.obs_size()), "obs: wrong shape");
    need(mask.shape(0) == n && mask.shape(1) == pk::NUM_ACTIONS, "mask: wrong shape");
    need(rew.shape(0) == n && rew.shape(1) == seats && sc.shape(0) == n && sc.shape(1) == seats &&
             fin.shape(0) == n && fin.shape(1) == seats, "a per-seat buffer has the wrong shape");
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) throw std::runtime_error("VectorEnv in use by another thread");
    held = {cur, obs, mask, rew, term, trunc, sc, fin, pl, dec, ctl};
    out = {cur.data(), obs.data(), mask.data(), rew.data(), term.data(), trunc.data(),
           sc.data(), fin.data(), pl.data(), dec.data(), ctl.data()};
  }
};

}  // namespace

void bind_vector(nb::module_& m) {
  nb::class_<PyVectorEnv>(m, "VectorEnv")
      .def(nb::init<int, std::vector<int>, bool, std::vector<int>, std::vector<OpponentTuple>,
                    std::vector<double>, double, int, int, int64_t>())
      // noconvert: a converted temporary copy would silently swallow what C++ writes
      .def("attach", &PyVectorEnv::attach, nb::arg("current").noconvert(), nb::arg("obs").noconvert(),
           nb::arg("mask").noconvert(), nb::arg("rewards").noconvert(), nb::arg("terminated").noconvert(),
           nb::arg("truncated").noconvert(), nb::arg("scores").noconvert(),
           nb::arg("final_scores").noconvert(), nb::arg("players").noconvert(),
           nb::arg("decisions").noconvert(), nb::arg("controller").noconvert())
      .def("reset", [](PyVectorEnv& v, Array<uint64_t> seeds) {
        auto lock = v.exclusive(false, seeds.shape(0));
        nb::gil_scoped_release release;
        v.env.reset(seeds.data(), v.out);
        v.started = true;
      }, nb::arg("seeds").noconvert())
      // -1 after stepping every game, or the first game whose action is illegal (none changed)
      .def("step", [](PyVectorEnv& v, Array<int32_t> actions) {
        auto lock = v.exclusive(true, actions.shape(0));
        // checked and applied from the env's own copy: the caller's array may change meanwhile
        v.actions.assign(actions.data(), actions.data() + actions.shape(0));
        nb::gil_scoped_release release;
        int bad = v.env.first_illegal(v.actions.data());
        if (bad < 0) v.env.step(v.actions.data(), v.out);
        return bad;
      }, nb::arg("actions").noconvert())
      .def("random_actions", [](PyVectorEnv& v, Array<int32_t> out) {
        auto lock = v.exclusive(true, out.shape(0));
        v.env.random_actions(out.data());
      }, nb::arg("out").noconvert())
      .def("game", [](PyVectorEnv& v, int i, bool finished) {
        auto lock = v.exclusive();
        auto e = std::make_unique<Engine>();
        e->g = finished ? v.env.finished(v.index(i)) : v.env.game(v.index(i));
        return e.release();
      }, nb::rv_policy::take_ownership)
      .def("set_weights", [](PyVectorEnv& v, const std::vector<double>& weights, double same_table) {
        auto lock = v.exclusive(false);
        try {
          v.env.set_weights(weights, same_table);
        } catch (const std::invalid_argument& e) {
          throw nb::value_error(e.what());
        }
      })
      .def("seat_opponents", [](PyVectorEnv& v, int i, bool finished) {
        auto lock = v.exclusive();
        const int8_t* seats = v.env.seat_opponents(v.index(i), finished);
        std::vector<int> out(seats, seats + pk::MAXP);
        return out;
      })
      .def_prop_ro("num_envs", [](PyVectorEnv& v) { return v.env.num_envs(); })
      .def_prop_ro("obs_size", [](PyVectorEnv& v) { return v.env.obs_size(); })
      .def("game_seed", [](PyVectorEnv& v, int i) { auto l = v.exclusive(); return v.env.game_seed(v.index(i)); })
      .def("episodes", [](PyVectorEnv& v, int i) { auto l = v.exclusive(); return v.env.episodes(v.index(i)); });
}

}  // namespace pk::bind
