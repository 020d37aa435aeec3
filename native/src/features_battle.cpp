// Not ported yet: battle_features and the commit rows of action_features (features.hpp).
#include <stdexcept>

#include "features.hpp"

namespace pk::feat {

void battle(const Game&, int, float*) { throw std::logic_error("battle features: not ported to C++ yet"); }
void actions_commit(const ai::View&, const Actions&, float*) {
  throw std::logic_error("commit action features: not ported to C++ yet");
}

}  // namespace pk::feat
