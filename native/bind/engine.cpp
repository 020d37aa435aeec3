// perikles_env._native: one game (`Engine`: state fields, the decision API, rule queries)
// and the module-level helpers. Every state reaching `Engine.load` passed the Python
// validator; the loader still checks each value's range and Game::load_error, so no call
// reads out of bounds. An exception inside an action leaves the engine refusing every call.
#include "bind/common.hpp"

namespace pk::bind {
namespace {
// ---- the state's fields, in the order of the generated table (schema.FIELDS, then rng) ----
struct Field {
  const char* name;
  int size;  // length, or capacity of a variable list
  long long lo, hi;  // every value's range
};
#define PK_ROW(name, member, kind, size, lo, hi) {#name, size, lo, (long long)(hi)},
const Field FIELDS[] = {PK_STATE_FIELDS(PK_ROW)};
#undef PK_ROW
constexpr int NUM_FIELDS = sizeof(FIELDS) / sizeof(FIELDS[0]);


long long checked(nb::handle value, const Field& f) {
  long long v = 0;
  if (!nb::isinstance<nb::int_>(value) || nb::isinstance<nb::bool_>(value) ||
      !nb::try_cast<long long>(value, v) || v < f.lo || v > f.hi)
    throw nb::value_error((std::string(f.name) + ": expected an int in range").c_str());
  return v;
}

std::vector<int> checked_list(nb::handle value, const Field& f, size_t min, size_t max) {
  need(nb::isinstance<nb::list>(value), f.name);
  nb::list items = nb::borrow<nb::list>(value);
  if (items.size() < min || items.size() > max)
    throw nb::value_error((std::string(f.name) + ": wrong length").c_str());
  std::vector<int> out;
  for (nb::handle item : items) out.push_back(static_cast<int>(checked(item, f)));
  return out;
}

// One field of `g` to Python, or `x` into it (range-checked first: a refusal changes
// nothing). The X-macro gives each field's member, its C++ type the conversion.
template <typename T>
nb::object read(T& v) {
  if constexpr (std::is_same_v<T, bool>) return nb::bool_(v);
  else if constexpr (std::is_same_v<T, pk::Phase>) return nb::int_(static_cast<int>(v));
  else if constexpr (std::is_arithmetic_v<T>) return nb::int_(v);
  else if constexpr (std::is_array_v<T>) return int_list(v, std::extent_v<T>);
  else return int_list(v.data(), static_cast<size_t>(v.size()));  // SVec
}
template <typename T>
void write(T& v, nb::handle x, const Field& f) {
  bool is_int = nb::isinstance<nb::int_>(x) && !nb::isinstance<nb::bool_>(x);
  if constexpr (std::is_same_v<T, bool>) need(nb::try_cast(x, v, false), f.name);
  else if constexpr (std::is_same_v<T, uint64_t>) need(is_int && nb::try_cast(x, v), f.name);
  else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, pk::Phase>) v = static_cast<T>(checked(x, f));
  else if constexpr (std::is_array_v<T>) std::ranges::copy(checked_list(x, f, std::extent_v<T>, std::extent_v<T>), v);
  else v.n = static_cast<int32_t>(std::ranges::copy(checked_list(x, f, 0, f.size), v.v).out - v.v);
}

// Field `id` of `g` to Python, or (with a `value`) `value` into it.
nb::object field(Game& g, int id, nb::handle value = nb::handle()) {
  int i = 0;
#define PK_FIELD(name, member, kind, size, lo, hi) \
  if (id == i++) return value ? (write(g.member, value, FIELDS[id]), nb::none()) : read(g.member);
  PK_STATE_FIELDS(PK_FIELD)
#undef PK_FIELD
  throw nb::index_error("no such field");
}

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
  for (int id = 0; id < NUM_FIELDS; ++id) field(e->g, id, values[id]);
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
int city(int c) { return need(c >= 0 && c < pk::NUM_CITIES, "city out of range"), c; }
void check_slot(int slot, int unit) { need(slot >= 0 && slot < pk::SLOTS && (unit == 0 || unit == 1), "slot or unit type"); }
}  // namespace

void bind_engine(nb::module_& m) {

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
  m.def("layout", [] {  // the observation's blocks (name, size)
    std::vector<std::pair<std::string, int>> out;
    for (const auto& b : pk::enc::LAYOUT) out.emplace_back(b.name, b.size);
    return out;
  });
  m.def("feature_names", [] {  // the feature blocks, in id order
    return std::vector<std::string>(pk::FEATURE_NAMES, pk::FEATURE_NAMES + pk::NUM_FEATURES);
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
        auto e = std::make_unique<Engine>();
        e->g.init_new((need(n >= pk::MINP && n <= pk::MAXP, "num_players"), n), record, seed);
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
      .def("get", [](Engine& e, int id) { return field(e.game(), id); })
      .def("events", &raw_events)
      .def("num_events", [](Engine& e) { return e.game().ev_count; })
      .def("scores", [](Engine& e) { int s[pk::MAXP]; e.game().scores(s); return int_list(s, e.g.n); })
      .def("winners", [](Engine& e) { int w[pk::MAXP]; return int_list(w, e.game().winners(w)); })
      .def("random_playout", [](Engine& e, uint64_t seed, int64_t max) {
        e.legal_valid = false;
        return e.game().random_playout(seed, max, e.legal);
      })
      .def("determinize", [](Engine& e, int player, uint64_t seed, bool record) {
        auto copy = std::make_unique<Engine>(e);
        copy->g.determinize(e.seat(player), seed);
        copy->g.record = record;
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
        return e.game().plague_losses(city(c), losses), int_list(losses, e.g.n);
      })
      .def("election_outcome", [](Engine& e, int c) {
        int loss, leader = e.game().election_outcome(city(c), &loss);
        return nb::make_tuple(leader, loss);
      })
      .def("round_strengths", [](Engine& e, int slot, int unit) {
        int attack, defence;
        e.game().round_strengths((check_slot(slot, unit), slot), unit, &attack, &defence);
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
        int64_t check = 0;
        for (Game copy; count-- > 0; check += static_cast<int64_t>(copy.decisions)) copy = source;
        return check;
      })
      .def_prop_ro("phase", [](Engine& e) { return static_cast<int>(e.game().phase); })
      .def_prop_ro("current", [](Engine& e) { return e.game().current; })
      .def_prop_ro("n", [](Engine& e) { return e.game().n; });

}

}  // namespace pk::bind
