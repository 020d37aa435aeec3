// Not ported yet: the scorers of this area (see heuristic.hpp).
#include <stdexcept>

#include "heuristic.hpp"

namespace pk::ai {

void score_military(const View&, const Params&, const Actions&, Scores&) {
  throw std::logic_error("score_military: not ported to C++ yet");
}

}  // namespace pk::ai
