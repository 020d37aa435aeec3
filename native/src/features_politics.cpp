// Not ported yet: the influence rows of action_features (features.hpp).
#include <stdexcept>

#include "features.hpp"

namespace pk::feat {

void actions_political(const ai::View&, const Actions&, float*) {
  throw std::logic_error("political action features: not ported to C++ yet");
}

}  // namespace pk::feat
