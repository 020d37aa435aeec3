// Cross-field checks of a state loaded field by field (bindings: `finish_load`): what the
// engine needs to stay memory-safe and terminating that single-field range checks cannot
// see. Python's from_dict validation, which runs first, is stricter.
#include <initializer_list>

#include "engine/game.hpp"

namespace pk {

const char* Game::load_error() const {
  auto seat_ok = [this](int p) { return p >= -1 && p < n; };
  if (phase != Phase::GAME_OVER && (current < 0 || current >= n)) return "current: no such seat";
  for (int v : cand) if (!seat_ok(v)) return "cand: no such seat";
  for (int v : leader) if (!seat_ok(v)) return "leader: no such seat";
  for (int v : main_) if (!seat_ok(v)) return "main: no such seat";
  for (int v : special_played) if (!seat_ok(v)) return "special_played: no such seat";
  if (persian >> n) return "persian: no such seat";
  for (int p = n; p < MAXP; ++p)
    if (held2[p] || held1[p] || special[p] >= 0 || supply[p]) return "seat beyond num_players in use";
  for (int v : {first_player, commit_first, propose_cursor, commit_cursor, step_player})
    if (v >= n) return "seat out of range";
  if (last_athens >= n) return "last_athens: no such seat";
  for (int i = 0; i < b_offers.n; ++i) if (b_offers[i] >= n) return "b_offers: no such seat";
  if (alki.n != 0 && alki.n != 3 && alki.n != 5) return "alki: wrong length";
  for (int i = 0; i < alki.n; ++i) {
    int v = alki[i];
    bool ok = (i == 0 || i == 3) ? v >= 0 && v < NUM_CITIES : (i == 2 ? v == 0 || v == 1 : v >= 0 && v < n);
    if (!ok) return "alki: value out of range";
  }
  if (dp_queue.n % 2) return "dp_queue: odd length";
  for (int i = 0; i < dp_queue.n; i += 2) if (dp_queue[i] >= n) return "dp_queue: no such seat";
  if (dp_index % 2 || dp_index > dp_queue.n) return "dp_index out of range";
  if (pending.n != 0 && pending.n != 3) return "pending: wrong length";
  if (pending.n == 3 && (pending[1] >= SLOTS || pending[2] > 1)) return "pending: out of range";
  for (int i = 0; i < b_cas.n; ++i) if (T.initial[b_cas[i]] == 0) return "b_cas: no such class";
  // The battle stage of the phase (as the validator's battle-state rule): another stage
  // makes run_battles skip every step and never return.
  int stage = phase == Phase::BATTLE_SPECIAL ? 1 : phase == Phase::CASUALTY ? 2 : 0;
  if (b_stage != stage) return "b_stage: not the stage of this phase";
  // Phase-specific indices the apply functions dereference.
  switch (phase) {
    case Phase::ALKIBIADES_CUBE: if (alki.n != 3) return "alki: phase needs 3 values"; break;
    case Phase::ALKIBIADES_DEST: if (alki.n != 5) return "alki: phase needs 5 values"; break;
    case Phase::DEAD_POOL: if (dp_index + 1 >= dp_queue.n) return "dp_index: no pending city"; break;
    case Phase::PERMISSION: if (pending.n != 3) return "pending: no request"; break;
    case Phase::BATTLE_SPECIAL:
      if (b_offers.empty() || b_slot < 0 || b_slot >= SLOTS || b_round < 0 ||
          b_round >= T.loc_nrounds[loc_display[b_slot]] || current != b_offers[0])
        return "battle special: inconsistent battle state";
      break;
    case Phase::CASUALTY:
      if (b_cas.empty() || b_slot < 0 || b_slot >= SLOTS || b_round < 0 ||
          b_round >= T.loc_nrounds[loc_display[b_slot]] || b_loser < 0)
        return "casualty: inconsistent battle state";
      break;
    default: break;
  }
  if (b_round >= 0 && b_slot >= 0 && b_slot < SLOTS && b_round >= T.loc_nrounds[loc_display[b_slot]])
    return "b_round out of range";
  return nullptr;
}

}  // namespace pk
