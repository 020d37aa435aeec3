// The Perikles rules engine in C++20 (native/engine/, the lowest floor of native/: it includes
// nothing from the other folders): a line-by-line port of perikles_env/engine (the Python
// engine is the reference; tests/native proves the two identical, native/tests/engine_test.cpp
// checks invariants without Python). This header is the table of contents: the state is the
// generated `State` (generated/schema.hpp, with every constant, table, phase and event kind);
// `Game` adds the rules, declared here by rules area with one `legal_*` / `apply_*` pair per
// decision phase, and defined in one source file per area:
//
//   setup.cpp        construction, events, the decision API, setup (B.1), end of turn and
//                    scoring (B.9, B.10), the uniform random playout
//   influence.cpp    phases 2-4: tile picks, specials, Alkibiades, proposals, assassins,
//                    elections (B.4-B.6)
//   military.cpp     phase 5: dead pool, commitment, placement legality, permission, Slave
//                    Revolt (B.7)
//   combat.cpp       phase 6: battles (B.8, section C)
//   queries.cpp      rule queries (queries.py) and military_knowledge
//   determinize.cpp  resampling what a player cannot see (determinize.py)
//   load.cpp         load_error: cross-field checks of a loaded state
//   rules_util.hpp   counter classes, the CRT column, query result types
//   svec.hpp         the fixed-capacity list and SplitMix64
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/generated/schema.hpp"
#include "engine/rules_util.hpp"
#include "engine/svec.hpp"

namespace pk {

struct Game : State {
  // Events as [kind, nargs, args...]; only those logged since construction or load.
  std::vector<int32_t> ev;
  int64_t ev_count = 0;

  // ================= construction and the decision API (setup.cpp) =================
  // A new game (B.1): shuffles, deals and the first setup decision; throws on a bad count.
  void init_new(int num_players, bool record_events, uint64_t seed);
  // The legal actions of the current decision, increasing (empty once the game is over).
  void legal_actions(Actions& out) const;
  // Applies a legal action. Unchecked: the caller guarantees legality.
  void apply_action(int a);
  // Uniform random play to the end or `max_decisions` (policy legal[randrange(len)] of
  // SplitMix64(policy_seed), as benchmarks/engine_speed.py); returns the decisions made.
  int64_t random_playout(uint64_t policy_seed, int64_t max_decisions, Actions& scratch);
  // nullptr when the state is one the engine can run (memory-safe and terminating), else
  // what is wrong: the cross-field checks after fields were loaded one by one (load.cpp).
  const char* load_error() const;

  // ================= events (setup.cpp) =================
  void log(int kind, std::initializer_list<int> args);  // one event, when recording (inline)
  void log_list(int kind, const int* args, int count);
  void log_turn_start(int kind, int a, int b);  // EV_SETUP / EV_NEW_TURN with both displays

  // ================= small helpers (inline below) =================
  int seat(int offset) const;               // the seat `offset` places after the current one
  int led_mask(int player) const;           // cities the player leads (+ PERSIA bit)
  bool has_unused_special(int p) const;     // still holds a special tile
  int total_cubes() const;                  // cubes in all cities
  static int box_base(int slot, int side, int box);  // index of a box's first class in `at`
  int tile_at(int slot) const;              // location tile at a display slot
  int round_type() const;                   // unit type of the current battle round

  // ================= cubes and turn marks (B.12; setup.cpp) =================
  int add_cubes(int player, int city, int count);  // from supply, as many as left (logged)
  void remove_cubes(int player, int city, int count);  // back to supply
  void clear_turn_marks();  // leaders, mains, relations, requests of a turn

  // ================= setup placement (B.1; setup.cpp) =================
  void begin_setup();
  void legal_setup(Actions& out) const;  // SETUP_PLACE
  void apply_setup(int a);

