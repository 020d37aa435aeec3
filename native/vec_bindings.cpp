// nanobind module perikles_env._native_vec: the observation encoder in C++ (encoder.hpp) for
// NativeGame states, and the batched vector environment (vector_env.hpp).
// Wrapped by perikles_env/vector/native.py; docs/native.md "Vector environment".
//
// bindings.cpp is compiled into this module too (it is not linked to the other extension):
// that gives this module the same `configure` (component tables, checked against Python),
// the same field list, and the layout of `_native.Engine`, so that `encode` reads a
// NativeGame's C++ state in place, without copying it through Python. Its PyInit__native
// is never called here.
#include <nanobind/ndarray.h>

#include "bindings.cpp"
#include "encoder.hpp"
#include "vector_env.hpp"

// A named namespace: names here never clash with bindings.cpp's anonymous one.
namespace pk_vec {

using Obs1 = nb::ndarray<float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Obs2 = nb::ndarray<float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Mask2 = nb::ndarray<int8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using U64 = nb::ndarray<uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using F32x2 = nb::ndarray<float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Bool1 = nb::ndarray<bool, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using I32x2 = nb::ndarray<int32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// The checked C++ state behind a NativeGame's `_c` (a perikles_env._native.Engine).
Engine& engine_of(nb::handle c) {
  if (!nb::inst_check(c) || nb::type_name(c.type()).c_str() != std::string("perikles_env._native.Engine"))
    throw nb::type_error("expected a NativeGame's engine (perikles_env._native.Engine)");
  Engine& e = *nb::inst_ptr<Engine>(c);
  e.ensure_checked();  // edited fields: the engine's own consistency checks first
  return e;
}

void encode(nb::handle c, int player, Obs1 out, bool oracle) {
  Engine& e = engine_of(c);
  if (player < 0 || player >= e.g.n) throw nb::value_error("player: no such seat");
  size_t size = oracle ? pk::enc::ORACLE_SIZE : pk::enc::OBS_SIZE;
  if (out.shape(0) != size) throw nb::value_error("out: wrong length for this observation");
  pk::enc::encode(e.g, player, oracle, out.data());
}

struct PyVectorEnv {
  pk::VectorEnv env;
  PyVectorEnv(int num_envs, std::vector<int> counts, bool oracle, bool opponents, int seat, int threads,
              int64_t max_decisions)
      : env(checked(num_envs, std::move(counts), oracle, opponents, seat, threads, max_decisions)) {}

  static pk::VectorEnv checked(int num_envs, std::vector<int> counts, bool oracle, bool opponents, int seat,
                               int threads, int64_t max_decisions) {
    try {
      return pk::VectorEnv(num_envs, std::move(counts), oracle, opponents, seat, threads, max_decisions);
    } catch (const std::invalid_argument& e) {
      throw nb::value_error(e.what());
    }
  }

  pk::VecBuffers buffers(I32 current, Obs2 obs, Mask2 mask, F32x2 rewards, Bool1 terminated, Bool1 truncated,
                         I32x2 scores, I32x2 final_scores, I32 players, I32 decisions) {
    size_t n = static_cast<size_t>(env.num_envs());
    auto need = [](bool ok, const char* what) {
      if (!ok) throw nb::value_error(what);
    };
    need(current.shape(0) == n, "current: wrong shape");
    need(obs.shape(0) == n && obs.shape(1) == static_cast<size_t>(env.obs_size()), "obs: wrong shape");
    need(mask.shape(0) == n && mask.shape(1) == pk::NUM_ACTIONS, "mask: wrong shape");
    need(rewards.shape(0) == n && rewards.shape(1) == pk::MAXP, "rewards: wrong shape");
    need(terminated.shape(0) == n, "terminated: wrong shape");
    need(truncated.shape(0) == n, "truncated: wrong shape");
    need(scores.shape(0) == n && scores.shape(1) == pk::MAXP, "scores: wrong shape");
    need(final_scores.shape(0) == n && final_scores.shape(1) == pk::MAXP, "final_scores: wrong shape");
    need(players.shape(0) == n, "players: wrong shape");
    need(decisions.shape(0) == n, "decisions: wrong shape");
    return {current.data(),   obs.data(),          mask.data(),  rewards.data(),   terminated.data(),
            truncated.data(), scores.data(), final_scores.data(), players.data(), decisions.data()};
  }

  void reset(U64 seeds, I32 current, Obs2 obs, Mask2 mask, F32x2 rewards, Bool1 terminated, Bool1 truncated,
             I32x2 scores, I32x2 final_scores, I32 players, I32 decisions) {
    if (seeds.shape(0) != static_cast<size_t>(env.num_envs())) throw nb::value_error("seeds: wrong shape");
    pk::VecBuffers out =
        buffers(current, obs, mask, rewards, terminated, truncated, scores, final_scores, players, decisions);
    nb::gil_scoped_release release;
    env.reset(seeds.data(), out);
  }

