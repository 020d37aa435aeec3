"""SVG to an ``H x W x 3 uint8`` array, with resvg (a Rust renderer shipped as a wheel: no
system libraries). Imported only by code that rasterises, so envs that never render pay
nothing.

Fonts: resvg scans every system font on each call unless told otherwise, which costs more
than the drawing; we hand it the DejaVu Sans files once (the system's, or the copy that
matplotlib ships) and fall back to the system fonts only when neither exists.
"""

from __future__ import annotations

import importlib.util
import io
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidConfigError

_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
_FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
INSTALL_HINT = "pip install 'perikles_env[render]' (resvg-py and pillow)"


def require_rasteriser() -> None:
    """Raise ``InvalidConfigError`` now, not at the first frame, if resvg is missing."""
    for module in ("resvg_py", "PIL"):
        if importlib.util.find_spec(module) is None:
            raise InvalidConfigError(f"rgb_array rendering needs {module}: {INSTALL_HINT}")


@cache
def _font_options() -> dict[str, Any]:
    dirs = list(_FONT_DIRS)
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.origin:
        dirs.append(Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf")
    for folder in dirs:
        files = [folder / name for name in _FONT_FILES]
        if all(f.is_file() for f in files):
            return {"skip_system_fonts": True, "font_files": [str(f) for f in files]}
    return {}


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """PNG bytes of an SVG document (``scale`` 2.0 for a sharper picture)."""
    require_rasteriser()
    import resvg_py

    zoom = None if scale == 1.0 else scale
    png: bytes = resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, **_font_options())
    return png


def svg_to_rgb(svg: str, scale: float = 1.0) -> np.ndarray:
    """The picture as an ``H x W x 3`` uint8 array."""
    from PIL import Image

    with Image.open(io.BytesIO(svg_to_png(svg, scale))) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)
