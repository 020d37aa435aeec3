"""What the YAML configs of training, evaluation and RLlib share: a pydantic base class, one
error style, safe YAML reading and ``--override`` parsing.

Every config is a frozen pydantic model that forbids unknown keys. A bad value becomes one
``InvalidConfigError`` line naming its path, ``ppo.n_steps: must be > 0, got -3``, whichever
check found it (a type, a bound or a rule across fields), so the command-line tools can print
it and exit 2. ``configs/schema/*.json`` is the same schema for editors (``export_schemas``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from perikles_env.errors import InvalidConfigError

from .config_files import find_config

M = TypeVar("M", bound="Schema")


class Schema(BaseModel):
    """Frozen, no unknown keys, no silent coercion (``"5"`` is not an int, ``true`` not a
    number), no NaN or infinity; ints are accepted where a float is expected."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


class Config(Schema):
    """A whole config (never a section of another): built in code, a bad value is the same
    ``InvalidConfigError`` as in a file. (Sections keep pydantic's ``__init__``: pydantic
    calls an overridden one for nested models too, which would hide the key's path.)"""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InvalidConfigError(describe(exc, type(self))) from None


class FieldError(ValueError):
    """A check across fields that blames one of them: ``FieldError("learner_seat", why)``
    inside ``env``'s validator reads ``env.learner_seat: why``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


_TYPES = {
    "int_type": "must be an int",
    "int_parsing": "must be an int",
    "int_from_float": "must be an int",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "dict_type": "must be a mapping",
    "model_type": "must be a mapping",
    "model_attributes_type": "must be a mapping",
    "none_required": "must be null",
    "missing": "is required",
}
_BOUNDS = {
    "greater_than": "must be > {gt}",
    "greater_than_equal": "must be >= {ge}",
    "less_than": "must be < {lt}",
    "less_than_equal": "must be <= {le}",
    "too_short": "must have at least {min_length} entries",
    "too_long": "must have at most {max_length} entries",
}
# pydantic names the branch of a union in an error's location ("int", "list[int]", ...)
_BRANCHES = {"int", "float", "str", "bool", "list", "dict", "none", "nullable"}


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _BRANCHES or any(c in part for c in "[]'-"):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


def _got(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _message(error: Any, model: type[BaseModel]) -> tuple[str, str]:
    """(path, message) of one pydantic error dict."""
    kind, ctx, loc = error["type"], error.get("ctx") or {}, tuple(error["loc"])
    cause = ctx.get("error")
    if isinstance(cause, FieldError):
        return _path((*loc, cause.field)), cause.message
    if kind == "value_error" or kind == "assertion_error":
        return _path(loc), str(cause) if cause is not None else error["msg"]
    if kind in _TYPES:
        return _path(loc), f"{_TYPES[kind]}, got {_got(error['input'])}"
    if kind == "literal_error":
        expected = ctx["expected"]
        many = "one of " if " or " in expected else ""
        return _path(loc), f"must be {many}{expected}, got {_got(error['input'])}"
    if kind == "too_short" and ctx.get("min_length") == 1:
        return _path(loc), f"must not be empty, got {_got(error['input'])}"
    if kind in _BOUNDS:
        bounds = {k: f"{v:g}" if isinstance(v, float) else v for k, v in ctx.items()}
        return _path(loc), f"{_BOUNDS[kind].format(**bounds)}, got {_got(error['input'])}"
    return _path(loc), f"{error['msg'][:1].lower()}{error['msg'][1:]}, got {_got(error['input'])}"


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The keys the (sub)model at ``loc`` declares (by their YAML names)."""
    for part in loc:
        field = model.model_fields.get(str(part))
        sub = getattr(field, "annotation", None)
        if not (isinstance(sub, type) and issubclass(sub, BaseModel)):
            return []
        model = sub
    return [f.alias or name for name, f in model.model_fields.items()]


