// The Perikles rules engine in C++20: a line-by-line port of perikles_env/engine (the
// Python engine is the reference; tests/native proves the two identical). Component data
// (influence and location tiles, counters, statue tracks, CRT) is not copied here: the
// Python glue passes perikles_env/engine/data.py's tables to `configure` once at import.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "generated/schema.hpp"
#include "svec.hpp"

namespace pk {


inline int class_city(int k) { return k / 8; }
inline int class_type(int k) { return (k / 4) % 2; }
inline int class_strength(int k) { return k % 4 + 1; }
inline int class_of(int c, int t, int s) { return c * 8 + t * 4 + (s - 1); }

inline int crt_column(int attack, int defence) {
  if (attack >= defence) {
    if (attack >= 3 * defence) return 5;
    if (attack >= 2 * defence) return 4;
    if (attack >= defence + 2) return 3;
    return 2;
  }
  if (defence >= 2 * attack) return 0;
  if (defence >= attack + 2) return 1;
  return 2;
}

inline int statue_value(int city, int defeats) {
  return defeats < T.statue_len[city] ? T.statue[city][defeats] : 0;
}

struct Target {
  int slot, side, status;
};

// queries.py: placement statuses and the kinds of a combat round (C.3).
constexpr int ILLEGAL = 0, LEGAL = 1, NEEDS_PERMISSION = 2;
constexpr int ROUND_EMPTY = 0, ROUND_ATTACKER = 1, ROUND_DEFENDER = 2, ROUND_DICE = 3;
struct Round {
  int unit_type, kind, attack, defence;
};

using Actions = std::vector<int>;

struct Game : State {
  // Events as [kind, nargs, args...]; only those logged since construction or load.
  std::vector<int32_t> ev;
  int64_t ev_count = 0;

  // ---- scratch (not state) ----
  int scratch[64];

