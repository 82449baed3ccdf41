"""The nets the engine can play with: the built-in one, shipped in the package, and any file.

``load_network`` reads a net file (format: ``eval/nnue_file.py``) into the C ``Network`` the
searchers evaluate with; ``builtin_network`` is the shipped net, read once.
"""

from __future__ import annotations

import functools
from pathlib import Path

from eval.nnue import Network
from eval.nnue_file import NetParameters, read_net

# The shipped net: eval/nets/<BUILTIN_NET>, package data (pyproject.toml), made by the command in
# its description (python -m tools.nnue_train ...; docs/nnue.md).
BUILTIN_NET = "kestrel-8.nnue"
NETS_FOLDER = Path(__file__).resolve().parent / "nets"


def builtin_path() -> Path:
    return NETS_FOLDER / BUILTIN_NET


def network_of(params: NetParameters) -> Network:
    """The C network of parsed net parameters."""
    return Network(params.hidden, params.qa, params.qb, params.scale, params.feature_weights,
                   params.feature_bias, params.output_weights, params.output_biases, params.feature_set)


def load_network(path: str | Path) -> tuple[Network, NetParameters]:
    """The network in the file at `path` and its parameters (for the description); OSError when
    it cannot be read, ValueError naming the problem when it is not a valid net."""
    params = read_net(Path(path))
    return network_of(params), params


@functools.cache
def builtin_network() -> Network:
    """The shipped net (read once per process); OSError or ValueError if the install lacks it."""
    return load_network(builtin_path())[0]


def is_builtin_name(value: str) -> bool:
    """Whether an `EvalFile` value means the built-in net: empty, ``<built-in>``, its file name or its path."""
    text = value.strip()
    if text in ("", "<empty>", "<built-in>", BUILTIN_NET):
        return True
    try:
        return Path(text).resolve() == builtin_path()
    except (OSError, RuntimeError, ValueError):
        return False
