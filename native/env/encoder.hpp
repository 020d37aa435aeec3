// Observation encoder and legal-action mask in C++: a full (non-incremental) port of
// perikles_env/analysis/observation.py (layout in docs/observation.md; code in
// encoder.cpp). tests/native/test_encoder.py proves the vectors identical to the Python
// encoder's for every player.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "engine/game.hpp"
#include "env/generated/observation.hpp"

namespace pk::enc {

constexpr int S = MAXP, C = NUM_CITIES, M = NMC, L = SLOTS, K = NC;
constexpr float CLIP = 4.0f;

// The block table (LAYOUT, NUM_BLOCKS, the block ids `B`, OBS_SIZE, ORACLE_SIZE) is generated
// from analysis/observation.py into env/generated/observation.hpp (scripts/gen_native.py).
constexpr std::array<int, NUM_BLOCKS + 1> offsets() {
  std::array<int, NUM_BLOCKS + 1> out{};
  for (int i = 0; i < NUM_BLOCKS; ++i) out[i + 1] = out[i] + LAYOUT[i].size;
  return out;
}
constexpr std::array<int, NUM_BLOCKS + 1> OFFSET = offsets();
constexpr int offset_of(int block) { return OFFSET[block]; }
static_assert(offset_of(ORACLE_SPECIALS) == OBS_SIZE && offset_of(NUM_BLOCKS) == ORACLE_SIZE,
              "env/generated/observation.hpp: the sizes are the blocks' sums");

// Writes the observation of `player` (oracle: ORACLE_SIZE floats, else OBS_SIZE) to `out`.
// The state must be one the engine accepts (Game::load_error() is nullptr).
void encode(const Game& g, int player, bool oracle, float* out);

// Writes the legal-action mask (NUM_ACTIONS int8, 1 = legal) of the state; `scratch` is
// reused between calls so that no call allocates once it has grown.
void legal_mask(const Game& g, Actions& scratch, int8_t* out);

}  // namespace pk::enc
