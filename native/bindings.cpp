// nanobind module perikles_env._native: the C++ engine (game.hpp) behind a small API that
// perikles_env/engine/native.py wraps into a perikles_env.engine.Game subclass. Python owns
// validation and errors; every entry point here is memory-safe on any input (bad input
// raises ValueError / TypeError, never undefined behaviour).
#include <memory>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "game.hpp"

namespace nb = nanobind;
using pk::Game;

namespace {

// ---- state fields by id: the order of pk::PK_STATE_FIELDS (schema.FIELDS, then rng) ----
enum FieldKind { F_INT, F_PHASE, F_BOOL, F_ARRAY, F_SVEC, F_VECTOR, F_U64 };
struct Field {
  const char* name;
  FieldKind kind;
  int size;  // fixed length (F_ARRAY) or capacity (F_SVEC)
  long long lo, hi;  // inclusive bounds of every value (memory safety of the C++ engine)
};

#define PK_FIELD_ROW(name, member, kind, size, lo, hi) {#name, F_##kind, size, lo, (long long)(hi)},
const Field FIELDS[] = {PK_STATE_FIELDS(PK_FIELD_ROW)};
#undef PK_FIELD_ROW
constexpr int NUM_FIELDS = sizeof(FIELDS) / sizeof(FIELDS[0]);

struct Ref {
  int* scalar = nullptr;
  bool* flag = nullptr;
  int* array = nullptr;
  int32_t* svec = nullptr;
  int32_t* svec_n = nullptr;
  uint64_t* u64 = nullptr;
  std::vector<int>* vec = nullptr;
  pk::Phase* phase = nullptr;
};

inline void bind(Ref& r, int& v) { r.scalar = &v; }
inline void bind(Ref& r, bool& v) { r.flag = &v; }
inline void bind(Ref& r, pk::Phase& v) { r.phase = &v; }
inline void bind(Ref& r, uint64_t& v) { r.u64 = &v; }
inline void bind(Ref& r, std::vector<int>& v) { r.vec = &v; }
template <size_t N>
void bind(Ref& r, int (&v)[N]) { r.array = v; }
template <int N>
void bind(Ref& r, pk::SVec<N>& v) {
  r.svec = v.v;
  r.svec_n = &v.n;
}

Ref field_ref(Game& g, int id) {
  Ref r;
  int i = 0;
#define PK_FIELD_BIND(name, member, kind, size, lo, hi) \
  if (id == i++) { bind(r, g.member); return r; }
  PK_STATE_FIELDS(PK_FIELD_BIND)
#undef PK_FIELD_BIND
  return r;
}

// A Python list of ints, built with the C API (a state field can hold 1,568 of them).
nb::list int_list(const int32_t* v, int count) {
  PyObject* list = PyList_New(count);
  if (!list) throw nb::python_error();
  for (int i = 0; i < count; ++i) {
    PyObject* item = PyLong_FromLong(v[i]);
    if (!item) {
      Py_DECREF(list);
      throw nb::python_error();
    }
    PyList_SET_ITEM(list, i, item);
  }
  return nb::steal<nb::list>(list);
}

int checked_int(nb::handle value, const Field& f) {
  if (!nb::isinstance<nb::int_>(value))
    throw nb::type_error((std::string(f.name) + ": expected an int").c_str());
  long long v = 0;
  if (!nb::try_cast<long long>(value, v) || v < f.lo || v > f.hi)
    throw nb::value_error((std::string(f.name) + ": value out of range").c_str());
  return static_cast<int>(v);
}

// ---- the engine object ----
struct Engine {
  Game g;
  pk::Actions legal;
  uint64_t legal_bits[(pk::NUM_ACTIONS + 63) / 64];
  bool legal_valid = false;
  bool dirty = false;  // fields were set: run finish_load's checks before the next use
  std::string broken;  // why this engine refuses every call ("" while usable)

