// The observation encoder (encoder.hpp): every value is computed as (float)(integer /
// divisor), which equals the Python encoder's float32 result bit for bit (double rounding of
// one division is exact for these small integers).
#include <algorithm>
#include <cstring>

#include "env/encoder.hpp"

namespace pk::enc {

namespace {

float scaled(int value, double divisor) { return static_cast<float>(value / divisor); }
float clipped(int value, double divisor) {
  return static_cast<float>(std::min(value / divisor, static_cast<double>(CLIP)));
}

// Location tile order (data.py ORDER_TH, ORDER_HT, ORDER_H) from its rounds.
int location_order(int tile) {
  if (T.loc_nrounds[tile] == 1) return 2;
  return T.loc_round[tile][0] == TRIREME ? 0 : 1;
}

}  // namespace

void encode(const Game& g, int player, bool oracle, float* out) {
  const int n = g.n;
  std::memset(out, 0, sizeof(float) * (oracle ? ORACLE_SIZE : OBS_SIZE));
  auto at = [out](int block) { return out + offset_of(block); };
  auto rel = [n, player](int seat) { return ((seat - player) % n + n) % n; };
  auto abs_seat = [n, player](int r) { return (player + r) % n; };

  // header
  at(PHASE)[static_cast<int>(g.phase)] = 1;
  at(TURN)[std::min(g.turn, 3) - 1] = 1;
  at(NUM_PLAYERS)[n - 3] = 1;
  for (int r = 0; r < n; ++r) at(SEAT_PRESENT)[r] = 1;
  if (g.current >= 0) at(ACTING_SEAT)[rel(g.current)] = 1;

  // politics
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < n; ++r) {
      int q = abs_seat(r);
      at(CUBES)[c * S + r] = scaled(g.cubes[c * S + q], 10);
      at(STATUES)[c * S + r] = scaled(g.statues[c * S + q], 3);
    }
  for (int i = 0; i < C * 2; ++i)
    if (g.cand[i] >= 0) at(CANDIDATES)[i * S + rel(g.cand[i])] = 1;
  for (int r = 0; r < n; ++r) {
    int q = abs_seat(r);
    at(SUPPLY)[r] = scaled(g.supply[q], 30);
    at(PERSIAN_LEADERS)[r] = static_cast<float>(g.persian >> q & 1);
  }
  for (int c = 0; c < C; ++c) {
    if (g.leader[c] >= 0) at(LEADERS)[c * S + rel(g.leader[c])] = 1;
    at(DEFEATS)[c] = scaled(g.defeats[c], 4);
    at(STATUE_VALUES)[c] = scaled(statue_value(c, g.defeats[c]), 9);
  }

  // influence
  for (int s = 0; s < DISPLAY; ++s) {
    int t = g.display[s];
    if (t < 0) continue;
    float* row = at(DISPLAY_B) + s * 12;
    row[0] = 1;
    row[1 + T.inf_colour[t]] = 1;
    row[8 + T.inf_kind[t]] = 1;
  }
  at(DECK_SIZE)[0] = scaled(g.influence_deck.n, 36);
  at(DECK_SIZE)[1] = scaled(g.loc_deck.n, 21);
  for (int r = 0; r < n; ++r) {
    int q = abs_seat(r);
    at(TILES_HELD)[r * 2] = scaled(g.held2[q], 5);
    at(TILES_HELD)[r * 2 + 1] = scaled(g.held1[q], 5);
    for (int b = 0; b < 7; ++b) at(COLOURS_TAKEN)[r * 7 + b] = static_cast<float>(g.colours_taken[q] >> b & 1);
  }
  at(FIRST_PLAYERS)[rel(g.first_player)] = 1;
  at(FIRST_PLAYERS)[S + rel(g.commit_first)] = 1;

