// perikles_env._native: the one nanobind module over the C++ core (game.hpp, encoder.hpp,
// vector_env.hpp). perikles_env/engine/native.py wraps `Engine` into a read-only
// NativeGame; perikles_env/vector wraps `VectorEnv` and `encode`. Python owns validation
// and errors: every state that reaches `Engine.load` has passed the Python validator, and
// the loader still range-checks every value (generated table) and runs Game::load_error,
// so no call here can read out of bounds. An exception inside an action leaves the engine
// refusing every further call.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "encoder.hpp"
#include "game.hpp"
#include "vector_env.hpp"

namespace nb = nanobind;
using pk::Game;

namespace {

template <typename T, int D = 1>
using Array = nb::ndarray<T, nb::ndim<D>, nb::c_contig, nb::device::cpu>;

void need(bool ok, const char* what) {
  if (!ok) throw nb::value_error(what);
}

// ---- the state's fields, in the order of the generated table (schema.FIELDS, then rng) ----
enum Kind { INT, PHASE, BOOL, ARRAY, SVEC, VECTOR, U64 };
struct Field {
  const char* name;
  Kind kind;
  int size;
  long long lo, hi;
};
#define PK_ROW(name, member, kind, size, lo, hi) {#name, kind, size, lo, (long long)(hi)},
const Field FIELDS[] = {PK_STATE_FIELDS(PK_ROW)};
#undef PK_ROW
constexpr int NUM_FIELDS = sizeof(FIELDS) / sizeof(FIELDS[0]);

nb::list int_list(const int32_t* v, size_t count) {  // C API: `at` holds 1,568 ints
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  if (!list) throw nb::python_error();
  for (size_t i = 0; i < count; ++i) PyList_SET_ITEM(list, i, PyLong_FromLong(v[i]));
  return nb::steal<nb::list>(list);
}

long long checked(nb::handle value, const Field& f) {
  long long v = 0;
  if (!nb::isinstance<nb::int_>(value) || nb::isinstance<nb::bool_>(value) ||
      !nb::try_cast<long long>(value, v) || v < f.lo || v > f.hi)
    throw nb::value_error((std::string(f.name) + ": expected an int in range").c_str());
  return v;
}

// One field of `g` to Python, or `value` into it (range-checked first: a refusal changes
// nothing). The X-macro gives each field's member; the overloads below its kind.
nb::object read(int& v, const Field&) { return nb::int_(v); }
nb::object read(bool& v, const Field&) { return nb::bool_(v); }
nb::object read(pk::Phase& v, const Field&) { return nb::int_(static_cast<int>(v)); }
nb::object read(uint64_t& v, const Field&) { return nb::int_(v); }
nb::object read(std::vector<int>& v, const Field&) { return int_list(v.data(), v.size()); }
template <size_t N>
nb::object read(int (&v)[N], const Field&) { return int_list(v, N); }
template <int N>
nb::object read(pk::SVec<N>& v, const Field&) { return int_list(v.v, v.n); }

std::vector<int> checked_list(nb::handle value, const Field& f, size_t min, size_t max) {
  need(nb::isinstance<nb::list>(value), f.name);
  nb::list items = nb::borrow<nb::list>(value);
  if (items.size() < min || items.size() > max)
    throw nb::value_error((std::string(f.name) + ": wrong length").c_str());
  std::vector<int> out;
  for (nb::handle item : items) out.push_back(static_cast<int>(checked(item, f)));
  return out;
}
void write(int& v, nb::handle x, const Field& f) { v = static_cast<int>(checked(x, f)); }
void write(pk::Phase& v, nb::handle x, const Field& f) { v = static_cast<pk::Phase>(checked(x, f)); }
void write(bool& v, nb::handle x, const Field& f) {
  need(nb::isinstance<nb::bool_>(x), f.name);
  v = nb::cast<bool>(x);
}
void write(uint64_t& v, nb::handle x, const Field& f) {
  need(nb::isinstance<nb::int_>(x) && !nb::isinstance<nb::bool_>(x) && nb::try_cast(x, v), f.name);
}
void write(std::vector<int>& v, nb::handle x, const Field& f) { v = checked_list(x, f, 0, f.size); }
template <size_t N>
void write(int (&v)[N], nb::handle x, const Field& f) {
  auto items = checked_list(x, f, N, N);
  std::copy(items.begin(), items.end(), v);
}
template <int N>
void write(pk::SVec<N>& v, nb::handle x, const Field& f) {
  auto items = checked_list(x, f, 0, N);
  std::copy(items.begin(), items.end(), v.v);
  v.n = static_cast<int32_t>(items.size());
}

nb::object get_field(Game& g, int id) {
  int i = 0;
#define PK_GET(name, member, kind, size, lo, hi) \
  if (id == i++) return read(g.member, FIELDS[id]);
  PK_STATE_FIELDS(PK_GET)
#undef PK_GET
  throw nb::index_error("no such field");
}
void set_field(Game& g, int id, nb::handle value) {
  int i = 0;
#define PK_SET(name, member, kind, size, lo, hi) \
  if (id == i++) return write(g.member, value, FIELDS[id]);
  PK_STATE_FIELDS(PK_SET)
#undef PK_SET
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
  bool is_legal(int a) {
    const auto& l = legal_now();
    return std::binary_search(l.begin(), l.end(), a);
  }
  void apply(int a) {
    need(is_legal(a), "illegal action");
    legal_valid = false;
    try {
      g.apply_action(a);
    } catch (const std::exception& e) {
      broken = std::string("the C++ core failed inside an action (") + e.what() +
               "); this game refuses every further call";
      throw std::runtime_error(broken);
    }
  }
  template <typename T>
  void legal_mask(Array<T> out) {
    need(out.shape(0) == static_cast<size_t>(pk::NUM_ACTIONS), "the mask must hold 957 entries");
    std::fill(out.data(), out.data() + pk::NUM_ACTIONS, T(0));
    for (int a : legal_now()) out.data()[a] = 1;
  }
  int seat(int p) {
    need(p >= 0 && p < game().n, "no such seat");
    return p;
  }
};

nb::list raw_events(Engine& e, size_t start) {  // (kind, args...) per event since `start`
  nb::list out;
  const auto& ev = e.game().ev;
  size_t k = 0;
  for (size_t i = 0; i < ev.size(); i += 2 + ev[i + 1], ++k) {
    if (k < start) continue;
    std::vector<int32_t> item{ev[i]};
    item.insert(item.end(), ev.begin() + i + 2, ev.begin() + i + 2 + ev[i + 1]);
    out.append(nb::tuple(int_list(item.data(), item.size())));
  }
  return out;
}

Engine* load(nb::list values) {
  need(values.size() == NUM_FIELDS, "load: one value per field");
  auto e = std::make_unique<Engine>();
  for (int id = 0; id < NUM_FIELDS; ++id) set_field(e->g, id, values[id]);
  if (const char* why = e->g.load_error()) throw nb::value_error(why);
  return e.release();
}

nb::tuple knowledge(Engine& e, int p) {
  auto k = std::make_unique<pk::MilitaryKnowledge>();
  e.game().military_knowledge(e.seat(p), *k);
  nb::list mean;
  for (double m : k->unknown_mean) mean.append(nb::float_(m));
  return nb::make_tuple(int_list(k->my_pool, pk::NC), int_list(k->pool_count, pk::NMC * 2),
                        int_list(k->box_count, pk::NBOX * pk::NMC * 2),
                        int_list(k->box_known, pk::NBOX * pk::NMC * 2), mean);
}

// Rule queries: Python's Game methods check the arguments first; these guard memory only.
nb::list placement_targets(Engine& e, int p, int x, bool first, bool skip) {
  need(x >= 0 && x < pk::NMC, "city out of range");
  pk::Target t[2 * pk::SLOTS];
  int count = e.game().open_targets(e.seat(p), x, first, skip, t);
  nb::list out;
  for (int i = 0; i < count; ++i) out.append(nb::make_tuple(t[i].slot, t[i].side, t[i].status));
  return out;
}
void check_place(int slot, int side) { need(slot >= 0 && slot < pk::SLOTS && (side == 0 || side == 1), "slot or side"); }
nb::list decoded(Engine& e, int p, bool assassin) {  // PROPOSE / ASSASSINATE ids as pairs
  pk::Actions ids;
  Game& g = e.game();
  assassin ? g.assassination_targets(e.seat(p), ids) : g.proposals(e.seat(p), ids);
  nb::list out;
  for (int a : ids) {
    int base = assassin ? pk::ASSASSINATE : pk::PROPOSE, width = assassin ? 7 : pk::MAXP;
    int city = (a - base) / width, offset = (a - base) % width;
    out.append(nb::make_tuple(city, offset < pk::MAXP ? (p + offset) % g.n : offset));
  }
  return out;
}
int city(int c) {
  need(c >= 0 && c < pk::NUM_CITIES, "city out of range");
  return c;
}
void check_slot(int slot, int unit) { need(slot >= 0 && slot < pk::SLOTS && (unit == 0 || unit == 1), "slot or unit type"); }

// ---- the vector env: one thread at a time (a second gets RuntimeError, never waits) ----
struct PyVectorEnv {
  pk::VectorEnv env;
  std::mutex busy;
  bool started = false;

