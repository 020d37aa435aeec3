// Not ported yet: the scorers of this area (see heuristic.hpp).
#include <stdexcept>

#include "heuristic.hpp"

namespace pk::ai {

void score_influence(const View&, const Params&, const Actions&, Scores&) {
  throw std::logic_error("score_influence: not ported to C++ yet");
}

}  // namespace pk::ai