  // ================= phase 2: influence (B.4; influence.cpp) =================
  void begin_influence_phase();
  void begin_pick();  // the next player to pick a tile, or phase 3
  void legal_pick(Actions& out) const;  // INFLUENCE_PICK: a display tile or a special
  void apply_pick(int a);
  void after_tile();   // offer a special after the tile, or finish the pick
  void finish_pick();  // refill the display slot, next pick
  void legal_any_city(Actions& out) const;  // ANY_CITY: a cube in any city
  void apply_any_city(int a);
  void legal_candidate(Actions& out) const;  // CANDIDATE_TILE: propose a candidate
  void apply_candidate(int a);
  void legal_assassin(Actions& out) const;  // ASSASSIN_TILE: remove a cube or candidate
  void apply_assassin(int a);
  void legal_post_pick_special(Actions& out) const;  // POST_PICK_SPECIAL: a special or END_PICK
  void apply_post_pick_special(int a);
  // Influence specials (D.1-D.3): Perikles, Plague, Alkibiades.
  void influence_special_actions(int p, Actions& out) const;
  void play_influence_special(int a, bool after);  // `after`: played after the tile
  void mark_special_played(int p, int tile);
  void resume_after_special(bool after);
  void plague(int city);
  void alki_cube_actions(int city, int owner, Actions& out) const;  // cubes Alkibiades may move
  void legal_alki_cube(Actions& out) const;  // ALKIBIADES_CUBE: the second cube
  void apply_alki_cube(int a);
  void legal_alki_dest(Actions& out) const;  // ALKIBIADES_DEST: where both cubes go
  void apply_alki_dest(int a);
  // queries.assassination_targets (B.4 step 3, E16) as ASSASSINATE ids, seats from `first`.
  void assassination_targets(int first, Actions& out) const;

  // ================= phases 3 and 4: proposals and elections (B.5, B.6; influence.cpp) ====
  void begin_proposals();
  void next_proposal();  // the next player with a proposal, or the elections
  void legal_propose(Actions& out) const;  // PROPOSE
  void apply_propose(int a);
  void proposals(int p, Actions& out) const;  // PROPOSE ids open to p (B.5, E12)
  bool has_proposals(int p) const;
  void propose(int a);  // seats the candidate of a PROPOSE id
  void elections();     // B.6, then phase 5

  // ================= phase 5: military (B.7; military.cpp) =================
  void begin_military_phase();  // controlled stacks to the pools, Sparta's choice
  void legal_sparta_choice(Actions& out) const;  // SPARTA_CHOICE: who commits first
  void apply_sparta_choice(int a);
  void begin_dead_pool();
  void next_dead_pool();  // recover automatically, or ask which type
  bool dead_of(int city, int t) const;
  void recover(int player, int city, int unit_type);
  void legal_dead_pool(Actions& out) const;  // DEAD_POOL: hoplite or trireme back
  void apply_dead_pool(int a);
  void begin_commit();
  void next_commit_step();  // the next commitment step (2-shard tiles first), or battles
  bool step_is_idle() const;  // nothing to do in this step but END_STEP
  void end_step_if_idle();
  void legal_commit(Actions& out) const;  // COMMIT: place, spend a cube, Slave Revolt, end
  void apply_commit(int a);
  int placeable_cities() const;  // cities whose counters the step may place now (mask)
  bool has_placement(int p, int x) const;  // a pool counter of city x has a target
  void sorted_placements(int p, int x, Actions& out) const;  // PLACE ids of city x, in order
  bool spend_actions(int p, Actions* out) const;  // SPEND_CUBE ids (or just: any?)
  bool has_spend(int p) const;
  void slave_revolt_actions(int p, Actions& out) const;
  int spartan_hoplites_at(int slot, int* cells) const;  // `at` cells of Spartan hoplites
  void place(int klass, int slot, int side);
  static void relate(int x, int mask, int* table);  // war / alliance bits of city x
  void legal_permission(Actions& out) const;  // PERMISSION: grant or deny (B.7.6)
  void apply_permission(int a);
  int draw(const int* weights, int count);  // weighted draw from the game's RNG
  void slave_revolt(int source);  // D.4: 0 from the pool, 1 + slot from a location
  void refresh_side_cities(int slot);
  // B.7.6 placement legality (queries.placement_targets): over all slots, or over `nslots`
  // of `slots` in that order; `out` holds 2 per slot; `first`: stop at the first target.
  int open_targets(int p, int x, bool first, bool skip_hoplite_only, Target* out,
                   const int* slots = nullptr, int nslots = SLOTS) const;
  int target_status(int p, int x, int slot, int side) const;  // queries.placement_status
  int class_placement_status(int p, int klass, int slot, int side) const;  // with E24