  // locations and mains
  for (int s = 0; s < L; ++s) {
    int t = g.loc_display[s];
    if (t < 0) continue;
    float* row = at(LOCATIONS) + s * 15;
    row[T.loc_city[t]] = 1;
    row[6] = scaled(T.loc_vp[t], 7);
    row[7 + location_order(t)] = 1;
    row[10] = static_cast<float>(T.loc_militia[t][0]);
    row[11] = static_cast<float>(T.loc_militia[t][1]);
    row[12] = static_cast<float>(T.loc_rebels[t][0]);
    row[13] = static_cast<float>(T.loc_rebels[t][1]);
    row[14] = static_cast<float>(g.loc_done[t]);
  }
  for (int i = 0; i < L * 2; ++i)
    if (g.main_[i] >= 0) at(MAINS)[i * S + rel(g.main_[i])] = 1;

  // military: boxes, what the observer sees of them, reserves and hands
  const int known = g.led_mask(player);  // cities whose strengths it sees (information.known_cities)
  const int revealed = g.revealed_slot();
  int hidden_total[K] = {};  // face-down counters the observer cannot see, per class
  for (int box = 0; box < L * 4; ++box) {
    const int slot = box / 4, side = box / 2 % 2;
    const int* counts = g.at + box * K;
    int any = 0;
    for (int k = 0; k < K; ++k) any |= counts[k];
    if (!any) continue;  // an empty box adds nothing (most of them, most of the time)
    float* row = at(BOX_COUNTS) + box * M * 2;
    int known_strength[2] = {0, 0}, unknown[2] = {0, 0};
    for (int c = 0; c < M; ++c)
      for (int t = 0; t < 2; ++t) {
        int count = 0, strength = 0;
        for (int s = 0; s < 4; ++s) {
          int k = c * 8 + t * 4 + s;
          count += counts[k];
          strength += counts[k] * (s + 1);
        }
        row[c * 2 + t] = scaled(count, 4);
        if (slot == revealed || (known >> c & 1)) {
          known_strength[t] += strength;
        } else {
          unknown[t] += count;
          for (int s = 0; s < 4; ++s) hidden_total[c * 8 + t * 4 + s] += counts[c * 8 + t * 4 + s];
        }
      }
    // box_known_strength / box_unknown_count are [slot][side][H, T]: both boxes of a side
    for (int t = 0; t < 2; ++t) {
      at(BOX_KNOWN_STRENGTH)[(slot * 2 + side) * 2 + t] += static_cast<float>(known_strength[t]);
      at(BOX_UNKNOWN_COUNT)[(slot * 2 + side) * 2 + t] += static_cast<float>(unknown[t]);
    }
  }
  for (int i = 0; i < L * 4; ++i) {
    at(BOX_KNOWN_STRENGTH)[i] = clipped(static_cast<int>(at(BOX_KNOWN_STRENGTH)[i]), 12);
    at(BOX_UNKNOWN_COUNT)[i] = clipped(static_cast<int>(at(BOX_UNKNOWN_COUNT)[i]), 4);
  }
  for (int k = 0; k < K; ++k) {
    at(STACKS)[k] = scaled(g.stack[k], 4);
    at(DEAD_POOL_B)[k] = scaled(g.dead[k], 4);
    bool sees = known >> class_city(k) & 1;
    at(OWN_POOL)[k] = sees ? scaled(g.pool[k], 4) : 0.0f;
    at(UNSEEN_STRENGTHS)[k] = sees ? 0.0f : scaled(g.pool[k] + hidden_total[k], 4);
  }
  for (int j = 0; j < M * 2; ++j)
    at(POOL_COUNTS)[j] =
        scaled(g.pool[j * 4] + g.pool[j * 4 + 1] + g.pool[j * 4 + 2] + g.pool[j * 4 + 3], 10);

  // relations
  for (int a = 0; a < M; ++a)
    for (int b = 0; b < 7; ++b) {
      at(WAR)[a * 7 + b] = static_cast<float>(g.war[a] >> b & 1);
      at(ALLIANCE)[a * 7 + b] = static_cast<float>(g.ally[a] >> b & 1);
    }
  for (int s = 0; s < L; ++s)
    for (int b = 0; b < 7; ++b) {
      at(PERMISSIONS)[s * 7 + b] = static_cast<float>(g.perm[s] >> b & 1);
      at(DENIED)[s * 7 + b] = static_cast<float>(g.denied[s] >> b & 1);
    }

