// Determinization (perikles_env/engine/determinize.py): resample everything hidden from
// `player` (docs/rules.md F) in place: the same draws of the same SplitMix64 stream in the
// same order as the Python reference, so the same seed gives the same sample on both
// engines. The caller works on a copy.
#include <algorithm>
#include <vector>

#include "engine/game.hpp"

namespace pk {

void Game::determinize(int player, uint64_t seed) {
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

void Game::resample_specials(int player, Rng& r) {
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

void Game::resample_strengths(int player, Rng& r) {
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
void Game::shuffle_city_type(int first, int revealed, std::vector<int>& places,
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

}  // namespace pk
