// perikles_env._native: the league in C++: the heuristic player (heuristic.hpp) and the
// feature blocks (features.hpp) on one Engine. Python checks the arguments first
// (HeuristicParams, seats); these guard memory only.
#include <nanobind/stl/tuple.h>

#include "bind/common.hpp"

namespace pk::bind {
namespace {

using ParamTuple = std::tuple<PK_AI_PARAM_TYPES>;  // ai::Params' members in order

pk::ai::Params params_of(const ParamTuple& t) {
  pk::ai::Params p = std::apply([](auto... knobs) { return pk::ai::Params{knobs...}; }, t);
  if (const char* why = pk::ai::invalid(p)) throw nb::value_error(why);
  return p;
}

// The acting seat of a live game (the heuristic plays only the one to act).
const Game& acting(Engine& e, int player) {
  const Game& g = e.game();
  need(g.phase != pk::Phase::GAME_OVER, "the game is over");
  need(player == g.current, "the heuristic plays only the seat to act");
  return g;
}

template <int SIZE>
void check_out(const Array<float>& out) {
  need(out.shape(0) == static_cast<size_t>(SIZE), "out: wrong length for this feature block");
}

}  // namespace

void bind_agents(nb::module_& m) {
  m.attr("BATTLE_FEATURES_SIZE") = pk::feat::BATTLE_SIZE;
  m.attr("ACTION_FEATURES_SIZE") = pk::feat::ACTIONS_SIZE;
  m.def("heuristic_scores", [](Engine& e, int player, const ParamTuple& params) {
    const Game& g = acting(e, player);
    pk::ai::View view(g, player);
    pk::ai::Scores scores;
    pk::ai::score_actions(view, params_of(params), e.legal_now(), scores);
    return scores;
  }, nb::arg("engine"), nb::arg("player"), nb::arg("params"));
  m.def("heuristic_decide", [](Engine& e, int player, const ParamTuple& params, uint64_t seed) {
    const Game& g = acting(e, player);
    pk::Actions legal;
    pk::ai::Scores scores;
    return pk::ai::decide(g, player, params_of(params), seed, legal, scores);
  }, nb::arg("engine"), nb::arg("player"), nb::arg("params"), nb::arg("seed"));
  m.def("heuristic_playout", [](Engine& e, const ParamTuple& params, uint64_t seed, int64_t horizon) {
    pk::ai::Params p = params_of(params);
    Game& g = e.game();
    e.legal_valid = false;
    pk::Actions legal;
    pk::ai::Scores scores;
    try {
      nb::gil_scoped_release release;
      return pk::ai::playout(g, p, seed, horizon, legal, scores);
    } catch (const std::exception& err) {
      e.broken = std::string("the C++ core failed in a heuristic playout (") + err.what() +
                 "); this game refuses every further call";
      throw std::runtime_error(e.broken);
    }
  }, nb::arg("engine"), nb::arg("params"), nb::arg("seed"), nb::arg("horizon"));
  m.def("battle_features", [](Engine& e, int player, Array<float> out) {
    check_out<pk::feat::BATTLE_SIZE>(out);
    pk::feat::battle(e.game(), e.seat(player), out.data());
  }, nb::arg("engine"), nb::arg("player"), nb::arg("out").noconvert());
  m.def("action_features", [](Engine& e, int player, Array<float> out) {
    check_out<pk::feat::ACTIONS_SIZE>(out);
    pk::feat::actions(e.game(), e.seat(player), out.data());
  }, nb::arg("engine"), nb::arg("player"), nb::arg("out").noconvert());
}

}  // namespace pk::bind
