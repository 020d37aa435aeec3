// Observation encoder and legal-action mask in C++: a full (non-incremental) port of
// perikles_env/analysis/observation.py (layout in docs/observation.md; code in
// encoder.cpp). tests/native/test_encoder.py proves the vectors identical to the Python
// encoder's for every player.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "engine/game.hpp"

namespace pk::enc {

constexpr int S = MAXP, C = NUM_CITIES, M = NMC, L = SLOTS, K = NC;
constexpr float CLIP = 4.0f;

// Blocks in LAYOUT order; perikles_env/vector/native.py checks them against OFFSETS.
struct Block {
  const char* name;
  int size;
};
constexpr Block LAYOUT[] = {
    {"phase", NUM_PHASES}, {"turn", 3}, {"num_players", 3}, {"seat_present", S},
    {"acting_seat", S}, {"cubes", C * S}, {"candidates", C * 2 * S}, {"supply", S},
    {"leaders", C * S}, {"persian_leaders", S}, {"statues", C * S}, {"defeats", C},
    {"statue_values", C}, {"display", DISPLAY * 12}, {"deck_size", 2}, {"tiles_held", S * 2},
    {"colours_taken", S * 7}, {"first_players", 2 * S}, {"locations", L * 15},
    {"mains", L * 2 * S}, {"box_counts", L * 2 * 2 * M * 2}, {"box_known_strength", L * 2 * 2},
    {"box_unknown_count", L * 2 * 2}, {"stacks", K}, {"dead_pool", K}, {"pool_counts", M * 2},
    {"own_pool", K}, {"unseen_strengths", K}, {"war", M * M}, {"alliance", M * M},
    {"permissions", L * M}, {"denied", L * M}, {"own_special", NSPEC + 1},
    {"specials_held", S}, {"specials_played", NSPEC * S}, {"commit_step", S + 4 + C + 1},
    {"permission_request", M + 2 + L + 2}, {"alkibiades", 2 * (C + S)}, {"dead_pool_city", C},
    {"battle", L + 2 + 2 + 2 + 1 + 2 + 6 + M}, {"scores", S * 2},
    {"oracle_specials", NSPEC * S}, {"oracle_pool", K}, {"oracle_boxes", L * 4 * K},
};
constexpr int NUM_BLOCKS = sizeof(LAYOUT) / sizeof(LAYOUT[0]);
constexpr int NUM_ORACLE_BLOCKS = 3;

constexpr std::array<int, NUM_BLOCKS + 1> offsets() {
  std::array<int, NUM_BLOCKS + 1> out{};
  for (int i = 0; i < NUM_BLOCKS; ++i) out[i + 1] = out[i] + LAYOUT[i].size;
  return out;
}
constexpr std::array<int, NUM_BLOCKS + 1> OFFSET = offsets();
constexpr int offset_of(int block) { return OFFSET[block]; }
enum B : int {
  PHASE, TURN, NUM_PLAYERS, SEAT_PRESENT, ACTING_SEAT, CUBES, CANDIDATES, SUPPLY, LEADERS,
  PERSIAN_LEADERS, STATUES, DEFEATS, STATUE_VALUES, DISPLAY_B, DECK_SIZE, TILES_HELD,
  COLOURS_TAKEN, FIRST_PLAYERS, LOCATIONS, MAINS, BOX_COUNTS, BOX_KNOWN_STRENGTH,
  BOX_UNKNOWN_COUNT, STACKS, DEAD_POOL_B, POOL_COUNTS, OWN_POOL, UNSEEN_STRENGTHS, WAR,
  ALLIANCE, PERMISSIONS, DENIED, OWN_SPECIAL, SPECIALS_HELD, SPECIALS_PLAYED, COMMIT_STEP,
  PERMISSION_REQUEST, ALKIBIADES_B, DEAD_POOL_CITY, BATTLE, SCORES, ORACLE_SPECIALS,
  ORACLE_POOL, ORACLE_BOXES
};
constexpr int OBS_SIZE = offset_of(ORACLE_SPECIALS);
constexpr int ORACLE_SIZE = offset_of(NUM_BLOCKS);
static_assert(OBS_SIZE == 1593 && ORACLE_SIZE == 3257, "docs/observation.md sizes");

// Writes the observation of `player` (oracle: ORACLE_SIZE floats, else OBS_SIZE) to `out`.
// The state must be one the engine accepts (Game::load_error() is nullptr).
void encode(const Game& g, int player, bool oracle, float* out);

// Writes the legal-action mask (NUM_ACTIONS int8, 1 = legal) of the state; `scratch` is
// reused between calls so that no call allocates once it has grown.
void legal_mask(const Game& g, Actions& scratch, int8_t* out);

}  // namespace pk::enc