  // -1 after stepping every game, or the index of a game whose action is illegal (then no
  // game changed).
  int step(I32 actions, I32 current, Obs2 obs, Mask2 mask, F32x2 rewards, Bool1 terminated, Bool1 truncated,
           I32x2 scores, I32x2 final_scores, I32 players, I32 decisions) {
    if (actions.shape(0) != static_cast<size_t>(env.num_envs())) throw nb::value_error("actions: wrong shape");
    pk::VecBuffers out =
        buffers(current, obs, mask, rewards, terminated, truncated, scores, final_scores, players, decisions);
    nb::gil_scoped_release release;
    int bad = env.first_illegal(actions.data());
    if (bad < 0) env.step(actions.data(), out);
    return bad;
  }

  void random_actions(I32 out) {
    if (out.shape(0) != static_cast<size_t>(env.num_envs())) throw nb::value_error("out: wrong shape");
    env.random_actions(out.data());
  }

  // Copies game i's state (or with `finished`, the last game it ended or cut) into a
  // NativeGame's engine: a per-game handle for Python code that reads a game, e.g. feature
  // blocks computed in Python.
  void copy_game(int i, nb::handle engine, bool finished) {
    if (i < 0 || i >= env.num_envs()) throw nb::index_error("no such game");
    Engine& e = engine_of(engine);
    e.g = finished ? env.finished(i) : env.game(i);
    e.legal_valid = false;
  }
};

}  // namespace pk_vec

NB_MODULE(_native_vec, m) {
  m.doc() = "C++ observation encoder and vector env (perikles_env/vector/native.py)";
  m.def("field_names", []() {
    std::vector<std::string> out;
    for (const Field& f : FIELDS) out.emplace_back(f.name);
    return out;
  });
  m.def("layout", []() {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& b : pk::enc::LAYOUT) out.emplace_back(b.name, b.size);
    return out;
  });
  m.attr("OBS_SIZE") = pk::enc::OBS_SIZE;
  m.attr("ORACLE_SIZE") = pk::enc::ORACLE_SIZE;
  m.attr("NUM_ACTIONS") = pk::NUM_ACTIONS;
  m.attr("MAX_PLAYERS") = pk::MAXP;
  m.attr("POLICY_SALT") = pk::VectorEnv::POLICY_SALT;
  m.def("encode", &pk_vec::encode, nb::arg("engine"), nb::arg("player"), nb::arg("out").noconvert(), nb::arg("oracle"),
        "Observation of `player` of a NativeGame's engine, written into `out` (float32).");
  nb::class_<pk_vec::PyVectorEnv>(m, "VectorEnv")
      .def(nb::init<int, std::vector<int>, bool, bool, int, int, int64_t>(), nb::arg("num_envs"),
           nb::arg("num_players"), nb::arg("oracle"), nb::arg("opponents"), nb::arg("seat"), nb::arg("threads"),
           nb::arg("max_decisions"))
      // noconvert: a converted temporary copy would silently swallow what C++ writes
      .def("reset", &pk_vec::PyVectorEnv::reset, nb::arg("seeds").noconvert(),
           nb::arg("current").noconvert(),
           nb::arg("obs").noconvert(),
           nb::arg("mask").noconvert(),
           nb::arg("rewards").noconvert(),
           nb::arg("terminated").noconvert(),
           nb::arg("truncated").noconvert(),
           nb::arg("scores").noconvert(),
           nb::arg("final_scores").noconvert(),
           nb::arg("players").noconvert(),
           nb::arg("decisions").noconvert())
      .def("step", &pk_vec::PyVectorEnv::step, nb::arg("actions").noconvert(),
           nb::arg("current").noconvert(),
           nb::arg("obs").noconvert(),
           nb::arg("mask").noconvert(),
           nb::arg("rewards").noconvert(),
           nb::arg("terminated").noconvert(),
           nb::arg("truncated").noconvert(),
           nb::arg("scores").noconvert(),
           nb::arg("final_scores").noconvert(),
           nb::arg("players").noconvert(),
           nb::arg("decisions").noconvert())
      .def("random_actions", &pk_vec::PyVectorEnv::random_actions, nb::arg("out").noconvert())
      .def("copy_game", &pk_vec::PyVectorEnv::copy_game, nb::arg("i"), nb::arg("engine"),
           nb::arg("finished") = false, "Copy game i's state (or its last finished game) into a NativeGame's engine.")
      .def_prop_ro("num_envs", [](const pk_vec::PyVectorEnv& v) { return v.env.num_envs(); })
      .def_prop_ro("obs_size", [](const pk_vec::PyVectorEnv& v) { return v.env.obs_size(); })
      .def("game_seed", [](const pk_vec::PyVectorEnv& v, int i) { return v.env.game_seed(i); })
      .def("episodes", [](const pk_vec::PyVectorEnv& v, int i) { return v.env.episodes(i); })
      .def("phase", [](const pk_vec::PyVectorEnv& v, int i) { return static_cast<int>(v.env.game(i).phase); });
}
