"""The file of a ``SearchNet`` (``.pkn``): a zip of one JSON header and one ``.npy`` array
per weight tensor. Nothing in it is ever unpickled and no code runs when it is loaded.

* ``perikles-net.json``: ``format`` (``perikles-net-1``), the network's ``settings``
  (``NetSettings``: the player counts it plays and the seats its value predicts, feature
  blocks, layer widths, activation by name; files without ``players`` play
  ``num_players`` only), the
  ``observation`` layout it reads (``layout_signature``), the action count, the ``dtype``
  the weights are stored in (``float32``, or ``float16`` to halve the file), the library
  versions that wrote it and an ``extra`` JSON object (how the network was made);
* ``weights/<name>.npy``: each tensor of the network's ``state_dict``.

Reading checks, before any weight is read: the entries (exactly the header and the
tensors the settings imply), the sizes the zip declares (``MAX_BYTES``), the header's keys
and values, the observation layout (a network is fed the vector it was trained on or
refused), and each array's ``.npy`` header (dtype and shape, so a crafted header cannot
make numpy allocate a huge array); then every weight must be finite. Any failure raises
``NetFileError`` naming what is wrong. Writes are atomic (``files.atomic_write``).
"""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np

from ...errors import InvalidConfigError
from ...files import atomic_write
from ..ppo_file import ModelFileError
from .network import NetSettings, SearchNet

FORMAT = "perikles-net-1"
HEADER = "perikles-net.json"
WEIGHTS = "weights/"
MAX_BYTES = 128 << 20  # uncompressed data a file may declare (no zip bombs)
MAX_HEADER = 1 << 20
DTYPES = ("float32", "float16")
HEADER_KEYS = {"format", "settings", "observation", "actions", "dtype", "versions", "extra"}


class NetFileError(ModelFileError):
    """A search network file is missing, damaged, unsafe, or made for another layout."""


def save_net(
    path: str | Path, net: SearchNet, extra: dict[str, Any] | None = None, dtype: str = "float32"
) -> Path:
    """Write ``net`` atomically to ``path`` (weights as ``dtype``)."""
    import torch

    from ...analysis.encoding import layout_signature
    from ...engine import NUM_ACTIONS

    if dtype not in DTYPES:
        raise NetFileError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    header = {
        "format": FORMAT,
        "settings": net.settings.to_json(),
        "observation": layout_signature(net.features),
        "actions": NUM_ACTIONS,
        "dtype": dtype,
        "versions": {"torch": torch.__version__, "numpy": np.__version__},
        "extra": extra if extra is not None else dict(getattr(net, "extra", {})),
    }
    try:
        text = json.dumps(header, indent=1, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise NetFileError(f"extra is not plain JSON: {exc}") from exc
    arrays = {k: v.detach().cpu().numpy().astype(dtype) for k, v in net.state_dict().items()}

    def write(f: IO[bytes]) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(HEADER, text)
            for name, array in arrays.items():
                with z.open(f"{WEIGHTS}{name}.npy", "w") as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(array))

    atomic_write(path, write)
    return Path(path)


def load_net(path: str | Path) -> SearchNet:
    """The network of a ``.pkn`` file, checked (module docstring), in evaluation mode; its
    header's ``extra`` is ``net.extra``."""
    import torch

    p = Path(path)
    if not p.is_file():
        raise NetFileError(f"search network file not found: {path}")
    try:
        with zipfile.ZipFile(p) as z:
            header, infos = _read_header(z, p)
            net = _build(header, p)
            expected = {f"{WEIGHTS}{k}.npy": (k, v) for k, v in net.state_dict().items()}
            unknown = sorted(set(infos) - set(expected) - {HEADER})
            missing = sorted(set(expected) - set(infos))
            if unknown or missing:
                raise NetFileError(
                    f"{p}: entries do not fit the network (unknown {unknown[:5]}, missing "
                    f"{missing[:5]})"
                )
            state = {}
            for entry, (name, tensor) in expected.items():
                array = _read_array(z, entry, tuple(tensor.shape), header["dtype"], p)
                state[name] = torch.from_numpy(array.astype(np.float32))
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
        # RuntimeError: an encrypted entry; NotImplementedError: an unknown compression
        raise NetFileError(f"{p} is not a readable zip (truncated or damaged): {exc}") from exc
    except OSError as exc:
        raise NetFileError(f"cannot read {p}: {exc}") from exc
    net.load_state_dict(state)
    net.extra = header["extra"]
    return net.eval()


