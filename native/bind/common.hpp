// native/bind/: the nanobind module perikles_env._native, the top floor of native/ (it may
// include every other folder; nothing includes it). This header is its table of contents and
// what the binding files share: the array type, argument checks and `Engine`, one game as
// Python holds it.
//
//   module.cpp   the module: calls each file's bind_* function
//   engine.cpp   `Engine` (one game, wrapped by engine/native.py), `encode`, `layout`
//   vector.cpp   `VectorEnv` (wrapped by perikles_env/vector), handed players/'s heuristic
//   agents.cpp   the heuristic player and the feature blocks on one Engine
//   search.cpp   `Search` (driven by agents/search/puct.py)
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "engine/game.hpp"
#include "env/env.hpp"
#include "players/players.hpp"

namespace nb = nanobind;

namespace pk::bind {
using pk::Game;

template <typename T, int D = 1>
using Array = nb::ndarray<T, nb::ndim<D>, nb::c_contig, nb::device::cpu>;

inline void need(bool ok, const char* what) {
  if (!ok) throw nb::value_error(what);
}

inline nb::list int_list(const int32_t* v, size_t count) {  // C API: `at` holds 1,568 ints
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  if (!list) throw nb::python_error();  // (PyLong_FromLong of a small int cannot fail)
  for (size_t i = 0; i < count; ++i) PyList_SET_ITEM(list, i, PyLong_FromLong(v[i]));
  return nb::steal<nb::list>(list);
}

// ---- one game ----
struct Engine {
  Game g;
  pk::Actions legal;
  bool legal_valid = false;
  std::string broken;  // why this engine refuses every call ("" while usable)

  Game& game() {
    if (!broken.empty()) throw std::runtime_error(broken);
    return g;
  }
  const pk::Actions& legal_now() {
    if (!legal_valid) game().legal_actions(legal);
    legal_valid = true;
    return legal;
  }
  bool is_legal(int a) { return std::ranges::binary_search(legal_now(), a); }
  bool apply(int a) {  // false: not legal now (nothing changed)
    if (!is_legal(a)) return false;
    legal_valid = false;
    try {
      g.apply_action(a);
    } catch (const std::exception& e) {
      broken = std::string("the C++ core failed inside an action (") + e.what() +
               "); this game refuses every further call";
      throw std::runtime_error(broken);
    }
    return true;
  }
  template <typename T>
  void legal_mask(Array<T> out) {
    need(out.shape(0) == static_cast<size_t>(pk::NUM_ACTIONS), "the mask must hold 957 entries");
    std::fill(out.data(), out.data() + pk::NUM_ACTIONS, T(0));
    for (int a : legal_now()) out.data()[a] = 1;
  }
  int seat(int p) { return need(p >= 0 && p < game().n, "no such seat"), p; }
};
}  // namespace pk::bind
