// Phase 6 of a turn (B.8, section C): the locations in display order, their rounds (C.1-C.3),
// the battle specials (Brasidas, Phormio, Thessalian cavalry, Persian fleet: D.5-D.9), dice
// and the token race (C.4-C.6), casualties (C.7) and the outcome of a location (C.8).
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "engine/game.hpp"

namespace pk {

// ---- forces at a location ----
int Game::counters(int slot, int side, int unit_type) const {
  int total = 0;
  for (int box = 0; box < 2; ++box) {
    int base = box_base(slot, side, box);
    for (int i = 0; i < T.n_type_classes[unit_type]; ++i)
      total += at[base + T.type_classes[unit_type][i]];
  }
  return total;
}

// ---- the battle loop ----
void Game::begin_battles() {
  log(EV_PHASE, {turn, PH_BATTLES, commit_first});
  b_slot = 0;
  b_round = -1;
  b_stage = 0;
  run_battles();
}

void Game::run_battles() {
  // Each pass starts a location or moves its round on (a few dozen passes a turn); a cap
  // turns a state that never advances into an error instead of a hang with the GIL held.
  for (int passes = 0; b_slot < SLOTS; ++passes) {
    if (passes == 10000) throw std::logic_error("perikles native: the battles do not advance");
    if (b_round < 0) {
      if (!start_location()) {
        finish_location();
        continue;
      }
      b_round = 0;
      b_stage = 0;
      b_head = -1;
    }
    if (!step_round()) return;
  }
  end_turn();
}

void Game::log_battle(int slot) {
  if (!record) return;
  std::vector<int> buf = {slot, tile_at(slot)};
  for (int side = 0; side < 2; ++side)
    for (int box = 0; box < 2; ++box) {
      int base = box_base(slot, side, box);
      for (int i = 0; i < T.n_existing; ++i) {
        int k = T.existing[i];
        if (at[base + k]) buf.insert(buf.end(), {side, box, k, at[base + k]});
      }
    }
  log_list(EV_BATTLE, buf.data(), static_cast<int>(buf.size()));
}

bool Game::start_location() {
  int slot = b_slot, tile = tile_at(slot);
  log_battle(slot);
  int ma = main_[slot * 2], md = main_[slot * 2 + 1];
  if (fights_rounds(tile, ma >= 0, md >= 0)) return true;
  if (ma >= 0) {
    if (counters(slot, ATT, T.loc_round[tile][T.loc_nrounds[tile] - 1])) claim(slot, ATT);
    else unclaimed(slot, WHY_NO_FINAL_ROUND_ATTACKERS);
  } else if (md >= 0) {
    unclaimed(slot, WHY_NOT_ATTACKED);
    int who[MAXP];
    int cnt = side_claimants(slot, DEF, who);
    for (int i = 0; i < cnt; ++i) add_cubes(who[i], T.loc_city[tile], 2);
  } else {
    unclaimed(slot, WHY_NO_FORCES);
  }
  return false;
}

bool Game::step_round() {
  int slot = b_slot, tile = tile_at(slot), unit_type = T.loc_round[tile][b_round];
  if (b_stage == 0) {
    int kind = round_kind(tile, unit_type, counters(slot, ATT, unit_type),
                          counters(slot, DEF, unit_type));
    if (kind == ROUND_EMPTY) {
      log(EV_ROUND_EMPTY, {slot, unit_type});
      if (b_round == T.loc_nrounds[tile] - 1) {
        unclaimed(slot, WHY_FINAL_ROUND_EMPTY);
        finish_location();
      } else {
        b_head = -1;
        ++b_round;
      }
      return true;
    }
    if (kind == ROUND_DEFENDER) {
      round_won(DEF, true);
      return true;
    }
    if (kind == ROUND_ATTACKER) {
      round_won(ATT, true);
      return true;
    }
    b_tokens[0] = b_head == ATT;
    b_tokens[1] = b_head == DEF;
    b_double = false;
    battle_offer_queue(slot, unit_type);
    b_stage = 1;
  }
  if (b_stage == 1) {
    if (!b_offers.empty()) {
      current = b_offers[0];
      phase = Phase::BATTLE_SPECIAL;
      return false;
    }
    int winner = roll_round(slot, unit_type);
    b_loser = 1 - winner;
    int tied[NMC];
    int cnt = casualty_cities(slot, b_loser, unit_type, tied);
    if (cnt > 1) {
      b_cas.clear();
      for (int i = 0; i < cnt; ++i) b_cas.push(tied[i]);
      b_stage = 2;
      current = main_[slot * 2 + b_loser];
      phase = Phase::CASUALTY;
      return false;
    }
    if (cnt) take_casualty(tied[0]);
    round_won(winner, false);
  }
  return true;
}

// ---- battle specials (D.5-D.9) ----
// Bit 0: the double tile (Brasidas/Phormio) is eligible, bit 1: the token tile.
int Game::eligible_battle_specials(int slot, int unit_type) const {
  int out = 0;
  int dbl = unit_type == HOPLITE ? BRASIDAS : PHORMIO;
  int tok = unit_type == HOPLITE ? THESSALIAN : PERSIAN_FLEET;
  int home = unit_type == HOPLITE ? SPARTA : ATHENS;
  if (special_played[dbl] < 0 && city_in_round(slot, home, unit_type) && !b_double) out |= 1;
  if (special_played[tok] < 0 && std::min(b_tokens[0], b_tokens[1]) == 0) out |= 2;
  return out;
}

bool Game::city_in_round(int slot, int city, int unit_type) const {
  for (int side = 0; side < 2; ++side)
    for (int box = 0; box < 2; ++box) {
      int base = box_base(slot, side, box);
      for (int s = 1; s <= 4; ++s)
        if (at[base + class_of(city, unit_type, s)]) return true;
    }
  return false;
}

void Game::battle_offer_queue(int slot, int unit_type) {
  b_offers.clear();
  if (!eligible_battle_specials(slot, unit_type)) return;
  for (int i = 0; i < n; ++i) {
    int p = (commit_first + i) % n;
    if (has_unused_special(p)) b_offers.push(p);
  }
}

void Game::legal_battle_special(Actions& out) const {
  int unit_type = round_type(), tile = special[current];
  out.push_back(BATTLE_PASS);
  int elig = eligible_battle_specials(b_slot, unit_type);
  int dbl = unit_type == HOPLITE ? BRASIDAS : PHORMIO;
  int tok = unit_type == HOPLITE ? THESSALIAN : PERSIAN_FLEET;
  bool eligible = (tile == dbl && (elig & 1)) || (tile == tok && (elig & 2));
  if (eligible) {
    if (tile == BRASIDAS || tile == PHORMIO) out.push_back(BATTLE_DOUBLE);
    else
      for (int side = 0; side < 2; ++side)
        if (b_tokens[side] == 0) out.push_back(BATTLE_TOKEN + side);
  }
}

void Game::apply_battle_special(int a) {
  int p = b_offers.pop_front();
  if (a != BATTLE_PASS) {
    int tile = special[p];
    special[p] = -1;
    special_played[tile] = p;
    if (a == BATTLE_DOUBLE) {
      b_double = true;
      log(EV_SPECIAL, {p, tile, b_slot});
    } else {
      int side = a - BATTLE_TOKEN;
      b_tokens[side] = 1;
      log(EV_SPECIAL, {p, tile, b_slot, side});
    }
    if (!eligible_battle_specials(b_slot, round_type())) b_offers.clear();
  }
  run_battles();
}

// ---- strength, CRT and the token race (C.4-C.6) ----
int Game::side_strength(int slot, int side, int unit_type, int doubled_city) const {
  int total = 0;
  for (int box = 0; box < 2; ++box) {
    int base = box_base(slot, side, box);
    for (int i = 0; i < T.n_type_classes[unit_type]; ++i) {
      int k = T.type_classes[unit_type][i];
      if (at[base + k])
        total += at[base + k] * class_strength(k) * (class_city(k) == doubled_city ? 2 : 1);
    }
  }
  return total;
}

int Game::strength(int slot, int side, int unit_type) const {
  int doubled = b_double ? (unit_type == HOPLITE ? SPARTA : ATHENS) : -1;
  return side_strength(slot, side, unit_type, doubled);
}

int Game::d6() {
  if (!forced_dice.empty()) return forced_dice.pop_front();
  return 1 + rng.randrange(6);
}

int Game::roll_round(int slot, int unit_type) {
  int attack, defence;
  round_strengths(slot, unit_type, &attack, &defence);
  int column = crt_column(attack, defence);
  int need_a = T.crt_att[column], need_d = T.crt_def[column];
  int* tokens = b_tokens;
  log(EV_DICE_ROUND, {slot, unit_type, attack, defence, column, tokens[0], tokens[1]});
  bool rolloff = false;
  for (int rolls = 0;; ++rolls) {  // a roll-off needs one side to hit: ends with odds >= 1/4 a roll
    if (rolls == 100000) throw std::logic_error("perikles native: a dice round never ended");
    int ra = d6();
    ra += d6();
    int rd = d6();
    rd += d6();
    bool hit_a = ra >= need_a, hit_d = rd >= need_d;
    log(EV_ROLL, {slot, ra, rd});
    if (rolloff) {
      if (hit_a != hit_d) return hit_a ? ATT : DEF;
      continue;
    }
    if (hit_a && tokens[0] < 2) ++tokens[0];
    if (hit_d && tokens[1] < 2) ++tokens[1];
    if (tokens[0] == 2 && tokens[1] == 2) rolloff = true;
    else if (tokens[0] == 2) return ATT;
    else if (tokens[1] == 2) return DEF;
  }
}

// ---- casualties (C.7) ----
int Game::casualty_box(int slot, int side, int unit_type) const {
  for (int box = 0; box < 2; ++box) {
    int base = box_base(slot, side, box);
    for (int c = 0; c < NMC; ++c)
      for (int s = 1; s <= 4; ++s)
        if (at[base + class_of(c, unit_type, s)]) return base;
  }
  return -1;
}

int Game::casualty_cities(int slot, int side, int unit_type, int* tied) const {
  int base = casualty_box(slot, side, unit_type);
  if (base < 0) return 0;
  for (int s = 1; s <= 4; ++s) {
    int cnt = 0;
    for (int c = 0; c < NMC; ++c)
      if (at[base + class_of(c, unit_type, s)]) tied[cnt++] = class_of(c, unit_type, s);
    if (cnt) return cnt;
  }
  return 0;
}

void Game::take_casualty(int klass) {
  int slot = b_slot, base = casualty_box(slot, b_loser, class_type(klass));
  if (base < 0 || klass < 0) throw std::logic_error("perikles native: casualty without a counter");
  at[base + klass] -= 1;
  if (class_city(klass) == PERSIA) stack[klass] += 1;
  else dead[klass] += 1;
  log(EV_CASUALTY, {slot, b_loser, klass});
}

void Game::legal_casualty(Actions& out) const {
  for (int i = 0; i < b_cas.n; ++i) out.push_back(CASUALTY + class_city(b_cas[i]));
  std::sort(out.begin(), out.end());
}

void Game::apply_casualty(int a) {
  int city = a - CASUALTY, klass = -1;
  for (int i = 0; i < b_cas.n; ++i)
    if (class_city(b_cas[i]) == city) {
      klass = b_cas[i];
      break;
    }
  b_cas.clear();
  take_casualty(klass);
  round_won(1 - b_loser, false);
  run_battles();
}

// ---- the outcome of a round and of a location (C.8) ----
void Game::round_won(int winner, bool automatic) {
  int slot = b_slot, tile = tile_at(slot), unit_type = T.loc_round[tile][b_round];
  log(EV_ROUND, {slot, unit_type, winner, automatic ? 1 : 0});
  return_type_home(slot, unit_type);
  b_double = false;
  b_stage = 0;
  if (b_round == T.loc_nrounds[tile] - 1) {
    if (winner == ATT) claim(slot, ATT);
    else if (main_[slot * 2 + DEF] >= 0) claim(slot, DEF);
    else unclaimed(slot, WHY_MILITIA_HELD);
    finish_location();
  } else {
    b_head = winner;
    ++b_round;
  }
}

void Game::return_type_home(int slot, int unit_type) {
  for (int side = 0; side < 2; ++side)
    for (int box = 0; box < 2; ++box) {
      int base = box_base(slot, side, box);
      for (int i = 0; i < T.n_type_classes[unit_type]; ++i) {
        int k = T.type_classes[unit_type][i];
        if (at[base + k]) {
          stack[k] += at[base + k];
          at[base + k] = 0;
        }
      }
    }
}

int Game::side_claimants(int slot, int side, int* who) const {
  int m = main_[slot * 2 + side], cnt = 0;
  if (m < 0) throw std::invalid_argument("negative shift count (no main player on that side)");
  if (persian >> m & 1) {
    for (int p = 0; p < n; ++p)
      if (persian >> p & 1) who[cnt++] = p;
    return cnt;
  }
  who[0] = m;
  return 1;
}

void Game::claim(int slot, int side) {
  int tile = tile_at(slot), who[MAXP];
  int cnt = side_claimants(slot, side, who);
  for (int i = 0; i < cnt; ++i) loc_claim[tile] |= 1 << who[i];
  loc_done[tile] = 1;
  if (side == ATT) defeats[T.loc_city[tile]] += 1;
  if (record) {
    int buf[3 + MAXP];
    buf[0] = slot;
    buf[1] = tile;
    buf[2] = side == ATT;
    std::copy(who, who + cnt, buf + 3);
    log_list(EV_CLAIM, buf, 3 + cnt);
  }
}

void Game::unclaimed(int slot, int why) {
  int tile = tile_at(slot);
  loc_done[tile] = 1;
  log(EV_UNCLAIMED, {slot, tile, why});
}

void Game::finish_location() {
  return_type_home(b_slot, HOPLITE);
  return_type_home(b_slot, TRIREME);
  ++b_slot;
  b_round = -1;
  b_stage = 0;
}

}  // namespace pk
