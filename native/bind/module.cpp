// perikles_env._native: the one nanobind module over the C++ core. engine/native.py wraps
// `Engine` into a read-only NativeGame, perikles_env/vector wraps `VectorEnv` and `encode`,
// the heuristic agent and the feature blocks call the league functions. One binding file
// per part: bind/engine.cpp, bind/vector.cpp, bind/agents.cpp, bind/search.cpp (shared:
// bind/common.hpp).
#include "bind/common.hpp"

namespace pk::bind {
void bind_engine(nb::module_& m);
void bind_vector(nb::module_& m);
void bind_agents(nb::module_& m);
void bind_search(nb::module_& m);
}  // namespace pk::bind

NB_MODULE(_native, m) {
  m.doc() = "The C++ core of perikles_env (engine, observation encoder, vector env, league, search).";
  pk::bind::bind_engine(m);
  pk::bind::bind_vector(m);
  pk::bind::bind_agents(m);
  pk::bind::bind_search(m);
}