def _read_header(z: zipfile.ZipFile, p: Path) -> tuple[dict[str, Any], set[str]]:
    infos = z.infolist()
    names = {i.filename for i in infos}
    if "data" in names or "policy.npz" in names:
        raise NetFileError(
            f"{p} is a PPO model file, not a search network (convert it with "
            "`python -m perikles_env.training.search_warmstart`)"
        )
    if len(names) != len(infos):
        raise NetFileError(f"{p} holds an entry twice")
    if HEADER not in names:
        raise NetFileError(f"{p} is not a search network file (no {HEADER})")
    if sum(i.file_size for i in infos) > MAX_BYTES:
        raise NetFileError(f"{p} declares more than {MAX_BYTES >> 20} MiB of data")
    if z.getinfo(HEADER).file_size > MAX_HEADER:
        raise NetFileError(f"{p}: {HEADER} is larger than {MAX_HEADER >> 10} KiB")
    try:
        header = json.loads(z.read(HEADER), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NetFileError(f"{p}: {HEADER} is not valid JSON: {exc!r}"[:300]) from exc
    if not isinstance(header, dict):
        raise NetFileError(f"{p}: {HEADER} is not a JSON object")
    if header.get("format") != FORMAT:
        raise NetFileError(f"{p}: unknown format {header.get('format')!r}; expected {FORMAT}")
    unknown = sorted(set(header) - HEADER_KEYS)
    missing = sorted(HEADER_KEYS - set(header))
    if unknown or missing:
        raise NetFileError(f"{p}: header keys unknown {unknown}, missing {missing}")
    if header["dtype"] not in DTYPES:
        raise NetFileError(f"{p}: weight dtype {header['dtype']!r} is not one of {DTYPES}")
    if not isinstance(header["extra"], dict):
        raise NetFileError(f"{p}: extra must be a JSON object")
    return header, names


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _build(header: dict[str, Any], p: Path) -> SearchNet:
    from ...analysis.encoding import layout_signature
    from ...engine import NUM_ACTIONS

    settings = header["settings"]
    keys = set(NetSettings().to_json())
    if not isinstance(settings, dict) or set(settings) not in (keys, keys - {"players"}):
        raise NetFileError(f"{p}: settings must have exactly the keys {sorted(keys)}")
    try:
        checked = NetSettings(
            num_players=settings["num_players"],
            features=tuple(settings["features"]),
            policy_arch=tuple(settings["policy_arch"]),
            value_arch=tuple(settings["value_arch"]),
            activation=settings["activation"],
            players=tuple(settings.get("players", ())),  # older files: num_players only
        )
    except (InvalidConfigError, TypeError) as exc:
        raise NetFileError(f"{p}: bad settings: {exc}") from exc
    if header["actions"] != NUM_ACTIONS:
        raise NetFileError(f"{p}: made for {header['actions']!r} action ids, not {NUM_ACTIONS}")
    current = layout_signature(checked.features)
    if header["observation"] != current:
        recorded = header["observation"]
        fingerprint = recorded.get("fingerprint") if isinstance(recorded, dict) else recorded
        raise NetFileError(
            f"{p} reads another observation layout (fingerprint {str(fingerprint)[:12]}); "
            f"this perikles_env encodes {str(current['fingerprint'])[:12]}, size "
            f"{current['size']}. Retrain, or play it with the version that made it."
        )
    return SearchNet(checked)


def _read_array(
    z: zipfile.ZipFile, entry: str, shape: tuple[int, ...], dtype: str, p: Path
) -> np.ndarray:
    """One weight array; its ``.npy`` header is checked before its data is read."""
    with z.open(entry) as f:
        try:
            version = np.lib.format.read_magic(f)
            read = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            found_shape, fortran, found_dtype = read(f)
        except ValueError as exc:
            raise NetFileError(f"{p}: {entry} is not a .npy array: {exc}") from exc
    if found_dtype != np.dtype(dtype):
        raise NetFileError(f"{p}: {entry} holds {found_dtype}, the header says {dtype}")
    if tuple(found_shape) != shape or fortran:
        raise NetFileError(f"{p}: {entry} has shape {found_shape}, expected {shape}")
    with z.open(entry) as f:
        try:
            array = np.lib.format.read_array(f, allow_pickle=False)
        except ValueError as exc:
            raise NetFileError(f"{p}: {entry} is damaged: {exc}") from exc
    if not np.isfinite(array).all():
        raise NetFileError(f"{p}: {entry} holds NaN or infinite weights")
    return array
