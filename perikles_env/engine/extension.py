"""Loading the compiled C++ core, ``perikles_env._native``, or a build that an environment
variable names (the sanitizer tests load an ASan build this way)."""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any


def load_extension(name: str, env_var: str) -> Any:
    """The extension ``perikles_env.<name>``, or the build that ``$<env_var>`` names (the
    sanitizer tests load ASan builds this way)."""
    path = os.environ.get(env_var)
    if not path:
        return importlib.import_module(f"perikles_env.{name}")
    spec = importlib.util.spec_from_file_location(f"perikles_env.{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{env_var}={path!r} is not a loadable extension")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
