"""Where a ``--config`` argument points: a file path, or a config shipped with the package.

The repository keeps its YAML configs in the top-level ``configs/`` folder; the wheel installs
the same files as ``perikles_env/configs/`` (package data), so ``perikles-train --config
default`` works after ``pip install`` in any folder. An existing path always wins; otherwise
the name (``default``, ``smoke.yaml`` or ``configs/smoke.yaml``) is looked up among the
shipped configs.
"""

from __future__ import annotations

from pathlib import Path

from perikles_env.errors import InvalidConfigError

_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # perikles_env/
# installed wheel: perikles_env/configs; source checkout: <repo>/configs
_SEARCH = (_PACKAGE_DIR / "configs", _PACKAGE_DIR.parent / "configs")


def shipped_config_dir() -> Path | None:
    """The folder of configs that came with this installation (None if there is none)."""
    for folder in _SEARCH:
        if folder.is_dir() and any(folder.glob("*.yaml")):
            return folder
    return None


def shipped_config_names() -> list[str]:
    """Names accepted by ``--config`` without a path (``default``, ``smoke``, ...)."""
    folder = shipped_config_dir()
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder else []


def find_config(arg: str | Path) -> Path:
    """The YAML file ``arg`` names; raises ``InvalidConfigError`` listing the known names."""
    path = Path(arg)
    if path.is_file():
        return path
    if path.is_dir():
        raise InvalidConfigError(f"config {str(arg)!r} is a directory, not a YAML file")
    folder = shipped_config_dir()
    if folder is not None:
        name = path.name if path.suffix in (".yaml", ".yml") else path.name + ".yaml"
        candidate = folder / name
        if candidate.is_file():
            return candidate
    known = ", ".join(shipped_config_names()) or "none"
    raise InvalidConfigError(
        f"config file not found: {str(arg)!r} (not a file; shipped configs: {known})"
    )