  // specials
  at(OWN_SPECIAL)[g.special[player] >= 0 ? g.special[player] : NSPEC] = 1;
  for (int r = 0; r < n; ++r) at(SPECIALS_HELD)[r] = g.special[abs_seat(r)] >= 0 ? 1.0f : 0.0f;
  for (int t = 0; t < NSPEC; ++t)
    if (g.special_played[t] >= 0) at(SPECIALS_PLAYED)[t * S + rel(g.special_played[t])] = 1;

  // sub-step context
  float* step = at(COMMIT_STEP);
  if (g.phase == Phase::COMMIT || g.phase == Phase::PERMISSION) {
    step[rel(g.step_player)] = 1;
    step[S] = scaled(g.step_normal, 2);
    step[S + 1] = scaled(g.step_extra, 2);
    step[S + 2] = g.step_closed ? 1.0f : 0.0f;
    step[S + 3] = g.step_spend >= 0 ? 1.0f : 0.0f;
    if (g.step_spend >= 0) step[S + 4 + g.step_spend] = 1;
  }
  step[S + 4 + C] = g.phase == Phase::INFLUENCE_PICK && g.pick_special_done ? 1.0f : 0.0f;
  if (g.pending.n == 3) {
    float* req = at(PERMISSION_REQUEST);
    int klass = g.pending[0];
    req[class_city(klass)] = 1;
    req[M + class_type(klass)] = 1;
    req[M + 2 + g.pending[1]] = 1;
    req[M + 2 + L + g.pending[2]] = 1;
  }
  if (g.alki.n >= 3) {
    float* alki = at(ALKIBIADES_B);
    alki[g.alki[0]] = 1;
    alki[C + rel(g.alki[1])] = 1;
    if (g.alki.n == 5) {
      alki[C + S + g.alki[3]] = 1;
      alki[C + S + C + rel(g.alki[4])] = 1;
    }
  }
  if (g.phase == Phase::DEAD_POOL) at(DEAD_POOL_CITY)[g.dp_queue[g.dp_index + 1]] = 1;
  if (g.phase == Phase::BATTLE_SPECIAL || g.phase == Phase::CASUALTY) {
    float* b = at(BATTLE);
    int slot = g.b_slot, tile = g.loc_display[slot], unit = T.loc_round[tile][g.b_round];
    b[slot] = 1;
    b[L + g.b_round] = 1;
    b[L + 2] = scaled(g.b_tokens[0], 2);
    b[L + 3] = scaled(g.b_tokens[1], 2);
    if (g.b_head >= 0) b[L + 4 + g.b_head] = 1;
    b[L + 6] = g.b_double ? 1.0f : 0.0f;
    int attack = g.strength(slot, ATT, unit) + T.loc_rebels[tile][unit];
    int defence = g.strength(slot, DEF, unit) + T.loc_militia[tile][unit];
    b[L + 7] = clipped(attack, 20);
    b[L + 8] = clipped(defence, 20);
    if (attack >= 1 && defence >= 1) b[L + 9 + crt_column(attack, defence)] = 1;
    if (g.phase == Phase::CASUALTY)
      for (int i = 0; i < g.b_cas.n; ++i) b[L + 15 + class_city(g.b_cas[i])] = 1;
  }

  // scores (B.10)
  int sc[MAXP];
  g.scores(sc);
  for (int r = 0; r < n; ++r) {
    int q = abs_seat(r);
    at(SCORES)[r] = clipped(sc[q], 50);
    at(SCORES)[S + r] = scaled(g.location_vp(q), 30);
  }

  if (!oracle) return;
  for (int q = 0; q < n; ++q)
    if (g.special[q] >= 0) at(ORACLE_SPECIALS)[g.special[q] * S + rel(q)] = 1;
  for (int k = 0; k < K; ++k) at(ORACLE_POOL)[k] = scaled(g.pool[k], 4);
  for (int i = 0; i < L * 4 * K; ++i) at(ORACLE_BOXES)[i] = scaled(g.at[i], 4);
}

void legal_mask(const Game& g, Actions& scratch, int8_t* out) {
  std::memset(out, 0, NUM_ACTIONS);
  g.legal_actions(scratch);
  for (int a : scratch) out[a] = 1;
}

}  // namespace pk::enc
