"""The heuristic's and the search's parameters are declared once (``knob`` fields of
``HeuristicParams`` and ``SearchParams``): the C++ structs and range checks, the bindings'
arguments, the expert config's section and the docs tables follow the declaration, and
every generated file is current."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from perikles_env.agents.search.params import NATIVE_OPPONENTS, SearchParams
from perikles_env.analysis.knobs import Knob, knob_fields
from perikles_env.analysis.params import HeuristicParams
from perikles_env.errors import InvalidConfigError
from perikles_env.training.expert.config import (
    SEARCH_SECTION_DEFAULTS,
    SEARCH_SECTION_LEFT_OUT,
    SearchSection,
)

ROOT = Path(__file__).resolve().parents[2]
KNOBS = [(cls, name, k) for cls in (HeuristicParams, SearchParams) for name, k in knob_fields(cls)]
IDS = [f"{cls.__name__}.{name}" for cls, name, _ in KNOBS]


def outside(k: Knob) -> list[object]:
    """Values just outside ``k``'s declared range, and values of the wrong kind."""
    if k.choices:
        return ["nope", 1, None]
    if k.kind is bool:
        return ["true", 1, 0, None, 1.5]
    bad: list[object] = [True, "1", None]
    if k.low is not None:
        bad.append(k.low - 1 if k.kind is int else math.nextafter(k.low, -math.inf))
    if k.high is not None:
        bad.append(k.high + 1 if k.kind is int else math.nextafter(k.high, math.inf))
    if k.kind is float:
        bad += [math.nan, math.inf, -math.inf]
    else:
        bad.append(1.5)
    return bad


def test_generated_header_and_docs_tables_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_params.py"), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_header_declares_each_native_knob_with_its_default() -> None:
    text = (ROOT / "native" / "engine" / "generated" / "params.hpp").read_text(encoding="utf-8")
    for cls in (HeuristicParams, SearchParams):
        for name, k in knob_fields(cls):
            if not k.native:
                assert f" {name} = " not in text
            elif k.choices:
                assert f"bool {NATIVE_OPPONENTS} = {str(k.default == 'heuristic').lower()};" in text
            elif k.kind is bool:
                assert f"  bool {name} = {str(k.default).lower()};" in text
            else:
                kind = "int" if k.kind is int else "double"
                assert f"  {kind} {name} = {k.default!r};" in text


@pytest.mark.parametrize("cls,name,k", KNOBS, ids=IDS)
def test_every_value_outside_a_knob_is_refused_naming_it(cls, name, k) -> None:
    cls(**{name: k.default})
    if k.low is not None:
        cls(**{name: k.low})
    if k.high is not None:
        cls(**{name: k.high})
    for value in outside(k):
        with pytest.raises(InvalidConfigError, match=rf"\b{name} must be"):
            cls(**{name: value})


def test_ints_are_taken_where_floats_are_declared() -> None:
    assert HeuristicParams(aggression=1).aggression == 1.0
    assert isinstance(HeuristicParams(aggression=1).aggression, float)
    assert isinstance(SearchParams(c_puct=2).c_puct, float)


def test_the_expert_search_section_follows_the_declaration() -> None:
    """The section's fields are SearchParams' but the left-out ones; its defaults are
    the declaration's but ``batch`` (32, as before the declaration existed)."""
    fields = SearchSection.model_fields
    declared = [n for n, _ in knob_fields(SearchParams) if n not in SEARCH_SECTION_LEFT_OUT]
    assert list(fields) == declared
    assert SearchSection().params() == SearchParams(**SEARCH_SECTION_DEFAULTS)
    assert SearchSection().params().batch == 32
    schema = SearchSection.model_json_schema()["properties"]
    assert schema["prior_temp"]["minimum"] == 1e-3 and schema["prior_temp"]["maximum"] == 1e3
    assert schema["gumbel_m"]["maximum"] == 957
    assert "enum" in schema["opponents"] or "const" in schema["opponents"]


def test_a_tiny_prior_temperature_is_refused_everywhere() -> None:
    """``prior_temp=1e-300`` used to be accepted, and then every move of the search
    failed (logits / 1e-300 overflow): SearchParams, the search section and the spec
    parser now refuse it, naming the field."""
    from perikles_env.agents import AgentError, make_agent
    from perikles_env.training.expert.config import config_from_dict

    with pytest.raises(InvalidConfigError, match="prior_temp"):
        SearchParams(prior_temp=1e-300)
    with pytest.raises(InvalidConfigError, match=r"search\.prior_temp"):
        config_from_dict({"search": {"prior_temp": 1e-300}})
    with pytest.raises(AgentError, match="prior_temp"):
        make_agent("search:prior_temp=1e-300")


# ---- the C++ side ------------------------------------------------------------------------


def native_module():
    from tests.native.helpers import require_native

    return require_native().extension


def test_the_search_binding_takes_the_declared_native_knobs_by_name() -> None:
    X = native_module()
    native = SearchParams().native()
    assert list(native) == [
        NATIVE_OPPONENTS if k.choices else n for n, k in knob_fields(SearchParams) if k.native
    ]
    X.Search(**native, features=[0, 1])
    X.Search(**SearchParams(opponents="heuristic", rollout_mix=0.5).native(), features=[])
    with pytest.raises(TypeError):
        X.Search(**{**native, "batch": 16}, features=[])  # a Python-only knob


RANGED = [(n, k) for n, k in knob_fields(SearchParams) if k.native and k.kind in (int, float)]


@pytest.mark.parametrize("name,k", RANGED, ids=[n for n, _ in RANGED])
def test_the_core_checks_each_search_knob_s_declared_range(name, k) -> None:
    X = native_module()
    native = SearchParams().native()
    for value in outside(k):
        if isinstance(value, (bool, str)) or value is None or (k.kind is int and value == 1.5):
            continue  # nanobind refuses the type itself
        with pytest.raises(ValueError, match=rf"search {name} must be"):
            X.Search(**{**native, name: value}, features=[])


@pytest.mark.parametrize("name", HeuristicParams.names())
def test_the_core_checks_each_heuristic_knob_s_declared_range(name) -> None:
    """The heuristic's bindings and the vector env's opponent tuples: the generated
    ``ai::invalid`` names the knob."""
    from perikles_env.engine import GameConfig, new_game

    X = native_module()
    g = new_game(GameConfig(num_players=4), seed=3, backend="native")
    index = HeuristicParams.names().index(name)
    for value in (-0.5, 2.5, math.nan, math.inf):
        params = list(HeuristicParams().values())
        params[index] = value
        with pytest.raises(ValueError, match=rf"heuristic {name} must be in \[0, 2\]"):
            X.heuristic_scores(g.core, g.current, tuple(params))
        fine = HeuristicParams().values()
        for low, high in ((params, params), (fine, params), (params, fine)):  # either end
            with pytest.raises(ValueError, match=rf"heuristic {name} must be in \[0, 2\]"):
                X.VectorEnv(2, [4], False, [], [(-2, *low, *high)], [1.0], 0.0, -1, 1, 1000)
    assert X.heuristic_scores(g.core, g.current, HeuristicParams().values())
    fine = list(HeuristicParams().values())
    high = list(fine)
    high[index] = 0.0 if fine[index] > 0 else 1.0
    with pytest.raises(ValueError, match="high end is below its low end"):
        lo, hi = (fine, high) if high[index] < fine[index] else (high, fine)
        X.VectorEnv(2, [4], False, [], [(-2, *lo, *hi)], [1.0], 0.0, -1, 1, 1000)
