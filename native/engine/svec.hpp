// Small value types of the C++ core: a fixed-capacity list (the Python engine's
// variable-length lists) and the game's SplitMix64 generator (perikles_env/engine/rng.py).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace pk {

// A short list with a fixed capacity (the Python engine's variable-length lists).
template <int N>
struct SVec {
  int32_t n = 0;
  int32_t v[N] = {};
  int size() const { return n; }
  int32_t* data() { return v; }
  bool empty() const { return n == 0; }
  void clear() { n = 0; }
  void push(int x) {
    if (n >= N) throw std::logic_error("perikles native: list capacity exceeded");
    v[n++] = x;
  }
  int pop() {
    if (n <= 0) throw std::out_of_range("pop from empty list");
    return v[--n];
  }
  int pop_front() {
    if (n <= 0) throw std::out_of_range("pop from empty list");
    int x = v[0];
    std::memmove(v, v + 1, sizeof(int32_t) * (n - 1));
    --n;
    return x;
  }
  int& operator[](int i) { return v[i]; }
  int operator[](int i) const { return v[i]; }
};

// SplitMix64, identical to perikles_env/engine/rng.py.
struct Rng {
  uint64_t state = 0;
  uint64_t next64() {
    uint64_t s = (state += 0x9E3779B97F4A7C15ULL);
    uint64_t z = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  int randrange(int n) {
    if (n <= 0) throw std::invalid_argument("randrange() needs n > 0");
    uint64_t un = static_cast<uint64_t>(n);
    for (;;) {
      uint64_t r = next64();
      // Accept r below 2**64 - 2**64 % n, as rng.py does; r < 2**64 - n is always below
      // it, so the remainder (a second division) is computed only for the top n values.
      if (r < 0 - un) return static_cast<int>(r % un);
      uint64_t rem = (0 - un) % un;  // 2**64 % n
      if (rem == 0 || r < 0 - rem) return static_cast<int>(r % un);
    }
  }
  template <typename I>
  void shuffle(I* items, int count) {  // Fisher-Yates, as rng.py's shuffle
    for (int i = count - 1; i > 0; --i) std::swap(items[i], items[randrange(i + 1)]);
  }
  template <int N>
  void shuffle(SVec<N>& items) { shuffle(items.v, items.n); }
};

}  // namespace pk