  // ================= construction (B.1) =================
  void init_new(int num_players, bool record_events, uint64_t seed) {
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

  void clear_turn_marks() {
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
  void log(int kind, std::initializer_list<int> args) {
    if (!record) return;
    ++ev_count;
    ev.push_back(kind);
    ev.push_back(static_cast<int32_t>(args.size()));
    ev.insert(ev.end(), args.begin(), args.end());
  }
  void log_list(int kind, const int* args, int count) {
    if (!record) return;
    ++ev_count;
    ev.push_back(kind);
    ev.push_back(count);
    ev.insert(ev.end(), args, args + count);
  }
  void log_turn_start(int kind, int a, int b) {  // setup / new_turn
    if (!record) return;
    int buf[2 + SLOTS + DISPLAY];
    buf[0] = a;
    buf[1] = b;
    for (int i = 0; i < SLOTS; ++i) buf[2 + i] = loc_display[i];
    for (int i = 0; i < DISPLAY; ++i) buf[2 + SLOTS + i] = display[i];
    log_list(kind, buf, 2 + SLOTS + DISPLAY);
  }

  // ================= small helpers =================
  int seat(int offset) const { return (current + offset) % n; }
  int add_cubes(int player, int city, int count) {
    int added = std::min(count, supply[player]);
    if (added) {
      supply[player] -= added;
      cubes[city * 5 + player] += added;
    }
    log(EV_CUBES, {player, city, added});
    return added;
  }
  void remove_cubes(int player, int city, int count) {
    cubes[city * 5 + player] -= count;
    supply[player] += count;
  }
  int led_mask(int player) const {
    int mask = 0;
    for (int c = 0; c < NUM_CITIES; ++c)
      if (leader[c] == player) mask |= 1 << c;
    if (player >= 0 && (persian >> player & 1)) mask |= 1 << PERSIA;
    return mask;
  }
  bool has_unused_special(int p) const { return special[p] >= 0; }
  int total_cubes() const {
    int s = 0;
    for (int v : cubes) s += v;
    return s;
  }

  // ================= rule queries (perikles_env/engine/queries.py) =================
  // The rules below call these, and bindings.cpp answers queries.py's functions with them
  // for a NativeGame (the placement queries are under phase 5, the VP ones under scoring).
  static bool fights_rounds(int tile, bool attacked, bool defended) {  // C.2
    return attacked && (defended || T.loc_militia[tile][0] || T.loc_militia[tile][1]);
  }
  static int round_kind(int tile, int unit_type, int attackers, int defenders) {  // C.3
    if (!attackers) return defenders ? ROUND_DEFENDER : ROUND_EMPTY;
    if (defenders || T.loc_militia[tile][unit_type]) return ROUND_DICE;
    return ROUND_ATTACKER;
  }
  // Game.round_strengths: (attack, defence) entering the CRT for a round at `slot` now
  // (C.4, D.5, D.7): counters (doubled by a Brasidas / Phormio on this round), rebels, militia.
  void round_strengths(int slot, int unit_type, int* attack, int* defence) const {
    int tile = tile_at(slot);
    *attack = strength(slot, ATT, unit_type) + T.loc_rebels[tile][unit_type];
    *defence = strength(slot, DEF, unit_type) + T.loc_militia[tile][unit_type];
  }
  // Game.predicted_rounds (queries.location_rounds with the counters at `slot` now, no
  // doubling); returns the number of rounds written to `out` (at most 2).
  int predicted_rounds(int slot, Round* out) const {
    int tile = tile_at(slot), count = T.loc_nrounds[tile];
    for (int i = 0; i < count; ++i) {
      int t = T.loc_round[tile][i];
      int attack = side_strength(slot, ATT, t, -1), defence = side_strength(slot, DEF, t, -1);
      int kind = round_kind(tile, t, counters(slot, ATT, t), counters(slot, DEF, t));
      if (kind == ROUND_DICE) {
        attack += T.loc_rebels[tile][t];
        defence += T.loc_militia[tile][t];
      }
      out[i] = {t, kind, attack, defence};
    }
    return count;
  }
  // Cubes each of the n players loses in `city` to Plague (D.2, E19).
  void plague_losses(int city, int* out) const {
    for (int q = 0; q < n; ++q) {
      int in_main = cubes[city * 5 + q];
      int total = in_main + (cand[city * 2] == q) + (cand[city * 2 + 1] == q);
      out[q] = std::min(total / 2, in_main);
    }
  }
  // The leader elected in `city` (-1: none) and the cubes he loses (B.6, E36).
  int election_outcome(int city, int* loss) const {
    int alpha = cand[city * 2], beta = cand[city * 2 + 1];
    *loss = 0;
    if (alpha < 0) return -1;
    if (beta < 0) return alpha;
    int a_count = cubes[city * 5 + alpha], b_count = cubes[city * 5 + beta];
    if (a_count >= b_count) {
      *loss = b_count;
      return alpha;
    }
    *loss = a_count;
    return beta;
  }
  int cube_vp(int p) const {  // B.10
    int total = 0;
    for (int c = 0; c < NUM_CITIES; ++c) total += cubes[c * 5 + p];
    for (int s : cand) total += s == p;
    return total;
  }
  int statue_vp(int p) const {  // A.2, B.10
    int total = 0;
    for (int c = 0; c < NUM_CITIES; ++c) total += statues[c * 5 + p] * statue_value(c, defeats[c]);
    return total;
  }

  // ================= determinize (perikles_env/engine/determinize.py) =================
  // Resample everything hidden from `player` (docs/rules.md F) in place: the same draws of
  // the same SplitMix64 stream in the same order as the Python reference, so the same seed
  // gives the same sample on both engines. The caller works on a copy.
  int revealed_slot() const {  // information.revealed_slot
    return (phase == Phase::BATTLE_SPECIAL || phase == Phase::CASUALTY) && b_round >= 0 ? b_slot : -1;
  }
  void determinize(int player, uint64_t seed) {
    Rng r;
    r.state = seed;
    resample_specials(player, r);
    resample_strengths(player, r);
    std::sort(influence_deck.v, influence_deck.v + influence_deck.n);
    r.shuffle(influence_deck);
    std::sort(loc_deck.v, loc_deck.v + loc_deck.n);
    r.shuffle(loc_deck);
    rng.state = r.next64();
  }
  void resample_specials(int player, Rng& r) {
    int holders[MAXP], nh = 0;
    SVec<NSPEC + MAXP> hidden;
    for (int q = 0; q < n; ++q)
      if (q != player && special[q] >= 0) {
        holders[nh++] = q;
        hidden.push(special[q]);
      }
    for (int i = 0; i < unseen_specials.n; ++i) hidden.push(unseen_specials[i]);
    std::sort(hidden.v, hidden.v + hidden.n);
    r.shuffle(hidden);
    for (int i = 0; i < nh; ++i) special[holders[i]] = hidden.pop();
    std::sort(hidden.v, hidden.v + hidden.n);
    unseen_specials.clear();
    for (int i = 0; i < hidden.n; ++i) unseen_specials.push(hidden[i]);
  }
  void resample_strengths(int player, Rng& r) {
    int known = led_mask(player), revealed = revealed_slot();
    std::vector<int> places, strengths;  // place: -1 pool, -2 pending request, else box
    for (int city = 0; city < NMC; ++city) {
      if (known >> city & 1) continue;
      for (int t = HOPLITE; t <= TRIREME; ++t) {
        places.clear();
        strengths.clear();
        shuffle_city_type(class_of(city, t, 1), revealed, places, strengths, r);
      }
    }
  }
  // Deal the strengths of one (city, type), classes first..first+3, over the same places.
  void shuffle_city_type(int first, int revealed, std::vector<int>& places,
                         std::vector<int>& strengths, Rng& r) {
    bool requested = pending.n > 0 && pending[0] >= first && pending[0] < first + 4;
    if (requested) {
      pool[pending[0]] -= 1;  // the requested counter is still in the pool
      places.push_back(-2);
      strengths.push_back(pending[0]);
    }
    for (int k = first; k < first + 4; ++k) {
      for (int i = 0; i < pool[k]; ++i) {
        places.push_back(-1);
        strengths.push_back(k);
      }
      pool[k] = 0;
    }
    for (int b = 0; b < NBOX; ++b) {
      if (b / 4 == revealed) continue;
      for (int k = first; k < first + 4; ++k) {
        int& count = at[b * NC + k];
        for (int i = 0; i < count; ++i) {
          places.push_back(b);
          strengths.push_back(k);
        }
        count = 0;
      }
    }
    std::sort(strengths.begin(), strengths.end());
    r.shuffle(strengths.data(), static_cast<int>(strengths.size()));
    for (size_t i = 0; i < places.size(); ++i) {
      int place = places[i], k = strengths[i];
      if (place == -1) {
        pool[k] += 1;
      } else if (place == -2) {
        pending[0] = k;
        pool[k] += 1;
      } else {
        at[place * NC + k] += 1;
      }
    }
  }

  // ================= the decision API =================
  void legal_actions(Actions& out) {
    out.clear();
    switch (phase) {
      case Phase::SETUP_PLACE:
        if (supply[current])
          for (int c = 0; c < NUM_CITIES; ++c) out.push_back(SETUP_CUBE + c);
        break;
      case Phase::INFLUENCE_PICK: legal_pick(out); break;
      case Phase::ALKIBIADES_CUBE: alki_cube_actions(alki[0], alki[1], out); break;
      case Phase::ALKIBIADES_DEST:
        for (int c = 0; c < NUM_CITIES; ++c)
          if (c != alki[0] && c != alki[3]) out.push_back(ALKIBIADES_DEST + c);
        break;
      case Phase::ANY_CITY:
        for (int c = 0; c < NUM_CITIES; ++c) out.push_back(ANY_CITY + c);
        break;
      case Phase::CANDIDATE_TILE:
      case Phase::PROPOSE: proposals(current, out); break;
      case Phase::ASSASSIN_TILE: legal_assassin(out); break;
      case Phase::POST_PICK_SPECIAL:
        out.push_back(END_PICK);
        influence_special_actions(current, out);
        std::sort(out.begin(), out.end());
        break;
      case Phase::SPARTA_CHOICE:
        for (int off = 0; off < n; ++off) out.push_back(SPARTA_FIRST + off);
        break;
      case Phase::DEAD_POOL:
        out.push_back(DEAD_POOL);
        out.push_back(DEAD_POOL + 1);
        break;
      case Phase::COMMIT: legal_commit(out); break;
      case Phase::PERMISSION:
        out.push_back(GRANT);
        out.push_back(DENY);
        break;
      case Phase::BATTLE_SPECIAL: legal_battle_special(out); break;
      case Phase::CASUALTY:
        for (int i = 0; i < b_cas.n; ++i) out.push_back(CASUALTY + class_city(b_cas[i]));
        std::sort(out.begin(), out.end());
        break;
      default: break;
    }
  }

  // Unchecked: the caller guarantees legality (the bindings check it first).
  void apply_action(int a) {
    switch (phase) {
      case Phase::SETUP_PLACE: apply_setup(a); break;
      case Phase::INFLUENCE_PICK: apply_pick(a); break;
      case Phase::ALKIBIADES_CUBE: {
        int city = (a - ALKIBIADES_CUBE) / MAXP, off = (a - ALKIBIADES_CUBE) % MAXP;
        alki.n = 3;
        alki.push(city);
        alki.push(seat(off));
        phase = Phase::ALKIBIADES_DEST;
        break;
      }
      case Phase::ALKIBIADES_DEST: apply_alki_dest(a); break;
      case Phase::ANY_CITY:
        add_cubes(current, a - ANY_CITY, 1);
        after_tile();
        break;
      case Phase::CANDIDATE_TILE:
        propose(a);
        after_tile();
        break;
      case Phase::ASSASSIN_TILE: apply_assassin(a); break;
      case Phase::POST_PICK_SPECIAL:
        if (a == END_PICK) finish_pick();
        else play_influence_special(a, true);
        break;
      case Phase::PROPOSE:
        propose(a);
        propose_cursor = (current + 1) % n;
        next_proposal();
        break;
      case Phase::SPARTA_CHOICE:
        commit_first = seat(a - SPARTA_FIRST);
        log(EV_SPARTA_FIRST, {current, commit_first});
        begin_dead_pool();
        break;
      case Phase::DEAD_POOL:
        recover(current, dp_queue[dp_index + 1], a - DEAD_POOL);
        dp_index += 2;
        next_dead_pool();
        break;
      case Phase::COMMIT: apply_commit(a); break;
      case Phase::PERMISSION: apply_permission(a); break;
      case Phase::BATTLE_SPECIAL: apply_battle_special(a); break;
      case Phase::CASUALTY: apply_casualty(a); break;
      default: throw std::logic_error("perikles native: apply_action on a finished game");
    }
    ++decisions;
  }

  // ================= setup and phase 2 (B.1, B.4) =================
  void begin_setup() {
    setup_done = 0;
    phase = Phase::SETUP_PLACE;
    current = first_player;
  }
  void apply_setup(int a) {
    add_cubes(current, a - SETUP_CUBE, 1);
    if (++setup_done < 2 * n) current = (current + 1) % n;
    else begin_influence_phase();
  }
  void begin_influence_phase() {
    picks_done = 0;
    log(EV_PHASE, {turn, PH_INFLUENCE, first_player});
    begin_pick();
  }
  void begin_pick() {
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
  void influence_special_actions(int p, Actions& out) {
    int tile = special[p];
    if (tile == PERIKLES) out.push_back(PLAY_PERIKLES);
    else if (tile == PLAGUE)
      for (int c = 0; c < NUM_CITIES; ++c) out.push_back(PLAY_PLAGUE + c);
    else if (tile == ALKIBIADES && total_cubes() >= 2) alki_cube_actions(-1, -1, out);
  }
  void legal_pick(Actions& out) {
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
  void apply_pick(int a) {
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
  void after_tile() {
    int p = current;
    bool unplayed = special_played[PERIKLES] < 0 || special_played[PLAGUE] < 0 ||
                    special_played[ALKIBIADES] < 0;
    if (!pick_special_done && has_unused_special(p) && unplayed) {
      phase = Phase::POST_PICK_SPECIAL;
      return;
    }
    finish_pick();
  }
  void finish_pick() {
    if (pick_slot >= 0 && !influence_deck.empty()) display[pick_slot] = influence_deck.pop();
    ++picks_done;
    begin_pick();
  }
  void mark_special_played(int p, int tile) {
    special[p] = -1;
    special_played[tile] = p;
    pick_special_done = true;
    log(EV_SPECIAL, {p, tile});
  }
  void play_influence_special(int a, bool after) {
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
  void resume_after_special(bool after) {
    if (after) finish_pick();
    else phase = Phase::INFLUENCE_PICK;
  }
  void plague(int city) {
    int losses[MAXP];
    plague_losses(city, losses);
    for (int q = 0; q < n; ++q) {
      if (losses[q]) remove_cubes(q, city, losses[q]);
      log(EV_PLAGUE_LOSS, {q, city, losses[q]});
    }
  }
  void alki_cube_actions(int city, int owner, Actions& out) {
    for (int c = 0; c < NUM_CITIES; ++c)
      for (int off = 0; off < n; ++off) {
        int q = (current + off) % n;
        int have = cubes[c * 5 + q] - (c == city && q == owner);
        if (have > 0) out.push_back(ALKIBIADES_CUBE + c * MAXP + off);
      }
  }
  void apply_alki_dest(int a) {
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

  // ---- proposals (B.5, E12) ----
  template <bool FIRST>
  bool proposals_impl(int p, Actions* out) {
    for (int c = 0; c < NUM_CITIES; ++c) {
      int alpha = cand[c * 2], beta = cand[c * 2 + 1];
      if (beta >= 0) continue;
      if (!(cubes[c * 5 + p] || alpha == p)) continue;
      for (int off = 0; off < n; ++off) {
        int q = (p + off) % n;
        if (cubes[c * 5 + q] && q != alpha) {
          if (FIRST) return true;
          out->push_back(PROPOSE + c * MAXP + off);
        }
      }
    }
    return false;
  }
  void proposals(int p, Actions& out) { proposals_impl<false>(p, &out); }
  bool has_proposals(int p) { return proposals_impl<true>(p, nullptr); }
  void propose(int a) {
    int city = (a - PROPOSE) / MAXP, off = (a - PROPOSE) % MAXP;
    int q = seat(off);
    int slot = city * 2 + (cand[city * 2] < 0 ? 0 : 1);
    cand[slot] = q;
    cubes[city * 5 + q] -= 1;
    log(EV_PROPOSE, {current, city, q, slot & 1});
  }
  // queries.assassination_targets (B.4 step 3, E16) as ASSASSINATE ids, seats from `first`.
  void assassination_targets(int first, Actions& out) const {
    for (int c = 0; c < NUM_CITIES; ++c) {
      for (int off = 0; off < n; ++off)
        if (cubes[c * 5 + (first + off) % n]) out.push_back(ASSASSINATE + c * 7 + off);
      if (cand[c * 2] >= 0) out.push_back(ASSASSINATE + c * 7 + 5);
      if (cand[c * 2 + 1] >= 0) out.push_back(ASSASSINATE + c * 7 + 6);
    }
  }
  void legal_assassin(Actions& out) const { assassination_targets(current, out); }
  void apply_assassin(int a) {
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

  // ---- phase 3 and 4 (B.5, B.6) ----
  void begin_proposals() {
    log(EV_PHASE, {turn, PH_PROPOSALS, first_player});
    propose_cursor = first_player;
    next_proposal();
  }
  void next_proposal() {
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
  void elections() {
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

  // ================= phase 5 (B.7) =================
  void begin_military_phase() {
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
  void begin_dead_pool() {
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
  bool dead_of(int city, int t) const {
    for (int s = 1; s <= 4; ++s)
      if (dead[class_of(city, t, s)]) return true;
    return false;
  }
  void next_dead_pool() {
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
  void recover(int player, int city, int unit_type) {
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
  void begin_commit() {
    log(EV_PHASE, {turn, PH_COMMIT, commit_first});
    commit_cursor = commit_first;
    next_commit_step();
  }
  void next_commit_step() {
    for (;;) {
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
  bool step_is_idle() {
    if (has_unused_special(current)) return false;
    int p = step_player, mask = placeable_cities();
    for (int x = 0; x < NMC; ++x)
      if ((mask >> x & 1) && has_placement(p, x)) return false;
    bool can_spend = step_spend < 0 && step_normal >= 1 && !step_closed;
    return !(can_spend && has_spend(p));
  }
  void end_step_if_idle() {
    if (step_is_idle()) next_commit_step();
  }

  // ---- B.7.6 placement legality (queries.placement_targets) ----
  // Over all slots, or over `nslots` of `slots` in that order; `out` holds 2 per slot.
  int open_targets(int p, int x, bool first, bool skip_hoplite_only, Target* out,
                   const int* slots = nullptr, int nslots = SLOTS) const {
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
  int target_status(int p, int x, int slot, int side) const {
    Target t[2];
    int cnt = open_targets(p, x, false, false, t, &slot, 1);
    for (int i = 0; i < cnt; ++i)
      if (t[i].side == side) return t[i].status;
    return ILLEGAL;
  }
  // queries.class_placement_status: with the hoplite-only rule (E24)
  int class_placement_status(int p, int klass, int slot, int side) const {
    if (class_type(klass) == TRIREME && T.loc_hoplite_only[loc_display[slot]]) return ILLEGAL;
    return target_status(p, class_city(klass), slot, side);
  }
  int placeable_cities() const {
    if (step_closed) return 0;
    if (step_spend < 0) return step_normal < 2 ? led_mask(step_player) : 0;
    if (step_extra >= 2) return 0;
    return 1 << ((persian >> step_player & 1) ? PERSIA : step_spend);
  }
  // Whether a pool counter of city x has a legal target (statuses 1 and 2).
  bool has_placement(int p, int x) const {
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
  void sorted_placements(int p, int x, Actions& out) const {
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
  void legal_commit(Actions& out) {
    int p = step_player, mask = placeable_cities();
    for (int x = 0; x < NMC; ++x)
      if (mask >> x & 1) sorted_placements(p, x, out);
    if (step_spend < 0 && step_normal >= 1 && !step_closed) spend_actions(p, &out);
    slave_revolt_actions(p, out);
    out.push_back(END_STEP);
  }
  bool spend_actions(int p, Actions* out) const {
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
  bool has_spend(int p) const { return spend_actions(p, nullptr); }
  int spartan_hoplites_at(int slot, int* cells) const {
    int cnt = 0;
    for (int box = slot * 4; box < slot * 4 + 4; ++box) {
      int base = box * NC;
      for (int k = 8; k < 12; ++k)
        if (at[base + k]) cells[cnt++] = base + k;
    }
    return cnt;
  }
  void slave_revolt_actions(int p, Actions& out) const {
    if (special[p] != SLAVE_REVOLT_TILE || step_closed || leader[SPARTA] < 0) return;
    if (pool[8] || pool[9] || pool[10] || pool[11]) out.push_back(SLAVE_REVOLT);
    int cells[16];
    for (int slot = 0; slot < SLOTS; ++slot)
      if (spartan_hoplites_at(slot, cells)) out.push_back(SLAVE_REVOLT + 1 + slot);
  }
  void apply_commit(int a) {
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
  void place(int klass, int slot, int side) {
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
  static void relate(int x, int mask, int* table) {
    mask &= ~(1 << x);
    table[x] |= mask;
    for (int c = 0; c < NMC; ++c)
      if (mask >> c & 1) table[c] |= 1 << x;
  }
  void apply_permission(int a) {
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
  int draw(const int* weights, int count) {
    int total = 0;
    for (int i = 0; i < count; ++i) total += weights[i];
    int r = rng.randrange(total);
    for (int i = 0; i < count; ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    throw std::logic_error("perikles native: draw out of range");
  }
  void slave_revolt(int source) {
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
  void refresh_side_cities(int slot) {
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

  // ================= phase 6 (B.8, section C) =================
  static int box_base(int slot, int side, int box) { return ((slot * 2 + side) * 2 + box) * NC; }
  int counters(int slot, int side, int unit_type) const {
    int total = 0;
    for (int box = 0; box < 2; ++box) {
      int base = box_base(slot, side, box);
      for (int i = 0; i < T.n_type_classes[unit_type]; ++i)
        total += at[base + T.type_classes[unit_type][i]];
    }
    return total;
  }
  int tile_at(int slot) const { return loc_display[slot]; }
  void begin_battles() {
    log(EV_PHASE, {turn, PH_BATTLES, commit_first});
    b_slot = 0;
    b_round = -1;
    b_stage = 0;
    run_battles();
  }
  void run_battles() {
    while (b_slot < SLOTS) {
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
  void log_battle(int slot) {
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
  bool start_location() {
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
  bool step_round() {
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
  // Bit 0: the double tile (Brasidas/Phormio) is eligible, bit 1: the token tile.
  int eligible_battle_specials(int slot, int unit_type) const {
    int out = 0;
    int dbl = unit_type == HOPLITE ? BRASIDAS : PHORMIO;
    int tok = unit_type == HOPLITE ? THESSALIAN : PERSIAN_FLEET;
    int home = unit_type == HOPLITE ? SPARTA : ATHENS;
    if (special_played[dbl] < 0 && city_in_round(slot, home, unit_type) && !b_double) out |= 1;
    if (special_played[tok] < 0 && std::min(b_tokens[0], b_tokens[1]) == 0) out |= 2;
    return out;
  }
  bool city_in_round(int slot, int city, int unit_type) const {
    for (int side = 0; side < 2; ++side)
      for (int box = 0; box < 2; ++box) {
        int base = box_base(slot, side, box);
        for (int s = 1; s <= 4; ++s)
          if (at[base + class_of(city, unit_type, s)]) return true;
      }
    return false;
  }
  void battle_offer_queue(int slot, int unit_type) {
    b_offers.clear();
    if (!eligible_battle_specials(slot, unit_type)) return;
    for (int i = 0; i < n; ++i) {
      int p = (commit_first + i) % n;
      if (has_unused_special(p)) b_offers.push(p);
    }
  }
  int round_type() const { return T.loc_round[tile_at(b_slot)][b_round]; }
  void legal_battle_special(Actions& out) {
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
  void apply_battle_special(int a) {
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
  int side_strength(int slot, int side, int unit_type, int doubled_city) const {
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
  int strength(int slot, int side, int unit_type) const {
    int doubled = b_double ? (unit_type == HOPLITE ? SPARTA : ATHENS) : -1;
    return side_strength(slot, side, unit_type, doubled);
  }
  int d6() {
    if (!forced_dice.empty()) {
      int v = forced_dice.front();
      forced_dice.erase(forced_dice.begin());
      return v;
    }
    return 1 + rng.randrange(6);
  }
  int roll_round(int slot, int unit_type) {
    int attack, defence;
    round_strengths(slot, unit_type, &attack, &defence);
    int column = crt_column(attack, defence);
    int need_a = T.crt_att[column], need_d = T.crt_def[column];
    int* tokens = b_tokens;
    log(EV_DICE_ROUND, {slot, unit_type, attack, defence, column, tokens[0], tokens[1]});
    bool rolloff = false;
    for (;;) {
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
  int casualty_box(int slot, int side, int unit_type) const {
    for (int box = 0; box < 2; ++box) {
      int base = box_base(slot, side, box);
      for (int c = 0; c < NMC; ++c)
        for (int s = 1; s <= 4; ++s)
          if (at[base + class_of(c, unit_type, s)]) return base;
    }
    return -1;
  }
  int casualty_cities(int slot, int side, int unit_type, int* tied) const {
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
  void take_casualty(int klass) {
    int slot = b_slot, base = casualty_box(slot, b_loser, class_type(klass));
    if (base < 0 || klass < 0) throw std::logic_error("perikles native: casualty without a counter");
    at[base + klass] -= 1;
    if (class_city(klass) == PERSIA) stack[klass] += 1;
    else dead[klass] += 1;
    log(EV_CASUALTY, {slot, b_loser, klass});
  }
  void apply_casualty(int a) {
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
  void round_won(int winner, bool automatic) {
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
  void return_type_home(int slot, int unit_type) {
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
  int side_claimants(int slot, int side, int* who) const {
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
  void claim(int slot, int side) {
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
  void unclaimed(int slot, int why) {
    int tile = tile_at(slot);
    loc_done[tile] = 1;
    log(EV_UNCLAIMED, {slot, tile, why});
  }
  void finish_location() {
    return_type_home(b_slot, HOPLITE);
    return_type_home(b_slot, TRIREME);
    ++b_slot;
    b_round = -1;
    b_stage = 0;
  }

  // ================= phase 7 and scoring (B.9, B.10) =================
  void end_turn() {
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
  int location_vp(int p) const {  // B.10
    int total = 0;
    for (int t = 0; t < NLOC; ++t)
      if (loc_claim[t] >> p & 1) total += T.loc_vp[t];
    return total;
  }
  int statue_count(int p) const {
    int total = 0;
    for (int c = 0; c < NUM_CITIES; ++c) total += statues[c * 5 + p];
    return total;
  }
  void scores(int* out) const {
    for (int p = 0; p < n; ++p) out[p] = cube_vp(p) + location_vp(p) + statue_vp(p);
  }
  int winners(int* out) const {
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
};

}  // namespace pk
