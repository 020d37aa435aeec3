// action_features: the phase dispatch, scaling and clipping (analysis/action_features.py);
// the rows themselves are features_politics.cpp and features_battle.cpp.
#include <algorithm>

#include "env/features.hpp"

namespace pk::feat {

void actions(const Game& g, int player, float* out) {
  std::fill(out, out + ACTIONS_SIZE, 0.0f);
  if (g.phase == Phase::GAME_OVER || g.current != player) return;
  Actions legal;
  g.legal_actions(legal);
  ai::View v(g, player);
  switch (g.phase) {
    case Phase::SETUP_PLACE:
    case Phase::INFLUENCE_PICK:
    case Phase::ANY_CITY:
    case Phase::CANDIDATE_TILE:
    case Phase::ASSASSIN_TILE:
    case Phase::POST_PICK_SPECIAL:
    case Phase::PROPOSE:
      actions_political(v, legal, out);
      break;
    case Phase::COMMIT:
      actions_commit(v, legal, out);
      break;
    default:
      break;
  }
  for (int a : legal) {  // every other row is zero
    float* row = out + a * ACTION_PER;
    for (int c = 0; c < PERMISSION; ++c) row[c] /= 7.0f;  // the VP columns
    for (int c = 0; c < ACTION_PER; ++c) row[c] = std::clamp(row[c], -1.0f, 1.0f);
  }
}

}  // namespace pk::feat