  PyVectorEnv(int num_envs, std::vector<int> counts, bool oracle, bool opponents, int seat,
              int threads, int64_t max_decisions)
      : env(make(num_envs, std::move(counts), oracle, opponents, seat, threads, max_decisions)) {}
  static pk::VectorEnv make(int num_envs, std::vector<int> counts, bool oracle, bool opponents,
                            int seat, int threads, int64_t max_decisions) {
    need(num_envs >= 1 && num_envs <= (1 << 14) && threads >= 1 && threads <= 64, "num_envs or threads");
    try {
      return pk::VectorEnv(num_envs, std::move(counts), oracle, opponents, seat, threads, max_decisions);
    } catch (const std::invalid_argument& e) {
      throw nb::value_error(e.what());
    }
  }
  std::unique_lock<std::mutex> exclusive(bool needs_reset = true) {
    std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) throw std::runtime_error("VectorEnv in use by another thread");
    need(started || !needs_reset, "call reset() first");
    return lock;
  }
  int index(int i) {
    need(i >= 0 && i < env.num_envs(), "no such game");
    return i;
  }
};

pk::VecBuffers buffers(PyVectorEnv& v, Array<int32_t> cur, Array<float, 2> obs, Array<int8_t, 2> mask,
                       Array<float, 2> rew, Array<bool> term, Array<bool> trunc, Array<int32_t, 2> sc,
                       Array<int32_t, 2> fin, Array<int32_t> pl, Array<int32_t> dec) {
  size_t n = static_cast<size_t>(v.env.num_envs()), seats = pk::MAXP;
  need(cur.shape(0) == n && term.shape(0) == n && trunc.shape(0) == n && pl.shape(0) == n &&
           dec.shape(0) == n, "a per-game buffer has the wrong shape");
  need(obs.shape(0) == n && obs.shape(1) == static_cast<size_t>(v.env.obs_size()), "obs: wrong shape");
  need(mask.shape(0) == n && mask.shape(1) == pk::NUM_ACTIONS, "mask: wrong shape");
  need(rew.shape(0) == n && rew.shape(1) == seats && sc.shape(0) == n && sc.shape(1) == seats &&
           fin.shape(0) == n && fin.shape(1) == seats, "a per-seat buffer has the wrong shape");
  return {cur.data(), obs.data(), mask.data(), rew.data(), term.data(), trunc.data(),
          sc.data(), fin.data(), pl.data(), dec.data()};
}

}  // namespace

