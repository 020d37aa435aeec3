"""Generate the C++ core's generated headers from their one Python declaration:

* ``native/engine/generated/schema.hpp``: constants, action offsets, phases, event kinds,
  component tables and state fields (perikles_env/engine/schema.py, data.py, actions.py,
  phases.py);
* ``native/env/generated/observation.hpp``: the observation's block table and block ids
  (perikles_env/analysis/observation.py LAYOUT and ORACLE_LAYOUT) and the feature-block ids
  (perikles_env/analysis/encoding.py FEATURE_BLOCKS).

    python scripts/gen_native.py          # write the headers
    python scripts/gen_native.py --check  # exit 1 when a checked-in header is stale

tests/native/test_schema.py runs the check, so a changed declaration cannot reach the C++
core without a regenerated header (and a rebuild).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from perikles_env.analysis import encoding as E  # noqa: E402
from perikles_env.analysis import observation as O  # noqa: E402
from perikles_env.engine import actions as A  # noqa: E402
from perikles_env.engine import data as D  # noqa: E402
from perikles_env.engine import schema as S  # noqa: E402
from perikles_env.engine.phases import Phase  # noqa: E402
from scripts.generated_files import generator_main, stale_outputs  # noqa: E402

OUT = ROOT / "native" / "engine" / "generated" / "schema.hpp"
OUT_OBSERVATION = ROOT / "native" / "env" / "generated" / "observation.hpp"

CONSTANTS = {
    "NUM_CITIES": D.NUM_CITIES,
    "PERSIA": D.PERSIA,
    "NMC": D.NUM_MILITARY_CITIES,
    "MAXP": D.MAX_PLAYERS,
    "MINP": D.MIN_PLAYERS,
    "NC": D.NUM_CLASSES,
    "SLOTS": D.LOCATION_SLOTS,
    "NBOX": D.LOCATION_SLOTS * 4,
    "NINF": D.NUM_INFLUENCE_TILES,
    "DISPLAY": D.INFLUENCE_DISPLAY_SIZE,
    "NLOC": D.NUM_LOCATION_TILES,
    "NSPEC": D.NUM_SPECIALS,
    "CUBES_PER_PLAYER": D.CUBES_PER_PLAYER,
    "NUM_TURNS": D.NUM_TURNS,
    "ATHENS": 0,
    "SPARTA": 1,
    "HOPLITE": D.HOPLITE,
    "TRIREME": D.TRIREME,
    "ATT": 0,
    "DEF": 1,
    "PLAIN": 0,
    "CANDIDATE": 1,
    "ASSASSIN": 2,
    "ANY_KIND": 3,
    "ALKIBIADES": D.ALKIBIADES,
    "BRASIDAS": D.BRASIDAS,
    "PERIKLES": D.PERIKLES,
    "PERSIAN_FLEET": D.PERSIAN_FLEET,
    "PHORMIO": D.PHORMIO,
    "PLAGUE": D.PLAGUE,
    "SLAVE_REVOLT_TILE": D.SLAVE_REVOLT,
    "THESSALIAN": D.THESSALIAN,
}

# Field kinds -> (C++ kind tag, member declaration).
CPP_KIND = {
    "int": "INT", "phase": "PHASE", "bool": "BOOL", "ints": "ARRAY", "list": "SVEC",
    "dice": "SVEC", "u64": "U64",
}


def ident(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", text.upper()).strip("_")


def arr(values: object) -> str:
    if isinstance(values, (list, tuple)):
        return "{" + ", ".join(arr(v) for v in values) + "}"
    return str(int(values))  # type: ignore[call-overload]


def tables() -> str:
    rows = {
        "inf_colour": [t[0] for t in D.INFLUENCE_TILES],
        "inf_kind": [t[1] for t in D.INFLUENCE_TILES],
        "inf_shards": [t[2] for t in D.INFLUENCE_TILES],
        "loc_city": [t.city for t in D.LOCATION_TILES],
        "loc_vp": [t.vp for t in D.LOCATION_TILES],
        "loc_nrounds": [len(t.rounds) for t in D.LOCATION_TILES],
        "loc_round": [[*t.rounds, -1][:2] for t in D.LOCATION_TILES],
        "loc_militia": [list(t.militia) for t in D.LOCATION_TILES],
        "loc_rebels": [list(t.rebels) for t in D.LOCATION_TILES],
        "loc_hoplite_only": [int(t.rounds == (D.HOPLITE,)) for t in D.LOCATION_TILES],
        "initial": list(D.INITIAL_COUNTERS),
        "statue_len": [len(t) for t in D.STATUE_TRACKS],
        "statue": [[*t, *[0] * (8 - len(t))] for t in D.STATUE_TRACKS],
        "tiles_per_player": [D.TILES_PER_PLAYER.get(n, 0) for n in range(D.MAX_PLAYERS + 1)],
        "crt_att": list(D.CRT_ATTACKER_NEEDS),
        "crt_def": list(D.CRT_DEFENDER_NEEDS),
    }
    existing = list(D.EXISTING_CLASSES)
    by_type = [[k for k in existing if D.CLASS_TYPE[k] == t] for t in (0, 1)]
    pad = [*existing, *[0] * (D.NUM_CLASSES - len(existing))]
    rows["existing"] = pad
    rows["n_existing"] = len(existing)  # type: ignore[assignment]
    rows["type_classes"] = [[*c, *[0] * (D.NUM_CLASSES - len(c))] for c in by_type]
    rows["n_type_classes"] = [len(c) for c in by_type]
    decl = """struct Tables {
  int inf_colour[NINF], inf_kind[NINF], inf_shards[NINF];
  int loc_city[NLOC], loc_vp[NLOC], loc_nrounds[NLOC], loc_round[NLOC][2];
  int loc_militia[NLOC][2], loc_rebels[NLOC][2];
  bool loc_hoplite_only[NLOC];
  int initial[NC];
  int statue_len[NUM_CITIES], statue[NUM_CITIES][8];
  int tiles_per_player[MAXP + 1];
  int crt_att[6], crt_def[6];
  int existing[NC], n_existing;
  int type_classes[2][NC], n_type_classes[2];
};
"""
    body = ",\n".join(f"    /* {k} */ {arr(v)}" for k, v in rows.items())
    return decl + "inline constexpr Tables T = {\n" + body + ",\n};\n"


def fields() -> str:
    """An X-macro over the state (``PK_FIELD(name, member, KIND, size, lo, hi)``) plus the
    state struct it declares."""
    lines = ["#define PK_STATE_FIELDS(X) \\"]
    decls = []
    for f in (*(f for f in S.FIELDS if f.kind != "events"), S.RNG):
        lo, hi = f.bounds()
        kind = CPP_KIND[f.kind]
        size = f.size() if f.kind in ("ints", "list", "dice") else 0
        hi_text = "UINT64_MAX" if f.kind == "u64" else str(hi)
        member = "rng.state" if f is S.RNG else f.member
        lines.append(f"  X({f.name}, {member}, {kind}, {size}, {lo}, {hi_text}) \\")
        if f is S.RNG:
            decls.append("  Rng rng;")
            continue
        decls.append(
            {
                "INT": f"  int {f.member} = 0;",
                "PHASE": f"  Phase {f.member} = Phase::SETUP_PLACE;",
                "BOOL": f"  bool {f.member} = false;",
                "ARRAY": f"  int {f.member}[{size}] = {{}};",
                "SVEC": f"  SVec<{size}> {f.member};",
                "U64": f"  uint64_t {f.member} = 0;",
            }[kind]
        )
    lines.append("")
    struct = (
        "// Every field of the state (perikles_env/engine/schema.py FIELDS, with the RNG "
        "state as\n// `rng`); the rules are methods of `Game`, which derives from it.\n"
        "struct State {\n" + "\n".join(decls) + "\n};\n"
        "// Plain data: a copy is one memcpy (clones and search copy it every simulation).\n"
        "static_assert(std::is_trivially_copyable_v<State>);\n"
    )
    return "\n".join(lines) + "\n" + struct


def generate() -> str:
    out = [
        "// GENERATED by scripts/gen_native.py from perikles_env/engine/schema.py, data.py,",
        "// actions.py and phases.py: do not edit (tests/native/test_schema.py checks it).",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <type_traits>",
        "",
        '#include "engine/svec.hpp"',
        "",
        "namespace pk {",
        "",
    ]
    out += [f"inline constexpr int {k} = {v};" for k, v in CONSTANTS.items()]
    out += ["", "// Action ranges: the first id of each (actions.py RANGE_SIZES)."]
    out += [f"inline constexpr int {name} = {A.RANGES[name][0]};" for name, _ in A.RANGE_SIZES]
    out += [f"inline constexpr int NUM_ACTIONS = {A.NUM_ACTIONS};", ""]
    out += ["enum class Phase : int {"]
    out += [f"  {p.name} = {int(p)}," for p in Phase]
    out += ["};", f"inline constexpr int NUM_PHASES = {len(Phase)};", ""]
    out += ["// Event kinds (schema.EVENTS): logged as [kind, nargs, args...]."]
    out += ["enum Ev : int {"] + [f"  EV_{ident(e.name)}," for e in S.EVENTS] + ["};"]
    out += ["enum PhaseName : int {"]
    out += [f"  PH_{ident(x)}," for x in S.PHASE_EVENT_NAMES] + ["};"]
    out += ["enum Why : int {"] + [f"  WHY_{ident(x)}," for x in S.UNCLAIMED_REASONS] + ["};", ""]
    out += [tables(), fields(), "}  // namespace pk", ""]
    return "\n".join(out)


def block_ids() -> list[str]:
    """The C++ id of each observation block: its name in capitals, with ``_B`` appended where
    that would clash with a name of schema.hpp (``DISPLAY``, ``DEAD_POOL``, ``ALKIBIADES``)."""
    taken = {*CONSTANTS, *(name for name, _ in A.RANGE_SIZES), "NUM_ACTIONS", "NUM_PHASES"}
    ids = [ident(b.name) for b in (*O.LAYOUT, *O.ORACLE_LAYOUT)]
    return [f"{i}_B" if i in taken else i for i in ids]


def observation() -> str:
    """The observation's blocks (name, size, in order, the oracle's last) and the feature
    blocks' ids: native/encoder.hpp derives the offsets and sizes from them."""
    blocks = (*O.LAYOUT, *O.ORACLE_LAYOUT)
    entries = [f'{{"{b.name}", {b.size}}},' for b in blocks]
    width = max(map(len, entries))
    rows = [f"    {e:<{width}}  // {b.meaning}" for e, b in zip(entries, blocks, strict=True)]
    features = [f"FEATURE_{ident(name)} = {i}" for i, name in enumerate(E.FEATURE_BLOCK_NAMES)]
    out = [
        "// GENERATED by scripts/gen_native.py from perikles_env/analysis/observation.py",
        "// (LAYOUT, ORACLE_LAYOUT) and analysis/encoding.py (FEATURE_BLOCKS): do not edit",
        "// (tests/native/test_schema.py checks it).",
        "#pragma once",
        "",
        "namespace pk {",
        "",
        "// Feature blocks appended to the observation, in the caller's order (features.hpp",
        "// computes them; the id is the block's place in FEATURE_BLOCKS).",
        "enum Feature : int { " + ", ".join(features) + " };",
        f"inline constexpr int NUM_FEATURES = {len(features)};",
        "inline constexpr const char* FEATURE_NAMES[NUM_FEATURES] = {"
        + ", ".join(f'"{name}"' for name in E.FEATURE_BLOCK_NAMES) + "};",
        "",
        "namespace enc {",
        "",
        "// One block of the observation vector (docs/observation.md).",
        "struct Block {",
        "  const char* name;",
        "  int size;",
        "};",
        "// Every block in vector order: the observation's, then the oracle's.",
        "inline constexpr Block LAYOUT[] = {",
        *rows,
        "};",
        f"inline constexpr int NUM_BLOCKS = {len(blocks)};",
        f"inline constexpr int NUM_ORACLE_BLOCKS = {len(O.ORACLE_LAYOUT)};",
        f"inline constexpr int OBS_SIZE = {O.OBS_SIZE};",
        f"inline constexpr int ORACLE_SIZE = {O.ORACLE_SIZE};",
        "",
        "// A block's index in LAYOUT.",
        "enum B : int {",
        *(f"  {name}," for name in block_ids()),
        "};",
        "",
        "}  // namespace enc",
        "}  // namespace pk",
        "",
    ]
    return "\n".join(out)


# Each generated header and the function that writes its text.
OUTPUTS = {OUT: generate, OUT_OBSERVATION: observation}


def stale() -> list[Path]:
    """The generated headers whose checked-in text differs from what they would be now."""
    return stale_outputs(OUTPUTS)


def main() -> int:
    return generator_main(OUTPUTS, __doc__, "gen_native.py", "header")


if __name__ == "__main__":
    sys.exit(main())
