// Phases 2-4 of a turn (B.4-B.6): influence tile picks, the influence specials (Perikles,
// Plague, Alkibiades), candidates and assassins, proposals and elections.
#include <algorithm>

#include "engine/game.hpp"

namespace pk {

// ================= phase 2: influence (B.4) =================
void Game::begin_influence_phase() {
  picks_done = 0;
  log(EV_PHASE, {turn, PH_INFLUENCE, first_player});
  begin_pick();
}

void Game::begin_pick() {
  int total = T.tiles_per_player[n] * n;
  while (picks_done < total) {
    int player = (first_player + picks_done) % n;
    bool any = false;
    for (int t : display) any |= t >= 0;
    if (any) {
      current = player;
      phase = Phase::INFLUENCE_PICK;
      pick_special_done = false;
      pick_slot = -1;
      return;
    }
    log(EV_PICK_SKIPPED, {player});
    ++picks_done;
  }
  begin_proposals();
}

void Game::influence_special_actions(int p, Actions& out) const {
  int tile = special[p];
  if (tile == PERIKLES) out.push_back(PLAY_PERIKLES);
  else if (tile == PLAGUE)
    for (int c = 0; c < NUM_CITIES; ++c) out.push_back(PLAY_PLAGUE + c);
  else if (tile == ALKIBIADES && total_cubes() >= 2) alki_cube_actions(-1, -1, out);
}

void Game::legal_pick(Actions& out) const {
  int p = current, taken = colours_taken[p];
  bool fresh_any = false;
  for (int s = 0; s < DISPLAY; ++s)
    if (display[s] >= 0 && !(taken >> T.inf_colour[display[s]] & 1)) fresh_any = true;
  for (int s = 0; s < DISPLAY; ++s)
    if (display[s] >= 0 && (!fresh_any || !(taken >> T.inf_colour[display[s]] & 1)))
      out.push_back(TAKE_TILE + s);
  if (!pick_special_done) influence_special_actions(p, out);
  std::sort(out.begin(), out.end());
}

void Game::apply_pick(int a) {
  if (a >= TAKE_TILE + DISPLAY || a < TAKE_TILE) {
    play_influence_special(a, false);
    return;
  }
  int p = current, slot = a - TAKE_TILE, tile_id = display[slot];
  int colour = T.inf_colour[tile_id], kind = T.inf_kind[tile_id];
  display[slot] = -1;
  pick_slot = slot;
  colours_taken[p] |= 1 << colour;
  if (T.inf_shards[tile_id] == 2) ++held2[p];
  else ++held1[p];
  log(EV_TAKE_TILE, {p, tile_id});
  if (kind == PLAIN) {
    add_cubes(p, colour, 2);
  } else if (kind == ANY_KIND) {
    phase = Phase::ANY_CITY;
    return;
  } else {
    add_cubes(p, colour, 1);
    if (kind == CANDIDATE && has_proposals(p)) {
      phase = Phase::CANDIDATE_TILE;
      return;
    }
    if (kind == ASSASSIN) {
      int targets = total_cubes();
      for (int c : cand) targets += c >= 0;
      if (targets) {
        phase = Phase::ASSASSIN_TILE;
        return;
      }
    }
    log(EV_ACTION_SKIPPED, {p, kind});
  }
  after_tile();
}

void Game::after_tile() {
  int p = current;
  bool unplayed = special_played[PERIKLES] < 0 || special_played[PLAGUE] < 0 ||
                  special_played[ALKIBIADES] < 0;
  if (!pick_special_done && has_unused_special(p) && unplayed) {
    phase = Phase::POST_PICK_SPECIAL;
    return;
  }
  finish_pick();
}

void Game::finish_pick() {
  if (pick_slot >= 0 && !influence_deck.empty()) display[pick_slot] = influence_deck.pop();
  ++picks_done;
  begin_pick();
}

void Game::legal_any_city(Actions& out) const {
  for (int c = 0; c < NUM_CITIES; ++c) out.push_back(ANY_CITY + c);
}

void Game::apply_any_city(int a) {
  add_cubes(current, a - ANY_CITY, 1);
  after_tile();
}

void Game::legal_candidate(Actions& out) const { proposals(current, out); }

void Game::apply_candidate(int a) {
  propose(a);
  after_tile();
}

void Game::legal_post_pick_special(Actions& out) const {
  out.push_back(END_PICK);
  influence_special_actions(current, out);
  std::sort(out.begin(), out.end());
}

void Game::apply_post_pick_special(int a) {
  if (a == END_PICK) finish_pick();
  else play_influence_special(a, true);
}

// ---- influence specials (D.1-D.3) ----
void Game::mark_special_played(int p, int tile) {
  special[p] = -1;
  special_played[tile] = p;
  pick_special_done = true;
  log(EV_SPECIAL, {p, tile});
}

void Game::play_influence_special(int a, bool after) {
  int p = current;
  if (a == PLAY_PERIKLES) {
    mark_special_played(p, PERIKLES);
    add_cubes(p, ATHENS, 2);
  } else if (a >= PLAY_PLAGUE && a < PLAY_PLAGUE + NUM_CITIES) {
    mark_special_played(p, PLAGUE);
    plague(a - PLAY_PLAGUE);
  } else {
    mark_special_played(p, ALKIBIADES);
    int city = (a - ALKIBIADES_CUBE) / MAXP, off = (a - ALKIBIADES_CUBE) % MAXP;
    alki.clear();
    alki.push(city);
    alki.push(seat(off));
    alki.push(after ? 1 : 0);
    phase = Phase::ALKIBIADES_CUBE;
    return;
  }
  resume_after_special(after);
}

void Game::resume_after_special(bool after) {
  if (after) finish_pick();
  else phase = Phase::INFLUENCE_PICK;
}

void Game::plague(int city) {
  int losses[MAXP];
  plague_losses(city, losses);
  for (int q = 0; q < n; ++q) {
    if (losses[q]) remove_cubes(q, city, losses[q]);
    log(EV_PLAGUE_LOSS, {q, city, losses[q]});
  }
}

void Game::alki_cube_actions(int city, int owner, Actions& out) const {
  for (int c = 0; c < NUM_CITIES; ++c)
    for (int off = 0; off < n; ++off) {
      int q = (current + off) % n;
      int have = cubes[c * 5 + q] - (c == city && q == owner);
      if (have > 0) out.push_back(ALKIBIADES_CUBE + c * MAXP + off);
    }
}

void Game::legal_alki_cube(Actions& out) const { alki_cube_actions(alki[0], alki[1], out); }

void Game::apply_alki_cube(int a) {
  int city = (a - ALKIBIADES_CUBE) / MAXP, off = (a - ALKIBIADES_CUBE) % MAXP;
  alki.n = 3;
  alki.push(city);
  alki.push(seat(off));
  phase = Phase::ALKIBIADES_DEST;
}

void Game::legal_alki_dest(Actions& out) const {
  for (int c = 0; c < NUM_CITIES; ++c)
    if (c != alki[0] && c != alki[3]) out.push_back(ALKIBIADES_DEST + c);
}

void Game::apply_alki_dest(int a) {
  int dest = a - ALKIBIADES_DEST;
  int moves[2][2] = {{alki[0], alki[1]}, {alki[3], alki[4]}};
  bool after = alki[2] != 0;
  for (auto& m : moves) {
    cubes[m[0] * 5 + m[1]] -= 1;
    cubes[dest * 5 + m[1]] += 1;
    log(EV_ALKI_MOVE, {m[1], m[0], dest});
  }
  alki.clear();
  resume_after_special(after);
}

// ---- assassins (B.4 step 3, E16) ----
// queries.assassination_targets as ASSASSINATE ids, seats from `first`.
void Game::assassination_targets(int first, Actions& out) const {
  for (int c = 0; c < NUM_CITIES; ++c) {
    for (int off = 0; off < n; ++off)
      if (cubes[c * 5 + (first + off) % n]) out.push_back(ASSASSINATE + c * 7 + off);
    if (cand[c * 2] >= 0) out.push_back(ASSASSINATE + c * 7 + 5);
    if (cand[c * 2 + 1] >= 0) out.push_back(ASSASSINATE + c * 7 + 6);
  }
}

void Game::legal_assassin(Actions& out) const { assassination_targets(current, out); }

void Game::apply_assassin(int a) {
  int city = (a - ASSASSINATE) / 7, target = (a - ASSASSINATE) % 7;
  int victim, where;
  if (target < MAXP) {
    victim = seat(target);
    remove_cubes(victim, city, 1);
    where = 0;
  } else {
    int s = city * 2 + (target - 5);
    victim = cand[s];
    supply[victim] += 1;
    cand[s] = -1;
    if (s % 2 == 0 && cand[s + 1] >= 0) {
      cand[s] = cand[s + 1];
      cand[s + 1] = -1;
    }
    where = target == 5 ? 1 : 2;
  }
  log(EV_ASSASSINATE, {current, city, victim, where});
  after_tile();
}

// ================= phase 3: proposals (B.5, E12) =================
void Game::begin_proposals() {
  log(EV_PHASE, {turn, PH_PROPOSALS, first_player});
  propose_cursor = first_player;
  next_proposal();
}

void Game::next_proposal() {
  for (int i = 0; i < n; ++i) {
    bool full = true;
    for (int c : cand) full &= c >= 0;
    if (full) break;
    int p = propose_cursor;
    if (has_proposals(p)) {
      current = p;
      phase = Phase::PROPOSE;
      return;
    }
    log(EV_PROPOSE_PASS, {p});
    propose_cursor = (p + 1) % n;
  }
  elections();
}

namespace {

// The PROPOSE ids open to `p` into `out` or, FIRST, just whether there is one.
template <bool FIRST>
bool proposals_of(const Game& g, int p, Actions* out) {
  const int n = g.n;
  for (int c = 0; c < NUM_CITIES; ++c) {
    int alpha = g.cand[c * 2], beta = g.cand[c * 2 + 1];
    if (beta >= 0) continue;
    if (!(g.cubes[c * 5 + p] || alpha == p)) continue;
    for (int off = 0; off < n; ++off) {
      int q = (p + off) % n;
      if (g.cubes[c * 5 + q] && q != alpha) {
        if (FIRST) return true;
        out->push_back(PROPOSE + c * MAXP + off);
      }
    }
  }
  return false;
}

}  // namespace

void Game::proposals(int p, Actions& out) const { proposals_of<false>(*this, p, &out); }

bool Game::has_proposals(int p) const { return proposals_of<true>(*this, p, nullptr); }

void Game::legal_propose(Actions& out) const { proposals(current, out); }

void Game::apply_propose(int a) {
  propose(a);
  propose_cursor = (current + 1) % n;
  next_proposal();
}

void Game::propose(int a) {
  int city = (a - PROPOSE) / MAXP, off = (a - PROPOSE) % MAXP;
  int q = seat(off);
  int slot = city * 2 + (cand[city * 2] < 0 ? 0 : 1);
  cand[slot] = q;
  cubes[city * 5 + q] -= 1;
  log(EV_PROPOSE, {current, city, q, slot & 1});
}

// ================= phase 4: elections (B.6) =================
void Game::elections() {
  for (int c = 0; c < NUM_CITIES; ++c) {
    int loss, winner = election_outcome(c, &loss);
    int alpha = cand[c * 2], beta = cand[c * 2 + 1];
    cand[c * 2] = cand[c * 2 + 1] = -1;
    if (winner < 0) {
      log(EV_ELECTION, {c, -1, 0});
      continue;
    }
    supply[alpha] += 1;
    if (beta >= 0) supply[beta] += 1;
    remove_cubes(winner, c, loss);
    leader[c] = winner;
    log(EV_ELECTION, {c, winner, loss});
  }
  persian = 0;
  int buf[MAXP], cnt = 0;
  for (int p = 0; p < n; ++p) {
    bool leads = false;
    for (int l : leader) leads |= l == p;
    if (!leads) {
      persian |= 1 << p;
      buf[cnt++] = p;
    }
  }
  log_list(EV_PERSIAN_LEADERS, buf, cnt);
  begin_military_phase();
}

}  // namespace pk
