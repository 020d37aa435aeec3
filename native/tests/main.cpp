// perikles_selftest: the C++ core checked without Python, one part per folder of native/
// (native/tests/<folder>_test.cpp; what they share is tests/check.hpp). Built by CMake with
// -DPERIKLES_SELFTEST=ON; tests/native/test_cpp_selftest.py builds and runs it.
//
//   perikles_selftest [games per player count = 300] [first seed = 1]
//
// Prints one line per failure, one "<folder>: N passed, M failed" line per folder and a
// summary "N passed, M failed"; exits 1 on any failure.
#include <cstdio>
#include <cstdlib>

#include "tests/check.hpp"

int main(int argc, char** argv) {
  using namespace pk::selftest;
  int games = argc > 1 ? std::atoi(argv[1]) : 300;
  uint64_t seed0 = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  if (games < 1) {
    std::fprintf(stderr, "usage: perikles_selftest [games per player count] [first seed]\n");
    return 2;
  }
  Tally tallies[] = {{"engine"}, {"analysis"}, {"env"}, {"players"}};
  engine_tests(games, seed0, tallies[0]);
  analysis_tests(tallies[1]);
  env_tests(games, seed0, tallies[2]);
  players_tests(tallies[3]);
  int passed = 0, failed = 0;
  for (const Tally& t : tallies) {
    std::printf("%s: %d passed, %d failed (%lld decisions)\n", t.folder, t.passed, t.failed,
                static_cast<long long>(t.decisions));
    passed += t.passed;
    failed += t.failed;
  }
  std::printf("perikles_selftest: %d games x 3 player counts, every folder: %d passed, %d failed\n",
              games, passed, failed);
  return failed ? 1 : 0;
}
