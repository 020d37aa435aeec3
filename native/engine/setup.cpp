// A game's life cycle: construction (B.1), the event log, the decision API (one legal /
// apply pair per phase, defined in the file of its rules area), the setup phase, the end of
// a turn (B.9) and scoring (B.10), and the uniform random playout.
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>

#include "engine/game.hpp"

namespace pk {

// ================= construction (B.1) =================
void Game::init_new(int num_players, bool record_events, uint64_t seed) {
  if (num_players < 3 || num_players > MAXP) throw std::invalid_argument("num_players");
  n = num_players;
  record = record_events;
  rng.state = seed;
  ev.clear();
  ev_count = 0;
  forced_dice.clear();
  turn = 1;
  decisions = 0;
  for (int p = 0; p < MAXP; ++p) supply[p] = p < n ? CUBES_PER_PLAYER : 0;
  std::fill(std::begin(cubes), std::end(cubes), 0);
  std::fill(std::begin(cand), std::end(cand), -1);
  std::fill(std::begin(leader), std::end(leader), -1);
  persian = 0;
  std::fill(std::begin(statues), std::end(statues), 0);
  std::fill(std::begin(defeats), std::end(defeats), 0);
  std::fill(std::begin(held2), std::end(held2), 0);
  std::fill(std::begin(held1), std::end(held1), 0);
  std::fill(std::begin(colours_taken), std::end(colours_taken), 0);
  last_athens = -1;
  std::copy(std::begin(T.initial), std::end(T.initial), stack);
  std::fill(std::begin(pool), std::end(pool), 0);
  std::fill(std::begin(dead), std::end(dead), 0);
  std::fill(std::begin(at), std::end(at), 0);
  std::fill(std::begin(loc_claim), std::end(loc_claim), 0);
  std::fill(std::begin(loc_done), std::end(loc_done), 0);
  clear_turn_marks();
  setup_done = picks_done = propose_cursor = dp_index = 0;
  commit_cursor = step_player = step_normal = step_extra = 0;
  step_spend = -1;
  step_closed = false;
  pick_special_done = false;
  pick_slot = -1;
  alki.clear();
  dp_queue.clear();
  b_slot = b_round = b_head = b_loser = -1;
  b_stage = 0;
  b_tokens[0] = b_tokens[1] = 0;
  b_double = false;
  b_offers.clear();
  b_cas.clear();
  influence_deck.clear();
  for (int i = 0; i < NINF; ++i) influence_deck.push(i);
  rng.shuffle(influence_deck);
  for (int i = 0; i < DISPLAY; ++i) display[i] = influence_deck.pop();
  SVec<NSPEC> specials;
  for (int i = 0; i < NSPEC; ++i) specials.push(i);
  rng.shuffle(specials);
  for (int p = 0; p < MAXP; ++p) special[p] = p < n ? specials[p] : -1;
  unseen_specials.clear();
  for (int i = n; i < NSPEC; ++i) unseen_specials.push(specials[i]);
  std::sort(unseen_specials.v, unseen_specials.v + unseen_specials.n);
  std::fill(std::begin(special_played), std::end(special_played), -1);
  loc_deck.clear();
  for (int i = 0; i < NLOC; ++i) loc_deck.push(i);
  rng.shuffle(loc_deck);
  for (int i = 0; i < SLOTS; ++i) loc_display[i] = loc_deck.pop();
  first_player = rng.randrange(n);
  commit_first = first_player;
  log_turn_start(EV_SETUP, n, first_player);
  for (int c = 0; c < NUM_CITIES; ++c)
    for (int p = 0; p < n; ++p) {
      cubes[c * 5 + p] = 2;
      supply[p] -= 2;
    }
  begin_setup();
}

void Game::clear_turn_marks() {
  std::fill(std::begin(leader), std::end(leader), -1);
  persian = 0;
  std::fill(std::begin(main_), std::end(main_), -1);
  std::fill(std::begin(side_cities), std::end(side_cities), 0);
  std::fill(std::begin(war), std::end(war), 0);
  std::fill(std::begin(ally), std::end(ally), 0);
  std::fill(std::begin(perm), std::end(perm), 0);
  std::fill(std::begin(denied), std::end(denied), 0);
  pending.clear();
  current = -1;
}

// ================= events =================
void Game::log_list(int kind, const int* args, int count) {
  if (!record) return;
  ++ev_count;
  ev.push_back(kind);
  ev.push_back(count);
  ev.insert(ev.end(), args, args + count);
}

void Game::log_turn_start(int kind, int a, int b) {  // setup / new_turn
  if (!record) return;
  int buf[2 + SLOTS + DISPLAY];
  buf[0] = a;
  buf[1] = b;
  for (int i = 0; i < SLOTS; ++i) buf[2 + i] = loc_display[i];
  for (int i = 0; i < DISPLAY; ++i) buf[2 + SLOTS + i] = display[i];
  log_list(kind, buf, 2 + SLOTS + DISPLAY);
}

// ================= cubes (B.12) =================
int Game::add_cubes(int player, int city, int count) {
  int added = std::min(count, supply[player]);
  if (added) {
    supply[player] -= added;
    cubes[city * 5 + player] += added;
  }
  log(EV_CUBES, {player, city, added});
  return added;
}

void Game::remove_cubes(int player, int city, int count) {
  cubes[city * 5 + player] -= count;
  supply[player] += count;
}

// ================= the decision API: one legal / apply pair per phase =================
void Game::legal_actions(Actions& out) const {
  out.clear();
  switch (phase) {
    case Phase::SETUP_PLACE: legal_setup(out); break;
    case Phase::INFLUENCE_PICK: legal_pick(out); break;
    case Phase::ALKIBIADES_CUBE: legal_alki_cube(out); break;
    case Phase::ALKIBIADES_DEST: legal_alki_dest(out); break;
    case Phase::ANY_CITY: legal_any_city(out); break;
    case Phase::CANDIDATE_TILE: legal_candidate(out); break;
    case Phase::ASSASSIN_TILE: legal_assassin(out); break;
    case Phase::POST_PICK_SPECIAL: legal_post_pick_special(out); break;
    case Phase::PROPOSE: legal_propose(out); break;
    case Phase::SPARTA_CHOICE: legal_sparta_choice(out); break;
    case Phase::DEAD_POOL: legal_dead_pool(out); break;
    case Phase::COMMIT: legal_commit(out); break;
    case Phase::PERMISSION: legal_permission(out); break;
    case Phase::BATTLE_SPECIAL: legal_battle_special(out); break;
    case Phase::CASUALTY: legal_casualty(out); break;
    default: break;
  }
}

// Unchecked: the caller guarantees legality (the bindings check it first).
void Game::apply_action(int a) {
  switch (phase) {
    case Phase::SETUP_PLACE: apply_setup(a); break;
    case Phase::INFLUENCE_PICK: apply_pick(a); break;
    case Phase::ALKIBIADES_CUBE: apply_alki_cube(a); break;
    case Phase::ALKIBIADES_DEST: apply_alki_dest(a); break;
    case Phase::ANY_CITY: apply_any_city(a); break;
    case Phase::CANDIDATE_TILE: apply_candidate(a); break;
    case Phase::ASSASSIN_TILE: apply_assassin(a); break;
    case Phase::POST_PICK_SPECIAL: apply_post_pick_special(a); break;
    case Phase::PROPOSE: apply_propose(a); break;
    case Phase::SPARTA_CHOICE: apply_sparta_choice(a); break;
    case Phase::DEAD_POOL: apply_dead_pool(a); break;
    case Phase::COMMIT: apply_commit(a); break;
    case Phase::PERMISSION: apply_permission(a); break;
    case Phase::BATTLE_SPECIAL: apply_battle_special(a); break;
    case Phase::CASUALTY: apply_casualty(a); break;
    default: throw std::logic_error("perikles native: apply_action on a finished game");
  }
  ++decisions;
}

int64_t Game::random_playout(uint64_t policy_seed, int64_t max_decisions, Actions& scratch) {
  Rng policy;
  policy.state = policy_seed;
  int64_t count = 0;
  while (phase != Phase::GAME_OVER && count < max_decisions) {
    legal_actions(scratch);
    apply_action(scratch[policy.randrange(static_cast<int>(scratch.size()))]);
    ++count;
  }
  return count;
}

// ================= setup placement (B.1) =================
void Game::legal_setup(Actions& out) const {
  if (supply[current])
    for (int c = 0; c < NUM_CITIES; ++c) out.push_back(SETUP_CUBE + c);
}

void Game::begin_setup() {
  setup_done = 0;
  phase = Phase::SETUP_PLACE;
  current = first_player;
}

void Game::apply_setup(int a) {
  add_cubes(current, a - SETUP_CUBE, 1);
  if (++setup_done < 2 * n) current = (current + 1) % n;
  else begin_influence_phase();
}

// ================= phase 7 and scoring (B.9, B.10) =================
void Game::end_turn() {
  if (leader[ATHENS] >= 0) last_athens = leader[ATHENS];
  for (int c = 0; c < NUM_CITIES; ++c)
    if (leader[c] >= 0) statues[c * 5 + leader[c]] += 1;
  for (int k = 0; k < NC; ++k) {
    stack[k] += pool[k];
    pool[k] = 0;
  }
  clear_turn_marks();
  int sc[MAXP];
  scores(sc);
  if (record) {
    int buf[1 + MAXP];
    buf[0] = turn;
    std::copy(sc, sc + n, buf + 1);
    log_list(EV_END_TURN, buf, 1 + n);
  }
  if (turn >= NUM_TURNS || defeats[ATHENS] >= 4 || defeats[SPARTA] >= 4) {
    phase = Phase::GAME_OVER;
    current = -1;
    if (record) {
      int buf[2 * MAXP], w[MAXP];
      std::copy(sc, sc + n, buf);
      int nw = winners(w);
      std::copy(w, w + nw, buf + n);
      log_list(EV_GAME_OVER, buf, n + nw);
    }
    return;
  }
  ++turn;
  influence_deck.clear();
  for (int i = 0; i < NINF; ++i) influence_deck.push(i);
  rng.shuffle(influence_deck);
  for (int i = 0; i < DISPLAY; ++i) display[i] = influence_deck.pop();
  for (int i = 0; i < SLOTS; ++i) loc_display[i] = loc_deck.pop();
  std::fill(std::begin(colours_taken), std::end(colours_taken), 0);
  if (last_athens >= 0) first_player = last_athens;
  log_turn_start(EV_NEW_TURN, turn, first_player);
  begin_influence_phase();
}

int Game::cube_vp(int p) const {  // B.10
  int total = 0;
  for (int c = 0; c < NUM_CITIES; ++c) total += cubes[c * 5 + p];
  for (int s : cand) total += s == p;
  return total;
}

int Game::statue_vp(int p) const {  // A.2, B.10
  int total = 0;
  for (int c = 0; c < NUM_CITIES; ++c) total += statues[c * 5 + p] * statue_value(c, defeats[c]);
  return total;
}

int Game::location_vp(int p) const {  // B.10
  int total = 0;
  for (int t = 0; t < NLOC; ++t)
    if (loc_claim[t] >> p & 1) total += T.loc_vp[t];
  return total;
}

int Game::statue_count(int p) const {
  int total = 0;
  for (int c = 0; c < NUM_CITIES; ++c) total += statues[c * 5 + p];
  return total;
}

void Game::scores(int* out) const {
  for (int p = 0; p < n; ++p) out[p] = cube_vp(p) + location_vp(p) + statue_vp(p);
}

int Game::winners(int* out) const {
  int sc[MAXP];
  scores(sc);
  std::array<int, 3> keys[MAXP], best = {INT32_MIN, INT32_MIN, INT32_MIN};
  for (int p = 0; p < n; ++p) {
    keys[p] = {sc[p], location_vp(p), statue_count(p)};
    best = std::max(best, keys[p]);
  }
  int cnt = 0;
  for (int p = 0; p < n; ++p)
    if (keys[p] == best) out[cnt++] = p;
  return cnt;
}

}  // namespace pk
