// The influence rows of action_features (analysis/action_features.py _political, _after):
// the election model's score change of each legal influence action, with the default
// personality and with spite 0 (the observer's own gain). See features.hpp.
#include "env/features.hpp"
#include "analysis/politics.hpp"

namespace pk::feat {
namespace {

// action_features._after: the layout after an influence action (the engine's effects), or
// false for actions this block does not model (Alkibiades).
bool after(const ai::View& v, int a, ai::Layout& layout) {
  layout = ai::Layout::of(v);
  if (a >= SETUP_CUBE && a < TAKE_TILE) {
    layout.add(v.me, a - SETUP_CUBE, 1);
  } else if (a >= ANY_CITY && a < PROPOSE) {
    layout.add(v.me, a - ANY_CITY, 1);
  } else if (a >= PROPOSE && a < ASSASSINATE) {
    int k = a - PROPOSE;
    layout.propose(k / MAXP, v.seat_of(k % MAXP));
  } else if (a >= ASSASSINATE && a < SPARTA_FIRST) {
    int k = a - ASSASSINATE;
    int city = k / ai::ASSASSIN_TARGETS, target = k % ai::ASSASSIN_TARGETS;
    int victim = target < MAXP ? v.seat_of(target)
                               : v.g.cand[city * 2 + target - ai::ASSASSIN_ALPHA];
    layout.assassinate(city, target, victim);
  } else if (a == PLAY_PERIKLES) {
    layout.add(v.me, ATHENS, 2);  // D.1
  } else if (a >= PLAY_PLAGUE && a < ALKIBIADES_CUBE) {
    layout.plague(a - PLAY_PLAGUE, v.n);
  } else {
    return false;
  }
  return true;
}

}  // namespace

void actions_political(const ai::View& v, const Actions& legal, float* out) {
  ai::Params own;
  own.spite = 0.0;
  const ai::PoliticalModel models[2] = {ai::PoliticalModel(v, ai::Params{}),
                                        ai::PoliticalModel(v, own)};
  double now[2];
  for (int i = 0; i < 2; ++i) now[i] = models[i].score(v.g.cubes, v.g.cand);
  ai::Layout layout;
  for (int a : legal) {
    double scores[2];
    if (a >= TAKE_TILE && a < TAKE_TILE + DISPLAY) {
      for (int i = 0; i < 2; ++i) scores[i] = ai::tile_value(models[i], v, a - TAKE_TILE);
    } else if (a == END_PICK) {
      scores[0] = now[0], scores[1] = now[1];
    } else if (after(v, a, layout)) {
      for (int i = 0; i < 2; ++i) scores[i] = layout.score(models[i]);
    } else {
      continue;
    }
    float* row = out + a * ACTION_PER;
    row[POLITICS] = static_cast<float>(scores[0] - now[0]);
    row[POLITICS_OWN] = static_cast<float>(scores[1] - now[1]);
    row[SCORED] = 1.0f;
  }
}

}  // namespace pk::feat