NB_MODULE(_native, m) {
  m.doc() = "The C++ core of perikles_env (engine, observation encoder, vector env).";
  m.def("field_names", [] {
    std::vector<std::string> out;
    for (const Field& f : FIELDS) out.emplace_back(f.name);
    return out;
  });
  m.def("random_games", [](int n, int games, uint64_t seed0, bool record) {
    need(n >= pk::MINP && n <= pk::MAXP && games >= 0, "players or games");
    nb::gil_scoped_release release;
    int64_t decisions = 0;
    Game g;
    pk::Actions scratch;
    for (int i = 0; i < games; ++i) {
      g.init_new(n, record, seed0 + i);
      decisions += g.random_playout(seed0 + i, INT64_MAX, scratch);
    }
    return decisions;
  });
  m.def("layout", [] {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& b : pk::enc::LAYOUT) out.emplace_back(b.name, b.size);
    return out;
  });
  m.attr("OBS_SIZE") = pk::enc::OBS_SIZE;
  m.attr("ORACLE_SIZE") = pk::enc::ORACLE_SIZE;
  m.attr("NUM_ACTIONS") = pk::NUM_ACTIONS;
  m.attr("MAX_PLAYERS") = pk::MAXP;
  m.attr("POLICY_SALT") = pk::VectorEnv::POLICY_SALT;
  m.def("encode", [](Engine& e, int player, Array<float> out, bool oracle) {
    e.seat(player);
    need(out.shape(0) == static_cast<size_t>(oracle ? pk::enc::ORACLE_SIZE : pk::enc::OBS_SIZE),
         "out: wrong length for this observation");
    pk::enc::encode(e.game(), player, oracle, out.data());
  }, nb::arg("engine"), nb::arg("player"), nb::arg("out").noconvert(), nb::arg("oracle"));

  nb::class_<Engine>(m, "Engine")
      .def_static("new", [](int n, bool record, uint64_t seed) {
        need(n >= pk::MINP && n <= pk::MAXP, "num_players");
        auto e = std::make_unique<Engine>();
        e->g.init_new(n, record, seed);
        return e.release();
      }, nb::rv_policy::take_ownership)
      .def_static("load", &load, nb::rv_policy::take_ownership)
      .def("clone", [](Engine& e) { e.game(); return new Engine(e); }, nb::rv_policy::take_ownership)
      .def("legal_actions", [](Engine& e) { const auto& l = e.legal_now(); return int_list(l.data(), l.size()); })
      .def("is_legal", &Engine::is_legal)
      .def("apply", &Engine::apply)
      .def("legal_mask", &Engine::legal_mask<bool>, nb::arg("out").noconvert())
      .def("legal_mask", &Engine::legal_mask<uint8_t>, nb::arg("out").noconvert())
      .def("legal_mask", &Engine::legal_mask<int8_t>, nb::arg("out").noconvert())
      .def("get", [](Engine& e, int id) { return get_field(e.game(), id); })
      .def("events", &raw_events)
      .def("num_events", [](Engine& e) { return e.game().ev_count; })
      .def("scores", [](Engine& e) { int s[pk::MAXP]; e.game().scores(s); return int_list(s, e.g.n); })
      .def("winners", [](Engine& e) { int w[pk::MAXP]; return int_list(w, e.game().winners(w)); })
      .def("random_playout", [](Engine& e, uint64_t seed, int64_t max) {
        e.legal_valid = false;
        return e.game().random_playout(seed, max, e.legal);
      })
      .def("determinize", [](Engine& e, int player, uint64_t seed) {
        auto copy = std::make_unique<Engine>(e);
        copy->g.determinize(e.seat(player), seed);
        copy->legal_valid = false;
        return copy.release();
      }, nb::rv_policy::take_ownership)
      .def("military_knowledge", &knowledge)
      .def("placement_targets", &placement_targets)
      .def("placement_status", [](Engine& e, int p, int x, int slot, int side) {
        check_place(slot, side);
        need(x >= 0 && x < pk::NMC, "city out of range");
        return e.game().target_status(e.seat(p), x, slot, side);
      })
      .def("class_placement_status", [](Engine& e, int p, int k, int slot, int side) {
        check_place(slot, side);
        need(k >= 0 && k < pk::NC, "class out of range");
        return e.game().class_placement_status(e.seat(p), k, slot, side);
      })
      .def("proposals", [](Engine& e, int p) { return decoded(e, p, false); })
      .def("assassination_targets", [](Engine& e, int first) { return decoded(e, first, true); })
      .def("plague_losses", [](Engine& e, int c) {
        int losses[pk::MAXP];
        e.game().plague_losses(city(c), losses);
        return int_list(losses, e.g.n);
      })
      .def("election_outcome", [](Engine& e, int c) {
        int loss, leader = e.game().election_outcome(city(c), &loss);
        return nb::make_tuple(leader, loss);
      })
      .def("round_strengths", [](Engine& e, int slot, int unit) {
        check_slot(slot, unit);
        int attack, defence;
        e.game().round_strengths(slot, unit, &attack, &defence);
        return nb::make_tuple(attack, defence);
      })
      .def("predicted_rounds", [](Engine& e, int slot) {
        check_slot(slot, 0);
        pk::Round r[2];
        int count = e.game().predicted_rounds(slot, r);
        nb::list out;
        for (int i = 0; i < count; ++i) out.append(nb::make_tuple(r[i].unit_type, r[i].kind, r[i].attack, r[i].defence));
        return out;
      })
      .def("cube_vp", [](Engine& e, int p) { return e.game().cube_vp(e.seat(p)); })
      .def("statue_vp", [](Engine& e, int p) { return e.game().statue_vp(e.seat(p)); })
      .def("location_vp", [](Engine& e, int p) { return e.game().location_vp(e.seat(p)); })
      .def("statue_count", [](Engine& e, int p) { return e.game().statue_count(e.seat(p)); })
      .def("clone_repeatedly", [](Engine& e, int count) {  // benchmarks/native_speed.py
        const Game& source = e.game();
        nb::gil_scoped_release release;
        Game copy;
        int64_t check = 0;
        for (int i = 0; i < count; ++i) {
          copy = source;
          check += static_cast<int64_t>(copy.decisions);
        }
        return check;
      })
      .def_prop_ro("phase", [](Engine& e) { return static_cast<int>(e.game().phase); })
      .def_prop_ro("current", [](Engine& e) { return e.game().current; })
      .def_prop_ro("n", [](Engine& e) { return e.game().n; });

  nb::class_<PyVectorEnv>(m, "VectorEnv")
      .def(nb::init<int, std::vector<int>, bool, bool, int, int, int64_t>())
      // noconvert: a converted temporary copy would silently swallow what C++ writes
      .def("reset", [](PyVectorEnv& v, Array<uint64_t> seeds, Array<int32_t> cur, Array<float, 2> obs,
                       Array<int8_t, 2> mask, Array<float, 2> rew, Array<bool> term, Array<bool> trunc,
                       Array<int32_t, 2> sc, Array<int32_t, 2> fin, Array<int32_t> pl, Array<int32_t> dec) {
        auto lock = v.exclusive(false);
        need(seeds.shape(0) == static_cast<size_t>(v.env.num_envs()), "seeds: wrong shape");
        auto out = buffers(v, cur, obs, mask, rew, term, trunc, sc, fin, pl, dec);
        nb::gil_scoped_release release;
        v.env.reset(seeds.data(), out);
        v.started = true;
      }, nb::arg("seeds").noconvert(), nb::arg("current").noconvert(), nb::arg("obs").noconvert(),
         nb::arg("mask").noconvert(), nb::arg("rewards").noconvert(), nb::arg("terminated").noconvert(),
         nb::arg("truncated").noconvert(), nb::arg("scores").noconvert(), nb::arg("final_scores").noconvert(),
         nb::arg("players").noconvert(), nb::arg("decisions").noconvert())
      // -1 after stepping every game, or the first game whose action is illegal (none changed)
      .def("step", [](PyVectorEnv& v, Array<int32_t> actions, Array<int32_t> cur, Array<float, 2> obs,
                      Array<int8_t, 2> mask, Array<float, 2> rew, Array<bool> term, Array<bool> trunc,
                      Array<int32_t, 2> sc, Array<int32_t, 2> fin, Array<int32_t> pl, Array<int32_t> dec) {
        auto lock = v.exclusive();
        need(actions.shape(0) == static_cast<size_t>(v.env.num_envs()), "actions: wrong shape");
        auto out = buffers(v, cur, obs, mask, rew, term, trunc, sc, fin, pl, dec);
        nb::gil_scoped_release release;
        int bad = v.env.first_illegal(actions.data());
        if (bad < 0) v.env.step(actions.data(), out);
        return bad;
      }, nb::arg("actions").noconvert(), nb::arg("current").noconvert(), nb::arg("obs").noconvert(),
         nb::arg("mask").noconvert(), nb::arg("rewards").noconvert(), nb::arg("terminated").noconvert(),
         nb::arg("truncated").noconvert(), nb::arg("scores").noconvert(), nb::arg("final_scores").noconvert(),
         nb::arg("players").noconvert(), nb::arg("decisions").noconvert())
      .def("random_actions", [](PyVectorEnv& v, Array<int32_t> out) {
        auto lock = v.exclusive();
        need(out.shape(0) == static_cast<size_t>(v.env.num_envs()), "out: wrong shape");
        v.env.random_actions(out.data());
      }, nb::arg("out").noconvert())
      .def("game", [](PyVectorEnv& v, int i, bool finished) {
        auto lock = v.exclusive();
        auto e = std::make_unique<Engine>();
        e->g = finished ? v.env.finished(v.index(i)) : v.env.game(v.index(i));
        return e.release();
      }, nb::rv_policy::take_ownership)
      .def_prop_ro("num_envs", [](PyVectorEnv& v) { return v.env.num_envs(); })
      .def_prop_ro("obs_size", [](PyVectorEnv& v) { return v.env.obs_size(); })
      .def("game_seed", [](PyVectorEnv& v, int i) { auto l = v.exclusive(); return v.env.game_seed(v.index(i)); })
      .def("episodes", [](PyVectorEnv& v, int i) { auto l = v.exclusive(); return v.env.episodes(v.index(i)); })
      .def("phase", [](PyVectorEnv& v, int i) {
        auto l = v.exclusive();
        return static_cast<int>(v.env.game(v.index(i)).phase);
      });
}