  void ensure_checked() {
    if (!broken.empty()) throw std::runtime_error(broken);
    if (dirty) {
      finish_load();
      dirty = false;
    }
  }
  void refresh_legal() {
    ensure_checked();
    if (legal_valid) return;
    g.legal_actions(legal);
    std::memset(legal_bits, 0, sizeof legal_bits);
    for (int a : legal) legal_bits[a >> 6] |= 1ULL << (a & 63);
    legal_valid = true;
  }
  bool is_legal(int a) {
    ensure_checked();
    if (a < 0 || a >= pk::NUM_ACTIONS || g.phase == pk::Phase::GAME_OVER) return false;
    refresh_legal();
    return legal_bits[a >> 6] >> (a & 63) & 1;
  }
  // An action that throws inside the rules (a broken invariant: never for a state that
  // passed the Python validator) leaves the engine refusing every further call.
  bool apply(int a) {
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

  // The legal actions as a 0/1 mask written into a caller-owned array of NUM_ACTIONS
  // bytes (numpy bool or uint8): no allocation per decision.
  template <typename T>
  void legal_mask(nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu> out) {
    if (out.shape(0) != static_cast<size_t>(pk::NUM_ACTIONS))
      throw nb::value_error("legal_mask: the array must hold 957 entries");
    T* data = out.data();
    std::memset(data, 0, sizeof(T) * pk::NUM_ACTIONS);
    if (g.phase == pk::Phase::GAME_OVER) return;
    refresh_legal();
    for (int a : legal) data[a] = 1;
  }

  nb::list legal_list() {
    refresh_legal();
    return int_list(legal.data(), static_cast<int>(legal.size()));
  }

  nb::object get(int id) {
    if (id < 0 || id >= NUM_FIELDS) throw nb::index_error("field id");
    Ref r = field_ref(g, id);
    switch (FIELDS[id].kind) {
      case F_INT: return nb::int_(*r.scalar);
      case F_PHASE: return nb::int_(static_cast<int>(*r.phase));
      case F_BOOL: return nb::bool_(*r.flag);
      case F_U64: return nb::int_(*r.u64);
      case F_ARRAY: return int_list(r.array, FIELDS[id].size);
      case F_SVEC: return int_list(r.svec, *r.svec_n);
      case F_VECTOR: return int_list(r.vec->data(), static_cast<int>(r.vec->size()));
    }
    throw nb::index_error("field id");
  }

  // Load one field; `finish_load` then checks what single fields cannot.
  void set(int id, nb::handle value) {
    if (id < 0 || id >= NUM_FIELDS) throw nb::index_error("field id");
    legal_valid = false;
    dirty = true;
    const Field& f = FIELDS[id];
    std::string name(f.name);
    Ref r = field_ref(g, id);
    if (f.kind == F_U64) {
      uint64_t v = 0;
      if (!nb::isinstance<nb::int_>(value) || nb::isinstance<nb::bool_>(value) || !nb::try_cast<uint64_t>(value, v))
        throw nb::value_error((name + ": expected an int in 0..2**64-1").c_str());
      *r.u64 = v;
      return;
    }
    if (f.kind == F_BOOL) {
      if (!nb::isinstance<nb::bool_>(value)) throw nb::type_error((name + ": expected a bool").c_str());
      *r.flag = nb::cast<bool>(value);
      return;
    }
    if (f.kind == F_INT) {
      *r.scalar = checked_int(value, f);
      return;
    }
    if (f.kind == F_PHASE) {
      *r.phase = static_cast<pk::Phase>(checked_int(value, f));
      return;
    }
    if (!nb::isinstance<nb::list>(value)) throw nb::type_error((name + ": expected a list").c_str());
    nb::list items = nb::borrow<nb::list>(value);
    size_t len = items.size();
    if (f.kind == F_ARRAY && len != static_cast<size_t>(f.size))
      throw nb::value_error((name + ": wrong length").c_str());
    if (f.kind == F_SVEC && len > static_cast<size_t>(f.size))
      throw nb::value_error((name + ": too long").c_str());
    std::vector<int> values;  // all checked before any is stored: a refused set changes nothing
    values.reserve(len);
    for (size_t i = 0; i < len; ++i) values.push_back(checked_int(items[i], f));
    if (f.kind == F_VECTOR) {
      *r.vec = values;
    } else if (f.kind == F_ARRAY) {
      std::copy(values.begin(), values.end(), r.array);
    } else {
      std::copy(values.begin(), values.end(), r.svec);
      *r.svec_n = static_cast<int32_t>(len);
    }
  }

  // Cross-field checks the C++ engine needs to stay memory-safe and terminating (Python's
  // from_dict validation, which runs first, is stricter): Game::load_error.
  void finish_load() {
    if (const char* error = g.load_error()) throw nb::value_error(error);
    legal_valid = false;
  }

  nb::list events(size_t start) const {
    nb::list out;
    size_t i = 0, k = 0;
    const auto& ev = g.ev;
    while (i < ev.size()) {
      int kind = ev[i], cnt = ev[i + 1];
      if (k >= start) {
        nb::list item;
        item.append(nb::int_(kind));
        for (int j = 0; j < cnt; ++j) item.append(nb::int_(ev[i + 2 + j]));
        out.append(nb::tuple(item));
      }
      i += 2 + cnt;
      ++k;
    }
    return out;
  }

  nb::list scores() const {
    int sc[pk::MAXP];
    g.scores(sc);
    return int_list(sc, g.n);
  }
  nb::list winners() const {
    int w[pk::MAXP];
    int cnt = g.winners(w);
    return int_list(w, cnt);
  }

  // ---- rule queries (queries.py dispatches here for a NativeGame) ----
  // Arguments outside the ranges below raise ValueError; queries.py then answers with the
  // Python reference instead, so both backends give the same result or error for any input.
  static void need(bool ok, const char* what) {
    if (!ok) throw nb::value_error(what);
  }
  void check_player(int p) {
    need(p >= 0 && p < pk::MAXP, "player out of range");
    ensure_checked();
  }
  static nb::list target_list(const pk::Target* t, int count) {
    nb::list out;
    for (int i = 0; i < count; ++i) out.append(nb::make_tuple(t[i].slot, t[i].side, t[i].status));
    return out;
  }
  nb::list placement_targets(int p, int x, bool first, bool skip_hoplite_only) {
    check_player(p);
    need(x >= 0 && x < pk::NMC, "city out of range");
    pk::Target t[2 * pk::SLOTS];
    return target_list(t, g.open_targets(p, x, first, skip_hoplite_only, t));
  }
  nb::list placement_targets_in(int p, int x, bool first, bool skip_hoplite_only,
                                const std::vector<int>& slots) {
    check_player(p);
    need(x >= 0 && x < pk::NMC, "city out of range");
    for (int s : slots) need(s >= 0 && s < pk::SLOTS, "slot out of range");
    std::vector<pk::Target> t(2 * slots.size());
    int count = g.open_targets(p, x, first, skip_hoplite_only, t.data(), slots.data(),
                               static_cast<int>(slots.size()));
    return target_list(t.data(), count);
  }
  void check_place(int p, int slot, int side) {
    check_player(p);
    need(slot >= 0 && slot < pk::SLOTS && (side == 0 || side == 1), "slot or side out of range");
  }
  int placement_status(int p, int x, int slot, int side) {
    check_place(p, slot, side);
    need(x >= 0 && x < pk::NMC, "city out of range");
    return g.target_status(p, x, slot, side);
  }
  int class_placement_status(int p, int klass, int slot, int side) {
    check_place(p, slot, side);
    need(klass >= 0 && klass < pk::NC, "class out of range");
    return g.class_placement_status(p, klass, slot, side);
  }
  nb::list proposals(int p) {  // (city, nominee) pairs, from the PROPOSE actions
    check_player(p);
    pk::Actions actions;
    g.proposals(p, actions);
    nb::list out;
    for (int a : actions) {
      int city = (a - pk::PROPOSE) / pk::MAXP, offset = (a - pk::PROPOSE) % pk::MAXP;
      out.append(nb::make_tuple(city, (p + offset) % g.n));
    }
    return out;
  }
  nb::list assassination_targets(int first) {  // (city, seat or ASSASSIN_ALPHA / _BETA)
    check_player(first);
    pk::Actions actions;
    g.assassination_targets(first, actions);
    nb::list out;
    for (int a : actions) {
      int city = (a - pk::ASSASSINATE) / 7, target = (a - pk::ASSASSINATE) % 7;
      out.append(nb::make_tuple(city, target < pk::MAXP ? (first + target) % g.n : target));
    }
    return out;
  }
  void check_city(int city) {
    need(city >= 0 && city < pk::NUM_CITIES, "city out of range");
    ensure_checked();
  }
  nb::list plague_losses(int city) {
    check_city(city);
    int losses[pk::MAXP];
    g.plague_losses(city, losses);
    return int_list(losses, g.n);
  }
  nb::tuple election_outcome(int city) {
    check_city(city);
    int loss, leader = g.election_outcome(city, &loss);
    return nb::make_tuple(leader, loss);
  }
  void check_slot(int slot, int unit_type) {
    need(slot >= 0 && slot < pk::SLOTS, "slot out of range");
    need(unit_type == pk::HOPLITE || unit_type == pk::TRIREME, "unit type out of range");
    ensure_checked();
  }
  nb::tuple round_strengths(int slot, int unit_type) {
    check_slot(slot, unit_type);
    int attack, defence;
    g.round_strengths(slot, unit_type, &attack, &defence);
    return nb::make_tuple(attack, defence);
  }
  nb::list predicted_rounds(int slot) {
    check_slot(slot, pk::HOPLITE);
    pk::Round rounds[2];
    int count = g.predicted_rounds(slot, rounds);
    nb::list out;
    for (int i = 0; i < count; ++i)
      out.append(nb::make_tuple(rounds[i].unit_type, rounds[i].kind, rounds[i].attack, rounds[i].defence));
    return out;
  }
  // queries.military_knowledge (Game::military_knowledge) as lists.
  nb::tuple military_knowledge(int p) {
    check_player(p);
    pk::MilitaryKnowledge k;
    g.military_knowledge(p, k);
    constexpr int CT = pk::NMC * 2;
    nb::list unknown_mean;
    for (double v : k.unknown_mean) unknown_mean.append(nb::float_(v));
    return nb::make_tuple(int_list(k.my_pool, pk::NC), int_list(k.pool_count, CT),
                          int_list(k.box_count, pk::NBOX * CT),
                          int_list(k.box_known, pk::NBOX * CT), unknown_mean);
  }

  // A copy with everything hidden from `player` resampled (determinize.py).
  Engine* determinized(int player, uint64_t seed) {
    ensure_checked();
    need(player >= 0 && player < g.n, "player: no such seat");
    auto* copy = new Engine(*this);
    copy->g.determinize(player, seed);
    copy->legal_valid = false;
    return copy;
  }

  // Uniform random play to the end, entirely in C++ (Game::random_playout). Returns the
  // number of decisions made.
  int64_t random_playout(uint64_t policy_seed, int64_t max_decisions) {
    ensure_checked();
    int64_t count = g.random_playout(policy_seed, max_decisions, legal);
    legal_valid = false;
    return count;
  }
};

}  // namespace

NB_MODULE(_native, m) {
  m.doc() = "C++ core of the Perikles engine (see perikles_env/engine/native.py)";
  m.def("field_names", []() {
    std::vector<std::string> out;
    for (const Field& f : FIELDS) out.emplace_back(f.name);
    return out;
  });
  m.def("random_games", [](int n, int games, uint64_t seed0, bool record) {
    // (decisions, games) of `games` uniform random games, seeds seed0.., all in C++.
    int64_t decisions = 0;
    {
      nb::gil_scoped_release release;
      Engine e;
      for (int i = 0; i < games; ++i) {
        e.g.init_new(n, record, seed0 + i);
        decisions += e.random_playout(seed0 + i, INT64_MAX);
      }
    }
    return decisions;
  });
  nb::class_<Engine>(m, "Engine")
      .def_static("new", [](int n, bool record, uint64_t seed) {
        auto* e = new Engine();
        try {
          e->g.init_new(n, record, seed);
        } catch (...) {
          delete e;
          throw;
        }
        return e;
      }, nb::rv_policy::take_ownership)
      .def_static("load", [](nb::list values) {
        // A whole state (every field, in field-id order), validated by Python first: each
        // value is range-checked here and the state as a whole by finish_load.
        if (values.size() != NUM_FIELDS) throw nb::value_error("load: one value per field");
        auto e = std::make_unique<Engine>();
        for (int id = 0; id < NUM_FIELDS; ++id) e->set(id, values[id]);
        e->ensure_checked();
        return e.release();
      }, nb::rv_policy::take_ownership)
      .def("clone", [](const Engine& e) { return new Engine(e); }, nb::rv_policy::take_ownership)
      .def("legal_actions", &Engine::legal_list)
      .def("is_legal", &Engine::is_legal)
      .def("legal_mask", &Engine::legal_mask<bool>, nb::arg("out").noconvert())
      .def("legal_mask", &Engine::legal_mask<uint8_t>, nb::arg("out").noconvert())
      .def("legal_mask", &Engine::legal_mask<int8_t>, nb::arg("out").noconvert())
      .def("apply", &Engine::apply)
      .def("get", &Engine::get)
      .def("events", &Engine::events)
      .def("num_events", [](const Engine& e) { return e.g.ev_count; })
      .def("scores", &Engine::scores)
      .def("winners", &Engine::winners)
      .def("random_playout", &Engine::random_playout)
      .def("determinize", &Engine::determinized, nb::rv_policy::take_ownership)
      .def("placement_targets", &Engine::placement_targets)
      .def("placement_targets_in", &Engine::placement_targets_in)
      .def("placement_status", &Engine::placement_status)
      .def("class_placement_status", &Engine::class_placement_status)
      .def("proposals", &Engine::proposals)
      .def("assassination_targets", &Engine::assassination_targets)
      .def("plague_losses", &Engine::plague_losses)
      .def("election_outcome", &Engine::election_outcome)
      .def("round_strengths", &Engine::round_strengths)
      .def("predicted_rounds", &Engine::predicted_rounds)
      .def("military_knowledge", &Engine::military_knowledge)
      .def("cube_vp", [](Engine& e, int p) { e.check_player(p); return e.g.cube_vp(p); })
      .def("statue_vp", [](Engine& e, int p) { e.check_player(p); return e.g.statue_vp(p); })
      .def("location_vp", [](Engine& e, int p) { e.check_player(p); return e.g.location_vp(p); })
      .def("statue_count", [](Engine& e, int p) { e.check_player(p); return e.g.statue_count(p); })
      .def("clone_repeatedly", [](const Engine& e, int count) {
        // `count` copies of this state in C++ (what a C++ search does per simulation);
        // for benchmarks/native_speed.py.
        nb::gil_scoped_release release;
        Game copy;
        int64_t check = 0;
        for (int i = 0; i < count; ++i) {
          copy = e.g;
          check += copy.decisions;
        }
        return check;
      })
      .def_prop_ro("phase", [](const Engine& e) { return static_cast<int>(e.g.phase); })
      .def_prop_ro("current", [](const Engine& e) { return e.g.current; })
      .def_prop_ro("n", [](const Engine& e) { return e.g.n; })
      .def_prop_ro("decisions", [](const Engine& e) { return e.g.decisions; });
}
