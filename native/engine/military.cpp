// Phase 5 of a turn (B.7): Sparta's choice, the dead pool, commitment steps, placement
// legality (B.7.6, queries.placement_targets), permission requests and the Slave Revolt (D.4).
#include <algorithm>
#include <stdexcept>

#include "engine/game.hpp"

namespace pk {

// ---- control of forces and Sparta's choice (B.7.1, B.7.2) ----
void Game::begin_military_phase() {
  for (int c = 0; c < NMC; ++c) {
    bool controlled = c < NUM_CITIES ? leader[c] >= 0 : persian != 0;
    if (controlled)
      for (int k = c * 8; k < c * 8 + 8; ++k) {
        pool[k] += stack[k];
        stack[k] = 0;
      }
  }
  if (leader[SPARTA] >= 0) {
    current = leader[SPARTA];
    phase = Phase::SPARTA_CHOICE;
  } else {
    commit_first = first_player;
    begin_dead_pool();
  }
}

void Game::legal_sparta_choice(Actions& out) const {
  for (int off = 0; off < n; ++off) out.push_back(SPARTA_FIRST + off);
}

void Game::apply_sparta_choice(int a) {
  commit_first = seat(a - SPARTA_FIRST);
  log(EV_SPARTA_FIRST, {current, commit_first});
  begin_dead_pool();
}

// ---- the dead pool (B.7.3) ----
void Game::begin_dead_pool() {
  dp_queue.clear();
  for (int i = 0; i < n; ++i) {
    int p = (commit_first + i) % n;
    for (int c = 0; c < NUM_CITIES; ++c)
      if (leader[c] == p) {
        dp_queue.push(p);
        dp_queue.push(c);
      }
  }
  dp_index = 0;
  next_dead_pool();
}

bool Game::dead_of(int city, int t) const {
  for (int s = 1; s <= 4; ++s)
    if (dead[class_of(city, t, s)]) return true;
  return false;
}

void Game::next_dead_pool() {
  while (dp_index < dp_queue.n) {
    int p = dp_queue[dp_index], city = dp_queue[dp_index + 1];
    bool h = dead_of(city, HOPLITE), t = dead_of(city, TRIREME);
    if (h && t) {
      current = p;
      phase = Phase::DEAD_POOL;
      return;
    }
    if (h) recover(p, city, HOPLITE);
    else if (t) recover(p, city, TRIREME);
    dp_index += 2;
  }
  begin_commit();
}

void Game::recover(int player, int city, int unit_type) {
  for (int s = 1; s <= 4; ++s) {
    int k = class_of(city, unit_type, s);
    if (dead[k]) {
      dead[k] -= 1;
      pool[k] += 1;
      log(EV_RECOVER, {player, k});
      return;
    }
  }
}

void Game::legal_dead_pool(Actions& out) const {
  out.push_back(DEAD_POOL);
  out.push_back(DEAD_POOL + 1);
}

void Game::apply_dead_pool(int a) {
  recover(current, dp_queue[dp_index + 1], a - DEAD_POOL);
  dp_index += 2;
  next_dead_pool();
}

// ---- commitment steps (B.7.4, B.7.5, B.7.9) ----
void Game::begin_commit() {
  log(EV_PHASE, {turn, PH_COMMIT, commit_first});
  commit_cursor = commit_first;
  next_commit_step();
}

void Game::next_commit_step() {
  for (int passes = 0;; ++passes) {  // each pass takes a held tile or moves the cursor on
    if (passes == 100000) throw std::logic_error("perikles native: the commit steps do not advance");
    bool any2 = false, any1 = false;
    for (int v : held2) any2 |= v != 0;
    for (int v : held1) any1 |= v != 0;
    if (!any2 && !any1) {
      begin_battles();
      return;
    }
    int p = commit_cursor;
    commit_cursor = (p + 1) % n;
    if (any2) {
      if (!held2[p]) continue;
      held2[p] -= 1;
    } else if (held1[p]) {
      held1[p] -= 1;
    } else {
      continue;
    }
    step_player = p;
    step_normal = step_extra = 0;
    step_spend = -1;
    step_closed = false;
    std::fill(std::begin(denied), std::end(denied), 0);
    current = p;
    phase = Phase::COMMIT;
    if (step_is_idle()) {
      log(EV_COMMIT_NOTHING, {p});
      continue;
    }
    return;
  }
}

bool Game::step_is_idle() const {
  if (has_unused_special(current)) return false;
  int p = step_player, mask = placeable_cities();
  for (int x = 0; x < NMC; ++x)
    if ((mask >> x & 1) && has_placement(p, x)) return false;
  bool can_spend = step_spend < 0 && step_normal >= 1 && !step_closed;
  return !(can_spend && has_spend(p));
}

void Game::end_step_if_idle() {
  if (step_is_idle()) next_commit_step();
}

// ---- placement legality (B.7.6, B.7.7; queries.placement_targets) ----
// Over all slots, or over `nslots` of `slots` in that order; `out` holds 2 per slot.
int Game::open_targets(int p, int x, bool first, bool skip_hoplite_only, Target* out,
                 const int* slots, int nslots) const {
  int led = led_mask(p), xbit = 1 << x, war_x = war[x], ally_x = ally[x], cnt = 0;
  for (int i = 0; i < nslots; ++i) {
    int slot = slots ? slots[i] : i, tile = loc_display[slot];
    if (skip_hoplite_only && T.loc_hoplite_only[tile]) continue;
    int owner = T.loc_city[tile], owner_leader = leader[owner];
    int attackers = side_cities[slot * 2], defenders = side_cities[slot * 2 + 1] | (1 << owner);
    if (!(main_[slot * 2 + 1] == p || owner_leader == p || (defenders & xbit) ||
          (ally_x & defenders) || (led & defenders) || (war_x & attackers))) {
      out[cnt++] = {slot, ATT, LEGAL};
      if (first) return cnt;
    }
    if (main_[slot * 2] == p || (attackers & xbit) || (war_x & defenders) ||
        (ally_x & attackers) || (led & attackers))
      continue;
    if (owner_leader == p || (perm[slot] & xbit)) out[cnt++] = {slot, DEF, LEGAL};
    else if (owner_leader >= 0 && !(denied[slot] & xbit)) out[cnt++] = {slot, DEF, NEEDS_PERMISSION};
    if (first && cnt) return cnt;
  }
  return cnt;
}

// queries.placement_status
int Game::target_status(int p, int x, int slot, int side) const {
  Target t[2];
  int cnt = open_targets(p, x, false, false, t, &slot, 1);
  for (int i = 0; i < cnt; ++i)
    if (t[i].side == side) return t[i].status;
  return ILLEGAL;
}

// queries.class_placement_status: with the hoplite-only rule (E24)
int Game::class_placement_status(int p, int klass, int slot, int side) const {
  if (class_type(klass) == TRIREME && T.loc_hoplite_only[loc_display[slot]]) return ILLEGAL;
  return target_status(p, class_city(klass), slot, side);
}

int Game::placeable_cities() const {
  if (step_closed) return 0;
  if (step_spend < 0) return step_normal < 2 ? led_mask(step_player) : 0;
  if (step_extra >= 2) return 0;
  return 1 << ((persian >> step_player & 1) ? PERSIA : step_spend);
}

// Whether a pool counter of city x has a legal target (statuses 1 and 2).
bool Game::has_placement(int p, int x) const {
  bool any = false, hoplite = false;
  for (int k = x * 8; k < x * 8 + 8; ++k)
    if (pool[k]) {
      any = true;
      hoplite |= class_type(k) == HOPLITE;
    }
  if (!any) return false;
  Target t[2 * SLOTS];
  return open_targets(p, x, true, !hoplite, t) > 0;
}

// The PLACE actions of city x in increasing id order: class, then slot, then side.
void Game::sorted_placements(int p, int x, Actions& out) const {
  int classes[8], nc = 0, nh = 0;
  for (int k = x * 8; k < x * 8 + 8; ++k)
    if (pool[k]) {
      classes[nc++] = k;
      nh += class_type(k) == HOPLITE;
    }
  if (!nc) return;
  Target t[2 * SLOTS];
  int cnt = open_targets(p, x, false, nh == 0, t);
  for (int j = 0; j < nc; ++j) {
    int k = classes[j];
    bool trireme = class_type(k) == TRIREME;
    for (int i = 0; i < cnt; ++i) {
      if (trireme && T.loc_hoplite_only[loc_display[t[i].slot]]) continue;  // E24
      out.push_back(PLACE + (k * SLOTS + t[i].slot) * 2 + t[i].side);
    }
  }
}

// Built in increasing id order (ranges PLACE < SPEND_CUBE < SLAVE_REVOLT < END_STEP),
// so no sort is needed: the same list as the Python engine's sorted one.
void Game::legal_commit(Actions& out) const {
  int p = step_player, mask = placeable_cities();
  for (int x = 0; x < NMC; ++x)
    if (mask >> x & 1) sorted_placements(p, x, out);
  if (step_spend < 0 && step_normal >= 1 && !step_closed) spend_actions(p, &out);
  slave_revolt_actions(p, out);
  out.push_back(END_STEP);
}

bool Game::spend_actions(int p, Actions* out) const {
  bool any = false;
  if (persian >> p & 1) {
    if (has_placement(p, PERSIA))
      for (int c = 0; c < NUM_CITIES; ++c)
        if (cubes[c * 5 + p]) {
          if (!out) return true;
          out->push_back(SPEND_CUBE + c);
          any = true;
        }
    return any;
  }
  for (int c = 0; c < NUM_CITIES; ++c)
    if (leader[c] == p && cubes[c * 5 + p] && has_placement(p, c)) {
      if (!out) return true;
      out->push_back(SPEND_CUBE + c);
      any = true;
    }
  return any;
}

bool Game::has_spend(int p) const { return spend_actions(p, nullptr); }

int Game::spartan_hoplites_at(int slot, int* cells) const {
  int cnt = 0;
  for (int box = slot * 4; box < slot * 4 + 4; ++box) {
    int base = box * NC;
    for (int k = 8; k < 12; ++k)
      if (at[base + k]) cells[cnt++] = base + k;
  }
  return cnt;
}

void Game::slave_revolt_actions(int p, Actions& out) const {
  if (special[p] != SLAVE_REVOLT_TILE || step_closed || leader[SPARTA] < 0) return;
  if (pool[8] || pool[9] || pool[10] || pool[11]) out.push_back(SLAVE_REVOLT);
  int cells[16];
  for (int slot = 0; slot < SLOTS; ++slot)
    if (spartan_hoplites_at(slot, cells)) out.push_back(SLAVE_REVOLT + 1 + slot);
}

void Game::apply_commit(int a) {
  if (a == END_STEP) {
    log(EV_END_STEP, {current});
    next_commit_step();
    return;
  }
  if (a >= SLAVE_REVOLT) {
    slave_revolt(a - SLAVE_REVOLT);
  } else if (a >= SPEND_CUBE) {
    int city = a - SPEND_CUBE;
    remove_cubes(current, city, 1);
    step_spend = city;
    log(EV_SPEND_CUBE, {current, city});
  } else {
    int rest = (a - PLACE) / 2, side = (a - PLACE) % 2;
    int klass = rest / SLOTS, slot = rest % SLOTS, x = class_city(klass);
    if (target_status(current, x, slot, side) == NEEDS_PERMISSION) {
      pending.clear();
      pending.push(klass);
      pending.push(slot);
      pending.push(side);
      current = leader[T.loc_city[loc_display[slot]]];
      phase = Phase::PERMISSION;
      log(EV_ASK_PERMISSION, {step_player, x, slot});
      return;
    }
    place(klass, slot, side);
  }
  end_step_if_idle();
}

void Game::place(int klass, int slot, int side) {
  int p = step_player, x = class_city(klass), ms = slot * 2 + side, m = main_[ms], box;
  if (m < 0) {
    main_[ms] = p;
    box = 0;
  } else if (m == p || (x == PERSIA && (persian >> m & 1))) {
    box = 0;
  } else {
    box = 1;
  }
  pool[klass] -= 1;
  at[(ms * 2 + box) * NC + klass] += 1;
  int owner = T.loc_city[loc_display[slot]];
  int attackers = side_cities[slot * 2], defenders = side_cities[slot * 2 + 1] | (1 << owner);
  if (side == ATT) {
    relate(x, defenders, war);
    relate(x, attackers, ally);
  } else {
    relate(x, attackers, war);
    relate(x, defenders, ally);
  }
  side_cities[ms] |= 1 << x;
  if (step_spend < 0) ++step_normal;
  else ++step_extra;
  log(EV_PLACE, {p, x, class_type(klass), slot, side, box});
}

void Game::relate(int x, int mask, int* table) {
  mask &= ~(1 << x);
  table[x] |= mask;
  for (int c = 0; c < NMC; ++c)
    if (mask >> c & 1) table[c] |= 1 << x;
}

// ---- permission to defend (B.7.8) ----
void Game::legal_permission(Actions& out) const {
  out.push_back(GRANT);
  out.push_back(DENY);
}

void Game::apply_permission(int a) {
  int klass = pending[0], slot = pending[1], side = pending[2], x = class_city(klass);
  pending.clear();
  bool granted = a == GRANT;
  log(EV_PERMISSION, {current, x, slot, granted ? 1 : 0});
  current = step_player;
  phase = Phase::COMMIT;
  if (granted) {
    perm[slot] |= 1 << x;
    place(klass, slot, side);
  } else {
    denied[slot] |= 1 << x;
  }
  end_step_if_idle();
}

// ---- the Slave Revolt (D.4) ----
int Game::draw(const int* weights, int count) {
  int total = 0;
  for (int i = 0; i < count; ++i) total += weights[i];
  int r = rng.randrange(total);
  for (int i = 0; i < count; ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  throw std::logic_error("perikles native: draw out of range");
}

void Game::slave_revolt(int source) {
  int p = current, k;
  special[p] = -1;
  special_played[SLAVE_REVOLT_TILE] = p;
  if (source == 0) {
    k = 8 + draw(pool + 8, 4);
    pool[k] -= 1;
  } else {
    int cells[16], weights[16];
    int cnt = spartan_hoplites_at(source - 1, cells);
    for (int i = 0; i < cnt; ++i) weights[i] = at[cells[i]];
    int cell = cells[draw(weights, cnt)];
    at[cell] -= 1;
    k = cell % NC;
    refresh_side_cities(source - 1);
  }
  stack[k] += 1;
  if (step_normal || step_extra) step_closed = true;
  log(EV_SPECIAL, {p, SLAVE_REVOLT_TILE});
  log(EV_SLAVE_REVOLT, {p, source, k});
}

void Game::refresh_side_cities(int slot) {
  for (int side = 0; side < 2; ++side) {
    int mask = 0;
    for (int box = 0; box < 2; ++box) {
      int base = ((slot * 2 + side) * 2 + box) * NC;
      for (int i = 0; i < T.n_existing; ++i)
        if (at[base + T.existing[i]]) mask |= 1 << class_city(T.existing[i]);
    }
    side_cities[slot * 2 + side] = mask;
  }
}

}  // namespace pk
