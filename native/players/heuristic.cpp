// The heuristic's phase table and decide() (agents/heuristic/agent.py); see heuristic.hpp.
#include "players/heuristic.hpp"

namespace pk::ai {

void score_actions(const View& v, const Params& p, const Actions& legal, Scores& out) {
  out.assign(legal.size(), 0.0);
  switch (v.g.phase) {
    case Phase::SETUP_PLACE:
    case Phase::INFLUENCE_PICK:
    case Phase::ALKIBIADES_CUBE:
    case Phase::ALKIBIADES_DEST:
    case Phase::ANY_CITY:
    case Phase::CANDIDATE_TILE:
    case Phase::ASSASSIN_TILE:
    case Phase::POST_PICK_SPECIAL:
    case Phase::PROPOSE:
      return score_influence(v, p, legal, out);
    case Phase::COMMIT:
      return score_commit(v, p, legal, out);
    case Phase::SPARTA_CHOICE:
    case Phase::DEAD_POOL:
    case Phase::PERMISSION:
    case Phase::BATTLE_SPECIAL:
    case Phase::CASUALTY:
      return score_military(v, p, legal, out);
    default:
      throw std::logic_error("the heuristic has no scorer for this phase");
  }
}

int decide(const Game& g, int player, const Params& p, uint64_t seed, Actions& legal,
           Scores& scores) {
  g.legal_actions(legal);
  if (legal.empty()) throw std::logic_error("the game is over: no decision to make");
  if (legal.size() == 1) return legal[0];
  View v(g, player);
  score_actions(v, p, legal, scores);
  return legal[pick_best(scores, seed, p.noise)];
}

int64_t playout(Game& g, const Params& p, uint64_t seed, int64_t horizon, Actions& legal,
                Scores& scores) {
  Rng stream{seed};
  int64_t made = 0;
  while (made != horizon && g.phase != Phase::GAME_OVER) {
    g.legal_actions(legal);
    if (legal.size() == 1) {
      g.apply_action(legal[0]);
      continue;
    }
    View v(g, g.current);
    score_actions(v, p, legal, scores);
    g.apply_action(legal[pick_best(scores, stream.next64(), p.noise)]);
    ++made;
  }
  return made;
}

}  // namespace pk::ai