def describe(exc: ValidationError, model: type[BaseModel]) -> str:
    """One line for all of ``exc``'s errors: one entry per path, unknown keys of a section
    together, and where a union's branches failed differently (``4`` or ``{spec: 4}``) the
    branch that got deeper into the value."""
    seen: dict[str, list[str]] = {}
    unknown: dict[tuple[Any, ...], list[str]] = {}
    for error in exc.errors():
        if error["type"] == "extra_forbidden":
            unknown.setdefault(tuple(error["loc"][:-1]), []).append(str(error["loc"][-1]))
            continue
        path, message = _message(error, model)
        messages = seen.setdefault(path, [])
        if message not in messages:
            messages.append(message)
    parts = []
    for loc, names in unknown.items():
        known = ", ".join(sorted(_fields_at(model, loc)))
        keys = ("unknown keys " if len(names) > 1 else "unknown key ") + ", ".join(map(repr, names))
        text = f"{keys} (known: {known})"
        parts.append(f"{_path(loc)}: {text}" if loc else text)
    for path, messages in seen.items():
        deeper = any(p.startswith((path + ".", path + "[")) for p in seen if path)
        if deeper and all(m.split(", got ")[0] in _TYPES.values() for m in messages):
            continue
        # "must be an int" + "must be 'random', got 'x'" -> "must be an int or 'random', got 'x'"
        heads = [m.split(", got ")[0] for m in messages[:-1]] + [messages[-1]]
        text = heads[0] + "".join(" or " + h.removeprefix("must be ") for h in heads[1:])
        parts.append(f"{path}: {text}" if path else text)
    return "; ".join(parts)


def build(model: type[M], data: Any, what: str = "the config") -> M:
    """``model`` validated from plain data; ``InvalidConfigError`` in the one-line style."""
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{what} must be a mapping of keys to values, got {_got(data)}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InvalidConfigError(describe(exc, model)) from None


def build_with_overrides(
    model: type[M], data: dict[str, Any] | None, overrides: list[str] | None = None
) -> M:
    """``model`` from a YAML file's mapping and ``--override`` texts (``ppo.n_steps=64``)."""
    return build(model, floats_in_yaml(apply_overrides(data or {}, overrides or [])))


def load_file(model: type[M], path: str | Path, overrides: list[str] | None = None) -> M:
    """Read and validate a YAML config of ``model``; errors name the file and the key."""
    file, data = read_yaml(path)
    try:
        return build_with_overrides(model, data, overrides)
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{file}: {exc}") from None


# ---- YAML ----------------------------------------------------------------------------------


def read_yaml(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """The config file ``path`` names (a path or a shipped name) and its mapping. A YAML
    tag that would build Python objects (``!!python/object``) is refused, like any syntax
    error, in one line: configs are plain data."""
    file = find_config(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidConfigError(f"cannot read {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InvalidConfigError(f"{file}: not a text file") from None
    except yaml.YAMLError as exc:
        raise InvalidConfigError(f"{file}: {_yaml_problem(exc)}") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{file}: must be a mapping of keys to values")
    return file, floats_in_yaml(data)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
    if "python/" in problem or "constructor for the tag" in problem:
        tag = problem.split("tag", 1)[-1].strip(" '")
        return f"{where}YAML tag {tag!r} refused (configs are plain data, no Python objects)"
    return f"{where}not valid YAML ({problem})"


def floats_in_yaml(data: Any) -> Any:
    """YAML 1.1 reads ``3e-4`` (no dot) as a string; convert such numeric strings."""
    if isinstance(data, dict):
        return {k: floats_in_yaml(v) for k, v in data.items()}
    if isinstance(data, list):
        return [floats_in_yaml(v) for v in data]
    if isinstance(data, str) and any(c in data for c in "eE"):
        try:
            return float(data)
        except ValueError:
            return data
    return data


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"ppo.learning_rate=1e-4"`` -> ``(["ppo", "learning_rate"], 0.0001)``."""
    if "=" not in text:
        raise InvalidConfigError(f"override {text!r} is not key=value")
    key, raw = text.split("=", 1)
    path = [p for p in key.strip().split(".") if p]
    if not path:
        raise InvalidConfigError(f"override {text!r} has no key")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        raise InvalidConfigError(f"override {text!r}: {_yaml_problem(exc)}") from None
    value = floats_in_yaml(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidConfigError(f"override {text!r}: {value} is not allowed")
    return path, value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """A copy of ``data`` with each ``key.path=value`` set (sections created as needed)."""
    out = yaml.safe_load(yaml.safe_dump(data)) or {}
    for text in overrides:
        path, value = parse_override(text)
        node = out
        for part in path[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                raise InvalidConfigError(f"override {text!r}: {part} is not a section")
            node = child
        node[path[-1]] = value
    return out


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema editors use to complete and check a config file."""
    schema = model.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