  // ================= phase 6: battles (B.8, section C; combat.cpp) =================
  void begin_battles();
  void run_battles();  // fight locations in order until a decision or the end of the turn
  bool start_location();  // false: decided without rounds
  bool step_round();      // false: waiting for a decision
  void log_battle(int slot);
  int counters(int slot, int side, int unit_type) const;
  int side_strength(int slot, int side, int unit_type, int doubled_city) const;
  int strength(int slot, int side, int unit_type) const;  // doubled by Brasidas / Phormio
  // Bit 0: the double tile (Brasidas / Phormio) is eligible, bit 1: the token tile.
  int eligible_battle_specials(int slot, int unit_type) const;
  bool city_in_round(int slot, int city, int unit_type) const;
  void battle_offer_queue(int slot, int unit_type);
  void legal_battle_special(Actions& out) const;  // BATTLE_SPECIAL: pass or play (D.5-D.9)
  void apply_battle_special(int a);
  int d6();  // a die: forced_dice first, then the RNG
  int roll_round(int slot, int unit_type);  // C.4: the winning side
  int casualty_box(int slot, int side, int unit_type) const;
  int casualty_cities(int slot, int side, int unit_type, int* tied) const;
  void take_casualty(int klass);
  void legal_casualty(Actions& out) const;  // CASUALTY: which tied city loses a counter
  void apply_casualty(int a);
  void round_won(int winner, bool automatic);
  void return_type_home(int slot, int unit_type);
  int side_claimants(int slot, int side, int* who) const;
  void claim(int slot, int side);
  void unclaimed(int slot, int why);
  void finish_location();

  // ================= phase 7 and scoring (B.9, B.10; setup.cpp) =================
  void end_turn();  // statues, next turn or GAME_OVER
  int cube_vp(int p) const;
  int statue_vp(int p) const;
  int location_vp(int p) const;
  int statue_count(int p) const;
  void scores(int* out) const;    // VP of the n players
  int winners(int* out) const;    // seats with the best (VP, location VP, statues)

  // ================= rule queries (queries.py; queries.cpp) =================
  static bool fights_rounds(int tile, bool attacked, bool defended);  // C.2
  static int round_kind(int tile, int unit_type, int attackers, int defenders);  // C.3
  // (attack, defence) entering the CRT for a round at `slot` now (C.4, D.5, D.7).
  void round_strengths(int slot, int unit_type, int* attack, int* defence) const;
  // queries.location_rounds with the counters at `slot` now; returns the count (<= 2).
  int predicted_rounds(int slot, Round* out) const;
  void plague_losses(int city, int* out) const;  // cubes each player loses (D.2, E19)
  int election_outcome(int city, int* loss) const;  // leader (-1: none), *loss his cubes lost
  int revealed_slot() const;  // information.revealed_slot: face-up battle slot, or -1
  void military_knowledge(int p, MilitaryKnowledge& out) const;

  // ================= determinize (determinize.py; determinize.cpp) =================
  // Resample everything hidden from `player` (docs/rules.md F) in place, with the same
  // SplitMix64 draws in the same order as the Python reference. Callers work on a copy.
  void determinize(int player, uint64_t seed);
  void resample_specials(int player, Rng& r);
  void resample_strengths(int player, Rng& r);
  void shuffle_city_type(int first, int revealed, std::vector<int>& places,
                         std::vector<int>& strengths, Rng& r);
};

// ---- the small hot helpers, inline ----
inline void Game::log(int kind, std::initializer_list<int> args) {
  if (!record) return;
  ++ev_count;
  ev.push_back(kind);
  ev.push_back(static_cast<int32_t>(args.size()));
  ev.insert(ev.end(), args.begin(), args.end());
}
inline int Game::seat(int offset) const { return (current + offset) % n; }
inline int Game::led_mask(int player) const {
  int mask = 0;
  for (int c = 0; c < NUM_CITIES; ++c)
    if (leader[c] == player) mask |= 1 << c;
  if (player >= 0 && (persian >> player & 1)) mask |= 1 << PERSIA;
  return mask;
}
inline bool Game::has_unused_special(int p) const { return special[p] >= 0; }
inline int Game::total_cubes() const {
  int s = 0;
  for (int v : cubes) s += v;
  return s;
}
inline int Game::box_base(int slot, int side, int box) { return ((slot * 2 + side) * 2 + box) * NC; }
inline int Game::tile_at(int slot) const { return loc_display[slot]; }
inline int Game::round_type() const { return T.loc_round[tile_at(b_slot)][b_round]; }

}  // namespace pk
